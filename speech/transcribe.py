"""One utterance → text, with Whisper's word timings and a confidence."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from speech.config import SAMPLE_RATE, speech_settings
from speech.errors import SpeechError, SpeechErrorCode
from speech.model import get_model

NO_SPEECH = "I didn't catch any words. Please try again."
# Whisper reads at most 224 prompt tokens; product names are short, so this many characters fit.
PROMPT_CHARS = 600


@dataclass(frozen=True)
class Transcript:
    """What was said.

    Attributes:
        text: the words, trimmed.
        language: the language spoken (``en`` for the English-only models).
        duration_s: length of the audio.
        words: ``(word, start_s, end_s, probability)`` in order.
        confidence: mean word probability, 0..1.
        ms: transcription time.
    """

    text: str
    language: str
    duration_s: float
    words: list[tuple[str, float, float, float]] = field(default_factory=list)
    confidence: float = 0.0
    ms: float = 0.0

    def as_event_data(self) -> dict[str, Any]:
        """The fields a ``transcript`` event carries next to the text (JSON-safe)."""
        return {
            "source": "speech",
            "language": self.language,
            "duration_s": round(self.duration_s, 2),
            "confidence": round(self.confidence, 3),
            "stt_ms": round(self.ms, 1),
            "words": [[w, round(s, 2), round(e, 2), round(p, 3)] for w, s, e, p in self.words],
        }


def initial_prompt(words: Iterable[str]) -> str | None:
    """The store's product names as Whisper's prompt, so "haldi" and "jeera" are spelled as sold."""
    seen: list[str] = []
    size = 0
    for word in words:
        word = " ".join(str(word).split())
        if not word or word.lower() in (w.lower() for w in seen):
            continue
        if size + len(word) + 2 > PROMPT_CHARS:
            break
        seen.append(word)
        size += len(word) + 2
    return ", ".join(seen) + "." if seen else None


def transcribe(samples: np.ndarray, *, prompt_words: Iterable[str] = ()) -> Transcript:
    """Transcribe 16 kHz mono float32 ``samples``.

    Raises:
        SpeechError: ``no_speech`` when no words were heard.
    """
    settings = speech_settings()
    model = get_model()
    began = time.perf_counter()
    segments, info = model.transcribe(
        np.ascontiguousarray(samples, dtype=np.float32),
        language="en" if not model.model.is_multilingual else None,
        beam_size=settings.beam_size,
        initial_prompt=initial_prompt(prompt_words),
        word_timestamps=True,
        condition_on_previous_text=False,
        # Drops leading and trailing silence, where Whisper invents "Thank you."
        vad_filter=True,
    )
    segments = [s for s in segments if s.no_speech_prob < 0.8 or s.avg_logprob > -1.0]
    words = [(w.word.strip(), float(w.start), float(w.end), float(w.probability)) for s in segments for w in (s.words or [])]
    text = " ".join(" ".join(s.text for s in segments).split())
    ms = (time.perf_counter() - began) * 1000
    if not text:
        raise SpeechError(SpeechErrorCode.NO_SPEECH, NO_SPEECH)
    confidence = sum(p for *_, p in words) / len(words) if words else math.exp(
        sum(s.avg_logprob for s in segments) / len(segments)
    )
    return Transcript(
        text=text, language=info.language or "en", duration_s=len(samples) / SAMPLE_RATE, words=words,
        confidence=confidence, ms=ms,
    )
