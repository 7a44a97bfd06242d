"""The turn API and the conversation audit, for the caller's store only."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from audit.models import Record, Turn
from tenants.authentication import request_actor


AUDIO_MAX_BYTES = 4 * 1024 * 1024
AUDIO_FORMATS = {"audio/webm": "webm", "video/webm": "webm", "audio/ogg": "ogg", "audio/wav": "wav",
                 "audio/x-wav": "wav", "audio/wave": "wav"}


class TurnInputSerializer(serializers.Serializer):
    """Typed text, or (multipart) a recording in ``audio`` that is transcribed first; not both."""

    text = serializers.CharField(max_length=500, trim_whitespace=True, required=False)
    audio = serializers.FileField(required=False, allow_empty_file=True)
    mode = serializers.ChoiceField(choices=[mode.value for mode in Mode], default=Mode.ROUTER.value)
    conversation = serializers.CharField(max_length=64, required=False, allow_null=True, allow_blank=True)

    def validate_conversation(self, value: str | None) -> str | None:
        if value and not all(ch.isalnum() or ch in "-_" for ch in value):
            raise serializers.ValidationError("Use letters, digits, '-' and '_' only.")
        return value or None

    def validate_audio(self, value):
        if value.size > AUDIO_MAX_BYTES:
            raise serializers.ValidationError("The recording is too large (4 MB at most).")
        return value

    def validate(self, attrs: dict) -> dict:
        if bool(attrs.get("text")) == bool(attrs.get("audio") is not None):
            raise serializers.ValidationError("Send either text or an audio recording.")
        return attrs


def _audio_format(upload) -> str:
    """The recording's format from its content type or file name (the decoder checks the bytes)."""
    content_type = (upload.content_type or "").split(";")[0].strip().lower()
    if content_type in AUDIO_FORMATS:
        return AUDIO_FORMATS[content_type]
    suffix = (upload.name or "").rsplit(".", 1)[-1].lower()
    return {"webm": "webm", "ogg": "ogg", "oga": "ogg", "opus": "ogg", "wav": "wav"}.get(suffix, suffix or "unknown")


def transcribe_upload(*, store, upload):
    """The transcript of an uploaded recording, with the store's product words as Whisper's prompt.

    Raises:
        SpeechError: empty, not audio, too long or unsupported (mapped to a 400 with its message).
    """
    from assistant.speech.config import speech_settings
    from assistant.speech.decode import decode_audio
    from assistant.speech.transcribe import transcribe
    from assistant.tasks import prompt_words

    samples = decode_audio(upload.read(), audio_format=_audio_format(upload), max_seconds=speech_settings().max_seconds)
    return transcribe(samples, prompt_words=prompt_words(store))


TurnOutput = inline_serializer(
    "TurnOutput",
    fields={
        "conversation": serializers.CharField(),
        "turn": serializers.IntegerField(),
        "mode": serializers.CharField(),
        "transcript": serializers.CharField(),
        "normalized": serializers.CharField(),
        "guard": serializers.DictField(),
        "action": serializers.CharField(allow_null=True),
        "tool_calls": serializers.ListField(child=serializers.DictField()),
        "reply": serializers.CharField(),
        "media": serializers.ListField(child=serializers.DictField()),
        "pending_draft": serializers.DictField(allow_null=True),
        "latency_ms": serializers.FloatField(),
    },
)


class TurnApi(APIView):
    """One owner request to the store's assistant."""

    @extend_schema(request=TurnInputSerializer, responses=TurnOutput)
    def post(self, request: Request) -> Response:
        data = TurnInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text, transcript = data.validated_data.get("text", ""), None
        if data.validated_data.get("audio") is not None:
            heard = transcribe_upload(store=request.store, upload=data.validated_data["audio"])
            text, transcript = heard.text, heard.as_event_data()
        result = run_turn(
            store=request.store,
            turn=TurnInput(
                text=text,
                transcript=transcript,
                mode=Mode(data.validated_data["mode"]),
                conversation=data.validated_data.get("conversation"),
                channel="api",
                actor=request_actor(request),
            ),
        )
        return Response(result.as_dict())


class AuditQuery(serializers.Serializer):
    conversation = serializers.CharField(max_length=64)


class AuditApi(APIView):
    """A conversation's audit, in order: turns, model calls, guard verdicts, tool calls and their SQL."""

    @extend_schema(parameters=[OpenApiParameter("conversation", str, required=True)])
    def get(self, request: Request) -> Response:
        query = AuditQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        key = query.validated_data["conversation"]
        turns = list(Turn.objects.filter(store=request.store, conversation=key).order_by("index"))
        if not turns:  # a missing conversation and another store's answer the same
            raise NotFound("No conversation with that id.")
        records = (
            Record.objects.filter(store=request.store, conversation=key)
            .prefetch_related("statements")
            .order_by("created_at", "id")
        )
        by_turn: dict[int | None, list[dict]] = {}
        for record in records:
            by_turn.setdefault(record.turn_id, []).append(
                {
                    "id": record.pk,
                    "kind": record.kind,
                    "name": record.name,
                    "mode": record.mode,
                    "arguments": record.arguments,
                    "result": record.result,
                    "outcome": record.outcome,
                    "error": record.error,
                    "duration_ms": round(record.duration_ms, 1),
                    "data": record.data,
                    "at": record.created_at.isoformat(),
                    "sql": [{"sql": s.sql, "ms": round(s.duration_ms, 2)} for s in record.statements.all()],
                }
            )
        return Response(
            {
                "conversation": key,
                "turns": [
                    {
                        "turn": turn.index,
                        "mode": turn.mode,
                        "text": turn.text,
                        "normalized": turn.normalized,
                        "action": turn.action,
                        "reply": turn.reply,
                        "outcome": turn.outcome,
                        "latency_ms": round(turn.latency_ms, 1),
                        "stages": turn.stages,
                        "at": turn.created_at.isoformat(),
                        "records": by_turn.get(turn.pk, []),
                    }
                    for turn in turns
                ],
            }
        )
