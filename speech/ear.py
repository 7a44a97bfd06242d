"""Listening again: how well a given wording fits the audio, by Whisper's own decoder.

The beam search keeps a few hypotheses, and a catalog word it never reached ("gur" heard "gold",
"otta" heard "darker") is in none of them. Comparing spellings cannot tell "gold" from "gur" well,
but the decoder can: fed a candidate wording token by token (teacher-forced, CTranslate2's
``align``), the log-probability of its tokens says how well that wording fits the sound. The
hearing asks this ear about the catalog's sound-alikes of each unknown span and keeps what the audio
supports; the catalog only proposes, the audio decides.

The audio is encoded once, over the utterance and a second of padding (no 30 s window: a short
window keeps the forced pass cheap, and only the comparison between wordings matters), without the
store's product prompt (the prompt would favour every catalog word alike).
"""

from __future__ import annotations

import math

import numpy as np

from speech.config import SAMPLE_RATE

MAX_BATCH = 48  # wordings scored in one decoder pass


class Ear:
    """Scores wordings against one utterance's audio; encodes it on first use, once."""

    def __init__(self, samples: np.ndarray) -> None:
        self.samples = samples
        self._encoded: np.ndarray | None = None
        self._frames = 0
        self._scores: dict[str, float] = {}

    def __call__(self, texts: list[str]) -> list[float]:
        """Each wording's total log-probability given the audio (higher fits better)."""
        import ctranslate2
        from faster_whisper.tokenizer import Tokenizer

        from speech.model import get_model
        from speech.transcribe import _features

        todo = [t for t in dict.fromkeys(texts) if t not in self._scores]
        if todo:
            model = get_model()
            tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
            if self._encoded is None:
                features = _features(model, self.samples, 0.0)
                self._frames = min(features.shape[-1], int(len(self.samples) / SAMPLE_RATE * 100) + 100)
                self._encoded = np.array(model.encode(features))
            frames = self._frames
            start = model.get_prompt(tokenizer, [], without_timestamps=True)
            for i in range(0, len(todo), MAX_BATCH):
                batch = todo[i : i + MAX_BATCH]
                tokens = [tokenizer.encode(" " + " ".join(text.split())) for text in batch]
                encoded = ctranslate2.StorageView.from_array(np.repeat(self._encoded, len(batch), axis=0))
                for text, result in zip(batch, model.model.align(encoded, start, tokens, frames), strict=True):
                    self._scores[text] = float(sum(math.log(max(p, 1e-12)) for p in result.text_token_probs))
        return [self._scores[t] for t in texts]
