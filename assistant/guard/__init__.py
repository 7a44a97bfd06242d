"""The guard: an input check on every request and an output check on every model-written reply.

Three layers, cheapest first; a confident answer stops the check there:

1. ``classifier``: MiniLM embeddings and a logistic regression trained on guard_train.json
   (~20 ms). At or above ``unsafe_above``: unsafe. At or below ``safe_below``: safe.
2. ``injection`` (input checks only): NanoGuard (~100 ms). At or above ``injection``: unsafe.
   It reads what the classifier left uncertain, and every request longer than the training
   requests (``CLASSIFIER_MAX_WORDS``), where the classifier's confidence means less: on
   short store requests it never changed a decision on guard_train or guard_eval.
3. ``llm``: the guard role's model with the seed's prompt version 2 (1-3 s on a laptop CPU),
   only for what the classifier left uncertain.

The thresholds are chosen by cross-validation on guard_train (``python manage.py guard_train``)
and read from ``weights/guard.json``. An output check judges the reply together with its
question, so "Does ghee cure diabetes?" → "Yes, ghee is in stock" is caught.

When the LLM backend fails, the classifier decides alone at its middle threshold and the
verdict's layer says ``classifier:llm_unavailable``; when the classifier cannot load, the LLM
decides alone; when no layer can judge, the check fails closed (unsafe, ``unavailable``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from assistant.inference.base import InferenceError
from assistant.types import GuardVerdict

from .classifier import WEIGHTS_DIR, ClassifierLayer
from .dataset import TRAIN_SET, items_load
from .encoders import GuardModelError
from .injection import InjectionLayer
from .judge import Judgement, LlmJudge

__all__ = [
    "REFUSAL",
    "Guard",
    "GuardVerdict",
    "Thresholds",
    "get_guard",
    "guard_reset",
]

logger = logging.getLogger(__name__)

REFUSAL = "Sorry, I can't help with that. I can help with your store's stock, sales, orders and everyday questions."

THRESHOLDS_FILE = WEIGHTS_DIR / "guard.json"

# The longest request in guard_train.json has 19 words: past this, the injection layer always reads.
CLASSIFIER_MAX_WORDS = 20


class Layer(Protocol):
    """One judge of a request (or of a question with its reply)."""

    name: str

    def score(self, text: str, reply: str | None = None) -> float:
        """How likely the content is unsafe, 0..1."""
        ...

    def warm_up(self) -> None: ...


class ScoringLayer(Layer, Protocol):
    def judge(self, text: str, reply: str | None = None) -> tuple[float, str]:
        """The unsafe score and the most likely unsafe category."""
        ...


class JudgeLayer(Protocol):
    name: str

    def judge(self, text: str, reply: str | None = None) -> Judgement: ...

    def warm_up(self) -> None: ...


@dataclass(frozen=True)
class Thresholds:
    """Where each layer's score becomes a decision (tuned on guard_train by cross-validation).

    Attributes:
        safe_below: a classifier score at or below this is safe without asking the LLM.
        unsafe_above: a classifier score at or above this is unsafe without asking the LLM.
        reply_unsafe_above: the same for an output check. The training set's only replies are
            about health, so the classifier leans unsafe on any reply; it blocks a reply alone
            only above every safe training reply, and the LLM judges the rest.
        injection: a NanoGuard score at or above this is an injection.
        fallback: the classifier's decision point when the LLM cannot answer.
    """

    safe_below: float = 0.1
    unsafe_above: float = 0.9
    reply_unsafe_above: float = 0.9
    injection: float = 0.999
    fallback: float = 0.5

    @classmethod
    def load(cls, path: Path = THRESHOLDS_FILE) -> Thresholds:
        """The tuned thresholds, or the defaults when the file is missing."""
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return cls()
        return cls(
            **{name: float(data[name]) for name in asdict(cls()) if name in data}
        )


class Guard:
    """The layered guard; ``get_guard()`` gives the process's one instance."""

    def __init__(
        self,
        *,
        classifier: ScoringLayer | None = None,
        injection: Layer | None = None,
        judge: JudgeLayer | None = None,
        thresholds: Thresholds | None = None,
    ) -> None:
        self.classifier = classifier if classifier is not None else ClassifierLayer()
        self.injection = injection if injection is not None else InjectionLayer()
        self._judge = judge
        self._judge_lock = threading.Lock()
        self.thresholds = thresholds or Thresholds.load()

    @property
    def judge(self) -> JudgeLayer:
        if self._judge is None:
            with self._judge_lock:
                if self._judge is None:
                    self._judge = LlmJudge.from_items(items_load(TRAIN_SET))
        return self._judge

    def check_input(self, text: str) -> GuardVerdict:
        """Judge a request before anything else runs."""
        return self._check(text, None)

    def check_output(self, question: str, reply: str) -> GuardVerdict:
        """Judge a model-written reply together with the question it answers."""
        return self._check(question, reply)

    def warm_up(self) -> None:
        """Load every layer now (the LLM's static prompt goes into llama.cpp's cache).

        A layer that cannot load is logged, not raised: the checks then decide without it.
        """
        for layer in (self.classifier, self.injection, self.judge):
            try:
                layer.warm_up()
            except (GuardModelError, InferenceError, ImportError, OSError) as exc:
                logger.warning("Guard layer %s is unavailable: %s", layer.name, exc)

    def _check(self, text: str, reply: str | None) -> GuardVerdict:
        started = time.perf_counter()
        verdict = self._decide(text, reply)
        duration_ms = (time.perf_counter() - started) * 1000
        return GuardVerdict(
            safe=verdict.safe,
            category=verdict.category,
            layer=verdict.layer,
            score=verdict.score,
            duration_ms=duration_ms,
        )

    def _decide(self, text: str, reply: str | None) -> GuardVerdict:
        limits = self.thresholds
        if not text.strip() and not (reply or "").strip():
            return GuardVerdict(safe=True, layer="rules")

        score: float | None
        try:
            score, category = self.classifier.judge(text, reply)
        except (GuardModelError, ImportError, OSError, ValueError) as exc:
            logger.error("Guard classifier unavailable, asking the LLM alone: %s", exc)
            score, category = None, "unknown"
        unsafe_above = (
            limits.unsafe_above if reply is None else limits.reply_unsafe_above
        )
        if score is not None and score >= unsafe_above:
            return GuardVerdict(
                safe=False, category=category, layer="classifier", score=score
            )

        confidently_safe = score is not None and score <= limits.safe_below
        familiar = len(text.split()) <= CLASSIFIER_MAX_WORDS
        if confidently_safe and (familiar or reply is not None):
            return GuardVerdict(safe=True, layer="classifier", score=score or 0.0)

        # Injection is a property of what the owner typed, not of the reply.
        if reply is None:
            try:
                injection = self.injection.score(text)
            except (GuardModelError, ImportError, OSError, RuntimeError) as exc:
                logger.error("Guard injection layer unavailable: %s", exc)
            else:
                if injection >= limits.injection:
                    return GuardVerdict(
                        safe=False,
                        category="injection",
                        layer="injection",
                        score=injection,
                    )
        if confidently_safe:
            return GuardVerdict(safe=True, layer="classifier", score=score or 0.0)

        try:
            judgement = self.judge.judge(text, reply)
        except (InferenceError, GuardModelError, ValueError, OSError) as exc:
            logger.error("Guard LLM unavailable, the classifier decides alone: %s", exc)
            if score is None:  # nothing left that can judge: refuse
                return GuardVerdict(
                    safe=False,
                    category="guard_unavailable",
                    layer="unavailable",
                    score=1.0,
                )
            unsafe = score >= limits.fallback
            return GuardVerdict(
                safe=not unsafe,
                category=category if unsafe else None,
                layer="classifier:llm_unavailable",
                score=score,
            )
        layer = "llm" if score is not None else "llm:classifier_unavailable"
        if not judgement.unsafe:
            return GuardVerdict(safe=True, layer=layer, score=0.0)
        return GuardVerdict(
            safe=False, category=judgement.category or category, layer=layer, score=1.0
        )


_guard: Guard | None = None
_guard_lock = threading.Lock()


def get_guard() -> Guard:
    """The process's guard (models load on first use or ``warm_up()``, once)."""
    global _guard
    if _guard is None:
        with _guard_lock:
            if _guard is None:
                _guard = Guard()
    return _guard


def guard_reset() -> None:
    """Forget the process's guard so the next ``get_guard`` reads the thresholds again (tests)."""
    global _guard
    with _guard_lock:
        _guard = None
