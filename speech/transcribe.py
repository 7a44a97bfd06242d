"""One utterance → its beam hypotheses → the one the store's catalog makes sense of.

An owner's request is one short utterance (at most ``SHELFWISE_STT_MAX_SECONDS``), so it is decoded
as one window: Silero trims the silence around it, the encoder reads it (``window_s``, or the
utterance and a second more where that is longer), and CTranslate2's beam search returns its best
``hypotheses``, which ``speech.hearing`` re-ranks against the store's products and numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from speech.config import SAMPLE_RATE, speech_settings
from speech.ear import Ear
from speech.errors import SpeechError, SpeechErrorCode
from speech.model import get_model

NO_SPEECH = "I didn't catch any words. Please try again."
# Whisper reads at most 224 prompt tokens; product names are short, so this many characters fit.
PROMPT_CHARS = 600
NO_SPEECH_PROB = 0.8  # with a low score too, Whisper's own "nothing was said"
MAX_NEW_TOKENS = 96  # one request; a runaway decode (repeating itself) stops here
PAD_S = 1.0  # encoder room after the speech, when the utterance is longer than ``window_s``
QUICK_TOKENS_PER_S = 6  # a preview's decode budget: fast speech is ~4 tokens a second
QUICK_REPEAT_WORDS = 3  # a preview that starts over (3 words or more) is cut there


@dataclass(frozen=True)
class Hypothesis:
    """One beam hypothesis: its text and mean log-probability per token."""

    text: str
    logprob: float


@dataclass(frozen=True)
class Transcript:
    """What was said.

    Attributes:
        text: the words, trimmed (after re-ranking and any correction to a catalog word).
        language: the language spoken (``en``).
        duration_s: length of the audio.
        words: ``(word, start_s, end_s, probability)`` in order (empty: the n-best decoder keeps no
            word timings).
        confidence: the chosen hypothesis's mean token probability, 0..1.
        ms: transcription time.
        heard: Whisper's own best hypothesis, before re-ranking.
        alternatives: the other hypotheses, best first.
        corrections: ``{"heard", "product", "score"}`` for each span read as a catalog word.
        doubt: a product or number the re-ranking is not sure of: ``{"question", "text"}``; the
            pipeline asks it instead of acting.
    """

    text: str
    language: str
    duration_s: float
    words: list[tuple[str, float, float, float]] = field(default_factory=list)
    confidence: float = 0.0
    ms: float = 0.0
    heard: str = ""
    alternatives: list[str] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    doubt: dict[str, str] | None = None

    def as_event_data(self) -> dict[str, Any]:
        """The fields a ``transcript`` event carries next to the text (JSON-safe)."""
        data: dict[str, Any] = {
            "source": "speech",
            "language": self.language,
            "duration_s": round(self.duration_s, 2),
            "confidence": round(self.confidence, 3),
            "stt_ms": round(self.ms, 1),
            "words": [[w, round(s, 2), round(e, 2), round(p, 3)] for w, s, e, p in self.words],
            "heard": self.heard or self.text,
            "alternatives": self.alternatives[:4],
            "corrections": self.corrections,
        }
        if self.doubt:
            data["doubt"] = self.doubt
        return data


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


def trim_silence(samples: np.ndarray) -> np.ndarray:
    """The utterance without the silence around it (Silero; what is between stays, pauses and all)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    spans = get_speech_timestamps(samples, VadOptions(min_silence_duration_ms=500, speech_pad_ms=200))
    if not spans:
        return samples[:0]
    return samples[spans[0]["start"] : spans[-1]["end"]]


def _features(model, samples: np.ndarray, window_s: float) -> np.ndarray:
    extractor = model.feature_extractor
    features = extractor(samples)
    frames = int(min(max(window_s, len(samples) / SAMPLE_RATE + PAD_S), 30.0) * 100)
    frames = max(frames - frames % 2, 100)  # the encoder halves the frames: keep them even
    if features.shape[-1] >= frames:
        return np.ascontiguousarray(features[:, :frames])
    return np.pad(features, ((0, 0), (0, frames - features.shape[-1])))


