"""The matcher's embedding head: MiniLM sentence embeddings and a logistic head over the pack's actions.

Trained once per process and business type on the pack's router examples, its development set
(never a held-out set) and expansions of its templates (``training.py``), all in the form the
head reads a request: the normalised words with the grounded product words masked. The
embeddings of the training texts are cached on disk (keyed by a hash of the texts), so a restart
re-fits the head in about a second.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from assistant.matcher.training import training_examples
from assistant.modes.router.actions import Decision

if TYPE_CHECKING:
    from assistant.grounding import Grounding
    from assistant.matcher.core import Match, Request

# The head's inverse regularisation, chosen among 1, 3, 10, 30 and 100 on the development sets
# (cross-validated on routing_dev.json, and on routing_dev2.json, which it never trains on).
C = 30.0


@dataclass(frozen=True)
class Head:
    """A fitted logistic head: ``classes[i]`` is the action of probability column ``i``."""

    classes: tuple[str, ...]
    model: object  # sklearn LogisticRegression

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(vectors)  # type: ignore[attr-defined]


def _cache_path(digest: str):
    from inference.bundle import models_dir

    return models_dir().parent / "cache" / f"matcher-{digest[:16]}.npy"


def embed_cached(texts: list[str]) -> np.ndarray:
    """Unit vectors of ``texts``, read from the disk cache when the same texts were embedded before."""
    from assistant.guard.encoders import embed

    digest = hashlib.sha256(json.dumps(texts).encode()).hexdigest()
    path = _cache_path(digest)
    try:
        cached = np.load(path)
        if cached.shape[0] == len(texts):
            return cached
    except (OSError, ValueError):
        pass
    vectors = np.asarray(embed(texts), dtype=np.float32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    except OSError:  # a read-only cache folder only costs the re-embedding next time
        pass
    return vectors


def head_fit(vectors: np.ndarray, labels: list[str]) -> Head:
    """A logistic head on these vectors and labels."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, max_iter=3000).fit(vectors, labels)
    return Head(classes=tuple(str(c) for c in model.classes_), model=model)


_heads: dict[str, Head] = {}
_lock = threading.Lock()


def head_for(business_type: str) -> Head:
    """The business type's head, fitted on first use in this process."""
    with _lock:
        head = _heads.get(business_type)
        if head is None:
            examples = training_examples(business_type)
            head = _heads[business_type] = head_fit(embed_cached([e.text for e in examples]),
                                                    [e.action for e in examples])
        return head


def embed_one(text: str) -> np.ndarray:
    """The unit embedding of one request's ``head_text``."""
    from assistant.guard.encoders import embed

    return np.asarray(embed([text]), dtype=np.float32)[0]


def action_probabilities(business_type: str, text: str, *, head: Head | None = None,
                         vector: np.ndarray | None = None) -> dict[str, float]:
    """Each action's probability for ``text`` (``head_text``'s form; ``vector``: its embedding, if made already)."""
    head = head or head_for(business_type)
    if vector is None:
        vector = embed_one(text)
    row = head.probabilities(vector.reshape(1, -1))[0]
    return dict(zip(head.classes, (float(p) for p in row), strict=True))


def embedding_match(request: Request, *, probabilities: dict[str, float], grounding: Grounding,
                    threshold: float, weak_threshold: float) -> Match | None:
    """The head's action when the words fit it and it is sure enough; else None.

    Sure enough: at least ``threshold`` where grounding agrees with the action, at least
    ``weak_threshold`` (higher) where it is weak: words the catalog does not know beside a
    non-product action, or products named in a general question.
    """
    from assistant.matcher.core import Match, fit

    action, confidence = max(probabilities.items(), key=lambda kv: kv[1])
    how = fit(action, request.words, grounding)
    if how is None or confidence < (threshold if how == "agrees" else max(threshold, weak_threshold)):
        return None
    return Match(decision=Decision(action=action), confidence=confidence, source="embedding", weak=how == "weak")
