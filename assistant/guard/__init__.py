"""The guard: an input check on every request and an output check on every model-written reply.

Four layers, cheapest first; a confident answer stops the check there:

0. ``rules`` (microseconds): the shapes of a prompt injection, on the text and on its base64,
   rot13 and leetspeak decodings (``rules.py``). A hit is an injection. Before the next layers
   read a request, the store's business type reads its own alarming-sounding stock words
   ("boning knife", "kill switch", "codeine syrup") as "item" (``vocabulary.py``).
1. ``classifier``: MiniLM embeddings and a logistic regression trained on guard_train.json
   (~20 ms). At or above ``unsafe_above``: unsafe. At or below ``safe_below``: safe.
2. ``injection`` (input checks only): NanoGuard (~100 ms). At or above ``injection``: unsafe.
   It reads what the classifier left uncertain, and every request longer than the training
   requests (``CLASSIFIER_MAX_WORDS``), where the classifier's confidence means less: on
   short store requests it never changed a decision on guard_train or guard_eval.
3. ``llm``: the guard role's model with prompt version 3 (1-3 s on a laptop CPU),
   only for what the classifier left uncertain.

The thresholds are chosen on development data only (``python manage.py guard_train``: out-of-fold
scores on the training sets and the separate dev set; never the evaluation or challenge sets),
zero false positives on owner speech first, then recall, and read from ``weights/guard.json``.
``check_data`` judges text a model will read that did not come from the owner or from code
(catalog text, tool results): only for injections, since a hardware store's catalog may say
"machete". An output check judges the reply together with its
question, so "Does ghee cure diabetes?" → "Yes, ghee is in stock" is caught.

Every layer a check needs must answer: when one cannot (a missing package, a model server
down), the check fails closed (unsafe, category ``guard_unavailable``, layer ``unavailable:<layer>``)
and the owner hears ``UNAVAILABLE_REFUSAL``, never a silent pass.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from assistant import sentences
from assistant.types import GuardVerdict
from inference.base import InferenceError

from .classifier import WEIGHTS_DIR, ClassifierLayer
from .dataset import TRAIN_SET, items_load
from .encoders import GuardModelError
from .injection import InjectionLayer
from .judge import Judgement, LlmJudge
from .rules import data_injection_rule, injection_rule, self_harm_rule
from .vocabulary import VocabularyError, names_mask, safe_terms_mask

__all__ = [
    "REFUSAL",
    "UNAVAILABLE_REFUSAL",
    "Guard",
    "GuardVerdict",
    "Thresholds",
    "get_guard",
    "guard_reset",
]

logger = logging.getLogger(__name__)

REFUSAL = sentences.REFUSAL
# A check that could not run refuses with this instead of letting the request through.
UNAVAILABLE = "guard_unavailable"
UNAVAILABLE_REFUSAL = sentences.GUARD_UNAVAILABLE

THRESHOLDS_FILE = WEIGHTS_DIR / "guard.json"

# The longest request in guard_train.json has 19 words: past this, the injection layer always reads.
CLASSIFIER_MAX_WORDS = 20
# Catalog text and tool-result strings shorter than this are judged by the rules alone.
DATA_MIN_WORDS = 12


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
        injection: a NanoGuard score at or above this is an injection (in a request).
        data_injection: the same for catalog text and tool results.
        fallback: kept for old thresholds files; a check no longer falls back (it fails closed).
    """

    safe_below: float = 0.1
    unsafe_above: float = 0.9
    reply_unsafe_above: float = 0.9
    injection: float = 0.999
    data_injection: float = 0.999
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
        self._data_scores: dict[str, tuple[str, float]] = {}

    @property
    def judge(self) -> JudgeLayer:
        if self._judge is None:
            with self._judge_lock:
                if self._judge is None:
                    self._judge = LlmJudge.from_items(items_load(TRAIN_SET))
        return self._judge

    def warm_up(self) -> None:
        """Load the local layers (classifier, NanoGuard) now, not on the owner's first request."""
        self.classifier.warm_up()
        self.injection.warm_up()

    def check_input(
        self, text: str, *, business_type: str | None = None, catalog_names: frozenset[str] = frozenset(),
    ) -> GuardVerdict:
        """Judge a request before anything else runs.

        ``business_type``: whose safe vocabulary applies; ``catalog_names``: the store's product
        names and aliases (``vocabulary.name_key`` form), read as ``item`` by the layers after the
        rules (the rules read the words as said).
        """
        return self._check(text, None, business_type, catalog_names)

    def check_output(self, question: str, reply: str, *, business_type: str | None = None) -> GuardVerdict:
        """Judge a model-written reply together with the question it answers."""
        return self._check(question, reply, business_type)

    def check_data(self, texts: Sequence[str]) -> GuardVerdict:
        """Judge catalog text or a tool result a model will read: is any of it an injection?

        Rules first (the injection shapes, and the shapes only data may not take: text that speaks to
        the model or orders bulk changes, ``rules.data_injection_rule``), then NanoGuard on the texts
        it has not seen (remembered per process, so a catalog is read once). Fails closed: a layer
        that cannot run makes the data unsafe.
        """
        started = time.perf_counter()
        verdict = self._data_decide([t for t in dict.fromkeys(texts) if t and t.strip()])
        return GuardVerdict(safe=verdict.safe, category=verdict.category, layer=verdict.layer, score=verdict.score,
                            duration_ms=(time.perf_counter() - started) * 1000)

    def _data_decide(self, texts: list[str]) -> GuardVerdict:
        seen = self._data_scores  # text -> (layer, score), remembered: a catalog is read once per process
        unseen = [t for t in texts if t not in seen]
        fresh = {t: ("rules:data", 1.0) for t in unseen if injection_rule(t) or data_injection_rule(t)}
        # NanoGuard scores short catalog words at random ("Namkeen mix" 0.99) and pads every text to
        # 512 tokens: it reads only data long enough to hold an instruction the rules did not name.
        fresh.update((t, ("rules", 0.0)) for t in unseen if t not in fresh and len(t.split()) < DATA_MIN_WORDS)
        to_score = [t for t in unseen if t not in fresh]
        if to_score:
            try:
                scores = self.injection.score_many(to_score)  # type: ignore[attr-defined]
            except (GuardModelError, ImportError, OSError, RuntimeError, AttributeError) as exc:
                logger.error("Guard injection layer unavailable for data, refusing: %s", exc)
                return _unavailable("injection:data", exc)
            fresh.update((t, ("injection:data", float(score))) for t, score in zip(to_score, scores, strict=True))
        with self._judge_lock:
            if len(seen) > 20_000:
                seen.clear()
            seen.update(fresh)
        verdicts = [fresh.get(t) or seen.get(t) or ("rules", 0.0) for t in texts]
        layer, top = max(verdicts, key=lambda v: v[1], default=("rules", 0.0))
        if top >= self.thresholds.data_injection:
            return GuardVerdict(safe=False, category="injection", layer=layer, score=top)
        return GuardVerdict(safe=True, layer=layer, score=top)

    def _check(
        self, text: str, reply: str | None, business_type: str | None, catalog_names: frozenset[str] = frozenset(),
    ) -> GuardVerdict:
        started = time.perf_counter()
        verdict = self._rules(text, reply)
        if verdict is None:
            try:
                masked = safe_terms_mask(names_mask(text, catalog_names), business_type)
                masked_reply = safe_terms_mask(reply, business_type) if reply is not None else None
            except (VocabularyError, OSError, ValueError) as exc:  # a broken pack: judge the words as said
                logger.error("Guard vocabulary of %r unreadable: %s", business_type, exc)
                masked, masked_reply = text, reply
            verdict = self._decide(masked, masked_reply)
        duration_ms = (time.perf_counter() - started) * 1000
        return GuardVerdict(
            safe=verdict.safe,
            category=verdict.category,
            layer=verdict.layer,
            score=verdict.score,
            duration_ms=duration_ms,
        )

    @staticmethod
    def _rules(text: str, reply: str | None) -> GuardVerdict | None:
        """An injection shape in the request, a request about harming oneself, or a reply that recites its instructions."""
        rule = injection_rule(text) if reply is None else injection_rule(reply)
        if rule is not None:
            return GuardVerdict(safe=False, category="injection", layer=f"rules:{rule}", score=1.0)
        harm = self_harm_rule(text) if reply is None else None
        if harm is not None:
            return GuardVerdict(safe=False, category="self_harm", layer=f"rules:{harm}", score=1.0)
        return None

    def _decide(self, text: str, reply: str | None) -> GuardVerdict:
        """Classifier, then NanoGuard, then the judge; a layer that is needed and fails refuses."""
        limits = self.thresholds
        if not text.strip() and not (reply or "").strip():
            return GuardVerdict(safe=True, layer="rules")
        try:
            score, category = self.classifier.judge(text, reply)
        except (GuardModelError, ImportError, OSError, ValueError) as exc:
            return _unavailable("classifier", exc)
        unsafe_above = limits.unsafe_above if reply is None else limits.reply_unsafe_above
        if score >= unsafe_above:
            return GuardVerdict(safe=False, category=category, layer="classifier", score=score)

        confidently_safe = score <= limits.safe_below
        familiar = len(text.split()) <= CLASSIFIER_MAX_WORDS
        if confidently_safe and (familiar or reply is not None):
            return GuardVerdict(safe=True, layer="classifier", score=score)

        # Injection is a property of what the owner typed, not of the reply.
        if reply is None:
            try:
                injection = self.injection.score(text)
            except (GuardModelError, ImportError, OSError, RuntimeError) as exc:
                return _unavailable("injection", exc)
            if injection >= limits.injection and limits.injection < 1.0:  # 1.0: calibration switched it off
                return GuardVerdict(safe=False, category="injection", layer="injection", score=injection)
        if confidently_safe:
            return GuardVerdict(safe=True, layer="classifier", score=score)

        try:
            judgement = self.judge.judge(text, reply)
        except (InferenceError, GuardModelError, ValueError, OSError) as exc:
            return _unavailable("llm", exc)
        if not judgement.unsafe:
            return GuardVerdict(safe=True, layer="llm", score=0.0)
        return GuardVerdict(safe=False, category=judgement.category or category, layer="llm", score=1.0)


def _unavailable(layer: str, exc: Exception) -> GuardVerdict:
    """A layer the check needed could not run: refuse (fail closed), and say which."""
    logger.error("Guard layer %s unavailable, refusing: %s", layer, exc)
    return GuardVerdict(safe=False, category=UNAVAILABLE, layer=f"unavailable:{layer}", score=1.0)


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