def without_repeats(text: str) -> str:
    """``text`` up to where its first words come again ("where is the atta where is the atta" →
    "where is the atta")."""
    words = text.split()
    key = [word.strip(".,?!;:").casefold() for word in words]
    for start in range(QUICK_REPEAT_WORDS, len(key) - QUICK_REPEAT_WORDS + 1):
        size = min(start, len(key) - start)  # what follows says all that came before again
        if key[start : start + size] == key[:size]:
            return " ".join(words[:start]).rstrip(",;:")
    return text


def decode(samples: np.ndarray, *, prompt: str | None, beam_size: int, hypotheses: int,
           window_s: float, max_new_tokens: int = MAX_NEW_TOKENS) -> tuple[list[Hypothesis], float]:
    """The beam's best ``hypotheses`` for one utterance, best first, and Whisper's no-speech probability."""
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    model = get_model()
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
    encoded = model.encode(_features(model, samples, window_s))
    previous = tokenizer.encode(" " + prompt.strip()) if prompt else []
    tokens = model.get_prompt(tokenizer, previous, without_timestamps=True)
    result = model.model.generate(
        encoded, [tokens], beam_size=beam_size, num_hypotheses=min(hypotheses, beam_size),
        max_length=len(tokens) + max_new_tokens, return_scores=True, return_no_speech_prob=True,
        suppress_blank=True, suppress_tokens=get_suppressed_tokens(tokenizer, [-1]), repetition_penalty=1.0,
    )[0]
    out: list[Hypothesis] = []
    for ids, score in zip(result.sequences_ids, result.scores, strict=True):
        text = " ".join(tokenizer.decode(ids).split())
        if text and all(text != h.text for h in out):
            out.append(Hypothesis(text=text, logprob=float(score)))
    return out, float(result.no_speech_prob)


def transcribe(samples: np.ndarray, *, prompt_words: Iterable[str] = (), hearing=None,
               beam_size: int | None = None, preview: bool = False) -> Transcript:
    """Transcribe 16 kHz mono float32 ``samples``; ``hearing`` (a ``hearing.Hearing``) re-ranks;
    ``beam_size`` overrides the setting (1 for a quick partial).

    ``preview``: the samples are speech still going on (a partial): the encoder reads the audio so
    far, not Whisper's 30 s window (several times faster on a short utterance), the decode is
    bounded by the audio's length, and a preview that starts over is cut where it does (short
    windows make ``tiny.en`` repeat itself). Final passes are never previews.

    Raises:
        SpeechError: ``no_speech`` when no words were heard.
    """
    settings = speech_settings()
    began = time.perf_counter()
    audio = np.ascontiguousarray(samples, dtype=np.float32)
    speech = trim_silence(audio) if settings.vad_trim else audio
    if not len(speech):
        raise SpeechError(SpeechErrorCode.NO_SPEECH, NO_SPEECH)
    budget = min(MAX_NEW_TOKENS, int(QUICK_TOKENS_PER_S * len(speech) / SAMPLE_RATE) + 8) if preview else MAX_NEW_TOKENS
    found, no_speech = decode(speech, prompt=initial_prompt(prompt_words), beam_size=beam_size or settings.beam_size,
                              hypotheses=settings.hypotheses, window_s=0.0 if preview else settings.window_s,
                              max_new_tokens=budget)
    if not found or (no_speech > NO_SPEECH_PROB and found[0].logprob < -1.0):
        raise SpeechError(SpeechErrorCode.NO_SPEECH, NO_SPEECH)
    ear = Ear(speech) if settings.ear and not preview else None
    chosen = hearing.choose(found, ear=ear) if hearing is not None else None
    text = chosen.text if chosen is not None else found[0].text
    if preview:
        text = without_repeats(text)
    return Transcript(
        text=text, language="en", duration_s=len(samples) / SAMPLE_RATE,
        confidence=math.exp(max(found[0].logprob, -50.0)), ms=(time.perf_counter() - began) * 1000,
        heard=found[0].text, alternatives=[h.text for h in found[1:]],
        corrections=chosen.corrections if chosen is not None else [],
        doubt=chosen.doubt if chosen is not None else None,
    )
