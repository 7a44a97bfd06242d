"""End of utterance in a live PCM stream, with the Silero VAD that ships with faster-whisper.

The detector reads 32 ms windows as they arrive and keeps Silero's recurrent state between
calls, so each window is scored once (the same scores ``faster_whisper.vad`` gives a whole file).
An utterance ends after ``silence_ms`` of silence following speech; a shorter pause inside a
sentence ("order twelve bottles ... of mustard oil") does not end it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from speech.config import SAMPLE_RATE

WINDOW = 512  # samples per Silero window at 16 kHz
CONTEXT = 64  # samples of the previous window Silero v6 reads with each window
MIN_SPEECH_MS = 160  # a click or a cough is not speech
PAUSE_MS = 250  # silence after which the owner is shown as not speaking


class VadEvent(StrEnum):
    SPEECH_START = "speech_start"
    SPEECH_STOP = "speech_stop"
    END = "end"


def _session():
    from faster_whisper.vad import get_vad_model

    return get_vad_model().session


@dataclass
class _State:
    speaking: bool = False  # shown as speaking (after MIN_SPEECH_MS of speech)
    heard: bool = False  # any speech in this utterance
    ended: bool = False
    speech_run: int = 0  # samples of speech before it counts
    silence: int = 0  # samples of silence since the last speech


class UtteranceDetector:
    """Feed 16 kHz mono float32 chunks; get speech start/stop and the end of the utterance."""

    def __init__(self, *, silence_ms: int = 800, threshold: float = 0.5) -> None:
        self.silence_samples = silence_ms * SAMPLE_RATE // 1000
        self.threshold = threshold
        self.neg_threshold = max(threshold - 0.15, 0.01)
        self.session = _session()
        self.h = np.zeros((1, 1, 128), dtype=np.float32)
        self.c = np.zeros((1, 1, 128), dtype=np.float32)
        self.context = np.zeros(CONTEXT, dtype=np.float32)
        self.pending = np.zeros(0, dtype=np.float32)
        self.state = _State()
        self.samples_seen = 0

    @property
    def heard_speech(self) -> bool:
        return self.state.heard

    @property
    def ended(self) -> bool:
        return self.state.ended

    def probabilities(self, samples: np.ndarray) -> np.ndarray:
        """Speech probability of each complete window in ``samples`` (the rest waits for more)."""
        self.pending = np.concatenate([self.pending, np.asarray(samples, dtype=np.float32)])
        count = len(self.pending) // WINDOW
        if not count:
            return np.zeros(0, dtype=np.float32)
        windows = self.pending[: count * WINDOW].reshape(count, WINDOW)
        self.pending = self.pending[count * WINDOW :]
        contexts = np.vstack([self.context, windows[:-1, -CONTEXT:]]) if count > 1 else self.context[None, :]
        self.context = windows[-1, -CONTEXT:].copy()
        batch = np.concatenate([contexts, windows], axis=1).astype(np.float32)
        out, self.h, self.c = self.session.run(None, {"input": batch, "h": self.h, "c": self.c})
        return np.asarray(out, dtype=np.float32).reshape(-1)

    def feed(self, samples: np.ndarray) -> list[VadEvent]:
        """Events raised by this chunk, in order; nothing more once the utterance has ended."""
        events: list[VadEvent] = []
        if self.state.ended:
            return events
        min_speech = MIN_SPEECH_MS * SAMPLE_RATE // 1000
        pause = min(PAUSE_MS * SAMPLE_RATE // 1000, self.silence_samples)
        state = self.state
        for prob in self.probabilities(samples):
            self.samples_seen += WINDOW
            if prob >= self.threshold:
                state.silence = 0
                state.speech_run += WINDOW
                if not state.speaking and state.speech_run >= min_speech:
                    state.speaking = state.heard = True
                    events.append(VadEvent.SPEECH_START)
                continue
            # Between the two thresholds silence only goes on once it has begun (Silero's hysteresis).
            if prob < self.neg_threshold or state.silence:
                state.silence += WINDOW
                if prob < self.neg_threshold and not state.speaking:
                    state.speech_run = 0
            if state.speaking and state.silence >= pause:
                state.speaking = False
                state.speech_run = 0
                events.append(VadEvent.SPEECH_STOP)
            if state.heard and state.silence >= self.silence_samples:
                state.ended = True
                events.append(VadEvent.END)
                break
        return events
