"""Speech heard while the owner is still talking, pushed back to their socket (issue 19).

The voice socket sends the utterance so far every ``SHELFWISE_STT_PARTIAL_MS`` of speech: a quick
greedy pass (beam 1, no re-ranking, the encoder reading only the audio so far) becomes a ``partial``
the talk page shows. When the owner
pauses, the socket sends a ``final`` pass: the full beam, re-ranked against the catalog. If the
pause is the end of the request, the socket hands that transcript to the turn, so nothing is
transcribed after the owner stops speaking. Pushes go through the channel layer; with none that
reaches the web process, the socket sends nothing here (``push_reaches_web``).
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import Any

from asgiref.sync import async_to_sync

from tenants.models import Store

logger = logging.getLogger(__name__)

MESSAGE = "speech.partial"  # the consumer's ``speech_partial`` handler
PARTIAL_BEAM = 1


def _heard(store: Store, data: bytes, sample_rate: int, final: bool):
    from assistant.tasks import prompt_words, store_hearing
    from speech.config import speech_settings
    from speech.decode import pcm16_samples
    from speech.transcribe import transcribe

    settings = speech_settings()
    samples = pcm16_samples(data, sample_rate=sample_rate, max_seconds=settings.max_seconds)
    if final:
        return transcribe(samples, prompt_words=prompt_words(store), hearing=store_hearing(store))
    return transcribe(samples, prompt_words=prompt_words(store), beam_size=PARTIAL_BEAM, preview=True)


def speech_partial(*, store: Store, audio_b64: str, sample_rate: int, notify: str, seq: int, req: int,
                   final: bool) -> None:
    """Transcribe PCM16 audio so far and push ``{seq, req, final, text, transcript, bytes}`` to ``notify``."""
    from channels.layers import get_channel_layer

    from speech import SpeechError

    try:
        data = base64.b64decode(audio_b64, validate=True)
        heard = _heard(store, data, sample_rate, final)
        message: dict[str, Any] = {"seq": seq, "req": req, "final": final, "text": heard.text, "bytes": len(data),
                                   "transcript": heard.as_event_data()}
    except (SpeechError, binascii.Error, ValueError):
        message = {"seq": seq, "req": req, "final": final, "text": "", "bytes": 0, "transcript": None}
    try:
        async_to_sync(get_channel_layer().send)(notify, {"type": MESSAGE, **message})
    except Exception as exc:  # noqa: BLE001 - a partial is only a preview; the turn does not need it
        logger.warning("Partial transcript not pushed to %s: %s", notify, exc)
