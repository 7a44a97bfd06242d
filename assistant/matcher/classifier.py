"""The matcher's embedding head: MiniLM sentence embeddings and a logistic head over the pack's actions.

Trained once per process and business type on the pack's router examples and its development
set (never the held-out routing set), on the normalised words, so a request is compared in the
form the templates and the router see. The embeddings of the training texts are cached on disk
(keyed by a hash of the texts), so a restart re-fits the head in well under a second.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from assistant.matcher.core import Match, Request

# The head's inverse regularisation (chosen by cross-validation on the development set).
C = 10.0


@dataclass(frozen=True)
class Head:
    """A fitted logistic head: ``classes[i]`` is the action of probability column ``i``."""

    classes: tuple[str, ...]
    model: object  # sklearn LogisticRegression

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(vectors)  # type: ignore[attr-defined]


def training_examples(business_type: str) -> list[tuple[str, str]]:
    """(normalised words, action) pairs: the pack's router examples, then its development set."""
    from assistant.lexicon import lexicon_for
    from assistant.matcher.templates import matcher_pack
    from assistant.modes.router.prompt import router_pack
    from assistant.normalize import normalize

    lexicon = lexicon_for(business_type)
    pairs = [(say, answer["action"]) for say, answer in router_pack(business_type).examples]
    pack = matcher_pack(business_type)
    if pack is not None and pack.development_set is not None:
        items = json.loads(pack.development_set)["items"]
        pairs += [(item["say"], item["action"]) for item in items]
    return [(normalize(say, lexicon).text, action) for say, action in pairs]


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
            pairs = training_examples(business_type)
            head = _heads[business_type] = head_fit(embed_cached([t for t, _ in pairs]), [a for _, a in pairs])
        return head


def action_probabilities(business_type: str, text: str, *, head: Head | None = None,
                         vector: np.ndarray | None = None) -> dict[str, float]:
    """Each action's probability for the normalised words ``text`` (``head``/``vector``: for evaluation)."""
    from assistant.guard.encoders import embed

    head = head or head_for(business_type)
    if vector is None:
        vector = np.asarray(embed([text]), dtype=np.float32)[0]
    row = head.probabilities(vector.reshape(1, -1))[0]
    return dict(zip(head.classes, (float(p) for p in row), strict=True))


def embedding_match(request: Request, *, probabilities: dict[str, float], threshold: float) -> Match | None:
    """The head's action when it is at least ``threshold`` sure and the words fit it; else None."""
    from assistant.grounding import ground
    from assistant.matcher.core import Match, fits
    from assistant.modes.router.actions import Decision

    action, confidence = max(probabilities.items(), key=lambda kv: kv[1])
    if confidence < threshold:
        return None
    grounding = ground(request.words.text, catalog=request.catalog, lexicon=request.lexicon,
                       last_product=request.last_product or None)
    if not fits(action, request.words, grounding):
        return None
    return Match(decision=Decision(action=action), confidence=confidence, source="embedding")
