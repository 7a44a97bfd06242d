"""Celery tasks of the assistant: a voice turn, its events pushed to the owner's socket as they happen.

The websocket consumer enqueues ``voice_turn_task`` with ids and plain data (audio travels
base64-encoded, so the JSON serializer carries it); the task transcribes, runs the turn and
sends each ``Event.as_dict()`` to the consumer's channel. With no broker it runs eagerly.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from assistant.pipeline import run_turn
from assistant.speech import SpeechError
from assistant.speech.errors import SpeechErrorCode
from assistant.types import Event, EventKind, Mode, TurnInput
from audit.models import Channel
from tenants.models import Store
from worker.base import store_task

logger = logging.getLogger(__name__)

EVENT_MESSAGE = "voice.event"  # the consumer's handler: VoiceConsumer.voice_event
TURN_FAILED = "Sorry, something went wrong on my side. Nothing was changed; please try again."


def socket_sender(channel_name: str) -> Callable[[dict[str, Any]], None]:
    """Sends one event (a JSON-safe dict) to the consumer on ``channel_name``."""
    layer = get_channel_layer()

    def send(event: dict[str, Any]) -> None:
        async_to_sync(layer.send)(channel_name, {"type": EVENT_MESSAGE, "event": event})

    return send


def failure_events(code: str, message: str) -> list[dict[str, Any]]:
    """What the socket gets when nothing ran: an error, then a done without a result."""
    return [{"type": "error", "code": code, "message": message}, {"type": "done", "result": None}]


def prompt_words(store: Store) -> list[str]:
    """The store's product words for Whisper's prompt: local names first (haldi, gur, sarson ka tel).

    Whisper already knows "turmeric"; the words it mishears are the local ones, and the prompt
    has room for only so many.
    """
    from ledger import selectors

    products = selectors.product_list(store=store)
    aliases = [str(alias) for product in products for alias in (product.aliases or [])]
    return aliases + [product.name for product in products]


def _transcribe(store: Store, audio_b64: str, audio_format: str, sample_rate: int):
    from assistant.speech.config import speech_settings
    from assistant.speech.decode import NOT_AUDIO, decode_audio
    from assistant.speech.transcribe import transcribe

    try:
        data = base64.b64decode(audio_b64, validate=True)
    except (binascii.Error, ValueError):
        raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO) from None
    samples = decode_audio(data, audio_format=audio_format, sample_rate=sample_rate,
                           max_seconds=speech_settings().max_seconds)
    return transcribe(samples, prompt_words=prompt_words(store))


@store_task(acks_late=True, max_retries=0)
def voice_turn_task(
    store: Store,
    *,
    channel_name: str,
    mode: str = Mode.ROUTER.value,
    conversation: str | None = None,
    actor: str = "owner",
    text: str | None = None,
    audio_b64: str | None = None,
    audio_format: str = "pcm16",
    sample_rate: int = 16_000,
) -> dict[str, Any] | None:
    """One voice (or typed) turn for ``store``; its events go to ``channel_name`` in order.

    Bad audio sends ``error`` + ``done`` (result null) and runs nothing else; the ``done`` of a
    turn carries ``result`` (``TurnResult.as_dict()``). Returns that result, or None.
    """
    send = socket_sender(channel_name)
    try:
        transcript = None
        if audio_b64 is not None:
            try:
                transcript = _transcribe(store, audio_b64, audio_format, int(sample_rate))
            except SpeechError as exc:
                for event in failure_events(exc.code, exc.message):
                    send(event)
                return None
            text = transcript.text
        held: list[dict[str, Any]] = []

        def on_event(event: Event) -> None:
            data = event.as_dict()
            if event.kind == EventKind.DONE:
                held.append(data)  # sent below, with the result the client keeps
            else:
                send(data)

        result = run_turn(
            store=store,
            turn=TurnInput(
                text=text or "", mode=Mode(mode), conversation=conversation, channel=Channel.VOICE.value, actor=actor,
                transcript=transcript.as_event_data() if transcript is not None else None,
            ),
            on_event=on_event,
        )
        answer = result.as_dict()
        send({**(held[0] if held else {"type": "done"}), "result": answer})
        return answer
    except Exception:  # never leave the socket waiting: an error and a done, the ledger rolled back
        logger.exception("Voice turn failed for store %s", store.pk)
        for event in failure_events("turn_failed", TURN_FAILED):
            send(event)
        return None
