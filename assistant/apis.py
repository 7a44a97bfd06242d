"""The turn API and the conversation audit, for the caller's store only."""

from __future__ import annotations

import base64
import logging

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpResponse, JsonResponse
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.types import Mode
from audit.models import Record, Turn
from speech.decode import EMPTY
from speech.errors import SpeechError, SpeechErrorCode
from tenants.authentication import request_actor
from worker.turns import push_reaches_web, turn_job_get, turn_status, turn_submit
from worker.watch import turn_wait

logger = logging.getLogger(__name__)

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

    For offline tools (the speech benchmark); turns hand recordings to the worker instead.

    Raises:
        SpeechError: empty, not audio, too long or unsupported (mapped to a 400 with its message).
    """
    from assistant.tasks import prompt_words, store_hearing
    from speech.config import speech_settings
    from speech.decode import decode_audio
    from speech.transcribe import transcribe

    samples = decode_audio(upload.read(), audio_format=_audio_format(upload), max_seconds=speech_settings().max_seconds)
    return transcribe(samples, prompt_words=prompt_words(store), hearing=store_hearing(store))


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
TurnJobOutput = inline_serializer(
    "TurnJob",
    fields={
        "job": serializers.UUIDField(),
        "status": serializers.ChoiceField(choices=["queued", "running", "done", "failed"]),
        "status_url": serializers.CharField(),
        "result": serializers.DictField(allow_null=True),
        "error": serializers.DictField(required=False),
    },
)
# A failed turn's code → its HTTP status: a recording that cannot be heard is the caller's to fix.
SPEECH_CODES = {"empty", "not_audio", "too_long", "unsupported", "no_speech"}


def _job_body(request: Request, status: dict) -> dict:
    return {**status, "status_url": request.build_absolute_uri(reverse("api-turn-status", args=[status["job"]]))}


class TurnApi(APIView):
    """One owner request to the store's assistant, run by a worker.

    Answers 200 with the turn when it finishes within ``SHELFWISE_TURN_WAIT_S`` seconds; 202 with
    the job and its ``status_url`` when it does not, or when the caller asks ``?async=1``. An
    ``Idempotency-Key`` header makes a retried request return the first one's job, never a second turn.
    """

    @extend_schema(
        request=TurnInputSerializer,
        parameters=[OpenApiParameter("async", bool, description="Answer 202 at once with the job's status URL."),
                    OpenApiParameter("Idempotency-Key", str, location=OpenApiParameter.HEADER, required=False)],
        responses={200: TurnOutput, 202: TurnJobOutput},
    )
    def post(self, request: Request) -> Response:
        data = TurnInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = (request.headers.get("Idempotency-Key") or "").strip()
        if len(key) > 128 or not key.isprintable():
            raise serializers.ValidationError({"Idempotency-Key": "Use at most 128 printable characters."})
        audio = None
        if data.validated_data.get("audio") is not None:
            upload = data.validated_data["audio"]
            if not upload.size:
                raise SpeechError(SpeechErrorCode.EMPTY, EMPTY)
            audio = {"audio_b64": base64.b64encode(upload.read()).decode("ascii"), "audio_format": _audio_format(upload)}
        notify = async_to_sync(get_channel_layer().new_channel)() if push_reaches_web() else None
        job = turn_submit(
            store=request.store, channel="api", mode=data.validated_data["mode"], actor=request_actor(request),
            text=data.validated_data.get("text", ""), conversation=data.validated_data.get("conversation"),
            idempotency_key=key, notify=notify, audio=audio,
        )
        response = Response(_job_body(request, turn_status(job)), status=202)
        response["Location"] = response.data["status_url"]
        wait = request.query_params.get("async", "").lower() not in ("1", "true")
        response.turn_wait = (request.store, str(job.pk), notify) if wait else None
        return response


class TurnStatusApi(APIView):
    """A turn handed to a worker: queued, running, done (with the answer) or failed (with why)."""

    @extend_schema(responses=TurnJobOutput)
    def get(self, request: Request, job: str) -> Response:
        found = turn_job_get(store=request.store, job_id=job)
        if found is None:  # a malformed id, a missing job and another store's job answer the same
            raise NotFound("No turn with that id.")
        return Response(_job_body(request, turn_status(found)))


_turn_view = TurnApi.as_view()


def _turn_api(request):
    """The hand-over; its database connection is closed before the wait, which holds none."""
    try:
        return _turn_view(request)
    finally:
        if not connection.in_atomic_block:
            connection.close()


async def turn_api(request):
    """``POST /api/v1/turns``: hand the turn over (DRF, in a thread), then wait for it without one."""
    response = await sync_to_async(_turn_api)(request)
    waiting = getattr(response, "turn_wait", None)
    if waiting is None:
        return response
    store, job_id, notify = waiting
    try:
        status = await turn_wait(store=store, job_id=job_id, notify=notify, timeout=settings.SHELFWISE_TURN_WAIT_S)
    except DatabaseError:
        # The job was handed over and may run (or have run): its answer is at the status URL. A 503
        # saying "nothing was changed" would be untrue once its worker writes.
        logger.warning("Turn %s: the database went away during the wait; answering with the status URL", job_id)
        return response
    if status is None:
        return response  # still running: 202 with the status URL
    if status["status"] == "done":
        return JsonResponse(status["result"], status=200)
    error = status.get("error") or {}
    code = 400 if error.get("code") in SPEECH_CODES else 503
    return JsonResponse({"error": error}, status=code)


turn_api.csrf_exempt = True  # DRF's session authentication enforces CSRF itself
# The OpenAPI generator lists only DRF views: these make it describe TurnApi at this URL (the
# schema, its fuzz test and the Swagger page would otherwise leave out the API's main call).
turn_api.cls = TurnApi
turn_api.initkwargs = {}


class TurnSpeechApi(APIView):
    """A turn's reply spoken by the assistant's voice (Ogg/Opus), for clients without a browser voice.

    The turn is this store's (another store's, or a missing one, is a 404); the words are the reply
    recorded in the audit, so nothing is spoken that the turn did not say.
    """

    @extend_schema(responses={(200, "audio/ogg"): bytes})
    def get(self, request: Request, conversation: str, turn: int) -> HttpResponse:
        from speech.voice import reply_audio

        found = Turn.objects.filter(store=request.store, conversation=conversation, index=turn).first()
        if found is None or not found.reply:
            raise NotFound("No turn with a reply there.")
        try:
            audio = reply_audio(found.reply)
        except SpeechError as exc:
            return JsonResponse({"error": exc.as_dict()}, status=503)
        response = HttpResponse(audio, content_type="audio/ogg")
        response["Cache-Control"] = "private, max-age=3600"
        return response


class AuditQuery(serializers.Serializer):
    conversation = serializers.CharField(max_length=64)


class AuditApi(APIView):
    """A conversation's audit, in order: turns, model calls, guard verdicts, tool calls and their SQL."""

    @extend_schema(
        parameters=[OpenApiParameter("conversation", str, required=True)],
        responses=inline_serializer("ConversationAudit", {
            "conversation": serializers.CharField(),
            "turns": serializers.ListField(child=serializers.DictField(),
                                           help_text="Each turn with its records (model calls, guard verdicts, tool calls, SQL)."),
        }),
    )
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
