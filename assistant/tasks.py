"""What a worker needs to hear a recording: the store's words for Whisper's prompt, and decoding.

Turns from every channel run as ``worker.tasks.turn_task`` (``worker/turns.py``); a recording
travels base64-encoded in the task's message (the JSON serializer carries it) and is transcribed
here, on the worker, never in the web process.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import Any

from assistant import sentences
from speech import SpeechError
from speech.errors import SpeechErrorCode
from tenants.models import Store

logger = logging.getLogger(__name__)

TURN_FAILED = sentences.TURN_FAILED


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


def store_hearing(store: Store):
    """The store's ``Hearing``: its catalog and lexicon, to re-rank and correct what Whisper heard."""
    from assistant.catalogs import catalog_for
    from assistant.lexicon import lexicon_for
    from packs.source import store_pack_key
    from speech.hearing import Hearing
    from tenants.context import use_store

    with use_store(store):
        lexicon = lexicon_for(store_pack_key(store))
        return Hearing(catalog=catalog_for(store=store, lexicon=lexicon), lexicon=lexicon)


def _transcribe(store: Store, audio_b64: str, audio_format: str, sample_rate: int):
    from speech.config import speech_settings
    from speech.decode import NOT_AUDIO, decode_audio
    from speech.transcribe import transcribe

    try:
        data = base64.b64decode(audio_b64, validate=True)
    except (binascii.Error, ValueError):
        raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO) from None
    samples = decode_audio(data, audio_format=audio_format, sample_rate=sample_rate,
                           max_seconds=speech_settings().max_seconds)
    return transcribe(samples, prompt_words=prompt_words(store), hearing=store_hearing(store))
