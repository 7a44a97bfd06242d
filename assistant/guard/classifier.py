"""Layer (b): MiniLM embeddings and a logistic regression trained on guard_train.json.

Features are the unit MiniLM embedding of the request (or question) next to the embedding of
the reply (zeros for an input check), so a reply that claims a cure is judged with the question
that prompted it. The regression is multinomial over the set's categories (store request,
everyday, owner data, weapons, injection, health claim...): it separates "about the store"
from "about something else" far better than one safe/unsafe boundary, and names the category.
The unsafe score is the probability mass on the unsafe categories.

Training needs scikit-learn; running needs only numpy: the fitted weights are a small ``.npz``
(``python manage.py guard_train`` writes ``weights/classifier.npz``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .dataset import GuardItem
from .encoders import EMBEDDING_DIM, WEIGHTS_DIR, GuardModelError, embed, encoder_top_digest, guard_encoder

CLASSIFIER_WEIGHTS = WEIGHTS_DIR / "classifier.npz"

REGULARISATION = (
    0.03  # inverse L2 strength, chosen by 5-fold cross-validation on guard_train
)
SEED = 0


def features(texts: Sequence[str], replies: Sequence[str | None]) -> np.ndarray:
    """``[embedding(text), embedding(reply) or 0]`` per item, shape ``(n, 768)``."""
    questions = embed(texts, encoder=guard_encoder)
    answers = np.zeros_like(questions)
    with_reply = [i for i, reply in enumerate(replies) if reply]
    if with_reply:
        answers[with_reply] = embed([replies[i] for i in with_reply], encoder=guard_encoder)  # type: ignore[misc]
    return np.hstack([questions, answers])


DEFAULT_BUSINESS_TYPE = "grocery"


def item_features(items: Sequence[GuardItem]) -> np.ndarray:
    """Features of labelled items, read as the guard reads them: with their store's safe vocabulary."""
    from .vocabulary import safe_terms_mask

    kinds = [item.business_type or DEFAULT_BUSINESS_TYPE for item in items]
    return features(
        [safe_terms_mask(item.text, kind) for item, kind in zip(items, kinds, strict=True)],
        [safe_terms_mask(item.reply, kind) if item.reply else None for item, kind in zip(items, kinds, strict=True)],
    )


@dataclass(frozen=True)
class ClassifierWeights:
    """A fitted standardiser and multinomial logistic regression, and which classes are unsafe."""

    mean: np.ndarray  # (768,)
    scale: np.ndarray  # (768,)
    coef: np.ndarray  # (classes, 768)
    intercept: np.ndarray  # (classes,)
    classes: tuple[str, ...]
    unsafe: np.ndarray  # (classes,) bool
    meta: dict

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities for feature rows ``x``."""
        logits = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def unsafe_scores(self, x: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """The unsafe probability of each row and its most likely unsafe class."""
        probs = self.probabilities(x)
        unsafe_probs = np.where(self.unsafe, probs, -1.0)
        top = [self.classes[i] for i in unsafe_probs.argmax(axis=1)]
        return probs[:, self.unsafe].sum(axis=1), top

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path,
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            coef=self.coef.astype(np.float32),
            intercept=self.intercept.astype(np.float32),
            classes=np.array(self.classes),
            unsafe=self.unsafe,
            meta=np.array(json.dumps(self.meta, sort_keys=True)),
        )

    @classmethod
    def load(cls, path: Path) -> ClassifierWeights:
        """Read weights written by ``save``.

        Raises:
            GuardModelError: the file is missing or not classifier weights.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(
                    mean=data["mean"],
                    scale=data["scale"],
                    coef=data["coef"],
                    intercept=data["intercept"],
                    classes=tuple(str(c) for c in data["classes"]),
                    unsafe=data["unsafe"].astype(bool),
                    meta=json.loads(str(data["meta"])),
                )
        except (OSError, KeyError, ValueError) as exc:
            raise GuardModelError(
                f"The guard classifier weights at {path} cannot be read ({exc}). Run: python manage.py guard_train"
            ) from exc


def _regression(regularisation: float):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        StandardScaler(),
        LogisticRegression(C=regularisation, max_iter=5000, random_state=SEED),
    )


def classifier_fit(
    items: Sequence[GuardItem], x: np.ndarray, *, regularisation: float = REGULARISATION
) -> ClassifierWeights:
    """Fit the standardiser and regression on all ``items`` (features ``x``)."""
    labels = [item.category for item in items]
    unsafe_classes = {item.category for item in items if item.unsafe}
    if unsafe_classes & {item.category for item in items if not item.unsafe}:
        raise ValueError(
            "A category holds both safe and unsafe items; the classifier needs each category on one side."
        )
    model = _regression(regularisation).fit(x, labels)
    scaler, regression = model[0], model[1]
    classes = tuple(str(c) for c in regression.classes_)
    return ClassifierWeights(
        mean=scaler.mean_,
        scale=scaler.scale_,
        coef=regression.coef_,
        intercept=regression.intercept_,
        classes=classes,
        unsafe=np.array([c in unsafe_classes for c in classes]),
        meta={
            "items": len(items),
            "regularisation": regularisation,
            "features": f"minilm-{EMBEDDING_DIM}x2",
            "encoder": encoder_top_digest(),
        },
    )


def cross_val_scores(
    items: Sequence[GuardItem],
    x: np.ndarray,
    *,
    folds: int = 5,
    regularisation: float = REGULARISATION,
) -> np.ndarray:
    """Out-of-fold unsafe scores (stratified by category, fixed seed) for tuning the thresholds."""
    from sklearn.model_selection import StratifiedKFold

    labels = np.array([item.category for item in items])
    scores = np.zeros(len(items))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(
        x, labels
    ):
        weights = classifier_fit(
            [items[i] for i in train], x[train], regularisation=regularisation
        )
        scores[test] = weights.unsafe_scores(x[test])[0]
    return scores


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class ClassifierLayer:
    """Layer (b): the trained regression's probability that a request (or question + reply) is unsafe."""

    name = "classifier"

    def __init__(self, weights_path: Path = CLASSIFIER_WEIGHTS) -> None:
        self.weights_path = weights_path
        self._weights: ClassifierWeights | None = None

    @property
    def weights(self) -> ClassifierWeights:
        if self._weights is None:  # a race only loads the same small file twice
            weights = ClassifierWeights.load(self.weights_path)
            if weights.meta.get("encoder") != encoder_top_digest():
                raise GuardModelError(
                    f"The guard classifier at {self.weights_path} was fitted on other encoder layers than "
                    f"weights/encoder_top.safetensors. Run: python manage.py guard_train"
                )
            self._weights = weights
        return self._weights

    def judge(self, text: str, reply: str | None = None) -> tuple[float, str]:
        """The unsafe probability and the most likely unsafe category."""
        scores, categories = self.weights.unsafe_scores(features([text], [reply]))
        return float(scores[0]), categories[0]

    def score(self, text: str, reply: str | None = None) -> float:
        return self.judge(text, reply)[0]

    def score_many(
        self, texts: Sequence[str], replies: Sequence[str | None]
    ) -> tuple[np.ndarray, list[str]]:
        """Batch scores (evaluation)."""
        return self.weights.unsafe_scores(features(texts, replies))

    def warm_up(self) -> None:
        self.judge("hello")
