"""Measuring the matcher alone (no router model): coverage, precision, the threshold's curve.

The development set is scored by 10-fold cross-validation of the embedding head (the head that
judges an utterance never saw it; the pack's examples are always in training); the templates
were written from the same set, so their part of the development figure is in-sample. Any other
set (the held-out routing set) is scored with the head fitted on the pack's examples and the whole
development set, exactly as it serves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.grounding import ground
from assistant.matcher import classifier
from assistant.matcher.core import Match, Request, match_request
from assistant.normalize import normalize
from lab.bench.routing import RoutingItem, item_matches

FOLDS = 10


@dataclass(frozen=True)
class MatcherScore:
    """One utterance: what the matcher answered (None: left to the model) and whether it was right."""

    item: RoutingItem
    match: Match | None
    action: str | None  # after the router's code-side corrections
    action_ok: bool
    item_ok: bool

    @property
    def confidence(self) -> float:
        return self.match.confidence if self.match is not None else 0.0

    def answered(self, threshold: float, weak_threshold: float = 0.0) -> bool:
        """Whether the matcher answers at these thresholds (templates always do; a weak answer needs both)."""
        if self.match is None or self.match.source != "embedding":
            return self.match is not None
        return self.match.confidence >= (max(threshold, weak_threshold) if self.match.weak else threshold)


def _score(item: RoutingItem, request: Request, *, head: Any, vector: np.ndarray) -> MatcherScore:
    """The matcher's candidate at any confidence (``answered`` says whether the pack's threshold lets it through)."""
    from assistant.modes.router.mode import refine

    found = match_request(request, head=head, vector=vector, threshold=0.0, weak_threshold=0.0)
    if found is None:
        return MatcherScore(item=item, match=None, action=None, action_ok=False, item_ok=False)
    grounding = ground(request.words.text, catalog=request.catalog, lexicon=request.lexicon, hint=found.decision.item)
    decision, grounding = refine(found.decision, request.words, grounding)
    action_ok = decision.action == item.action
    return MatcherScore(item=item, match=found, action=decision.action, action_ok=action_ok,
                        item_ok=action_ok and item_matches(item, grounding))


def score_set(items: Sequence[RoutingItem], *, business_type: str, catalog: Any, lexicon: Any,
              cross_validate: bool = False, taught: Any = None) -> list[MatcherScore]:
    """Score every item; with ``cross_validate`` each development item is judged by a head fitted without it.

    ``taught``: a ``TaughtSet`` the store's owner would have taught (``lab.taught_eval``).
    """
    from assistant.matcher.training import head_text

    examples = classifier.training_examples(business_type)
    requests = [Request(business_type=business_type, words=normalize(item.say, lexicon), catalog=catalog, lexicon=lexicon,
                        taught=taught) for item in items]
    texts = [head_text(r.words.text, ground(r.words.text, catalog=catalog, lexicon=lexicon)) for r in requests]
    vectors = classifier.embed_cached(texts)
    heads: list[Any] = [classifier.head_for(business_type)] * len(items)
    if cross_validate:
        train_vectors = classifier.embed_cached([e.text for e in examples])
        order = np.random.RandomState(0).permutation(len(items))
        for fold in np.array_split(order, FOLDS):
            held = {f"dev:{items[i].id}" for i in fold}
            keep = [j for j, e in enumerate(examples) if e.origin not in held]
            head = classifier.head_fit(train_vectors[keep], [examples[j].action for j in keep])
            for i in fold:
                heads[i] = head
    return [_score(item, request, head=head, vector=vector)
            for item, request, vector, head in zip(items, requests, vectors, heads, strict=True)]


@dataclass(frozen=True)
class MatcherSummary:
    threshold: float
    weak_threshold: float
    total: int
    answered: int
    action_ok: int
    item_ok: int
    by_source: dict[str, tuple[int, int]]  # source -> (answered, right)
    confusion: list[tuple[tuple[str, str], int]]  # (gold, matcher) of its wrong answers
    wrong: list[MatcherScore]


def summary(scores: Sequence[MatcherScore], threshold: float, weak_threshold: float = 0.0) -> MatcherSummary:
    answered = [s for s in scores if s.answered(threshold, weak_threshold)]
    by_source: dict[str, tuple[int, int]] = {}
    for s in answered:
        n, ok = by_source.get(s.match.source, (0, 0))  # type: ignore[union-attr]
        by_source[s.match.source] = (n + 1, ok + s.action_ok)  # type: ignore[union-attr]
    wrong = [s for s in answered if not s.action_ok]
    return MatcherSummary(
        threshold=threshold, weak_threshold=max(threshold, weak_threshold), total=len(scores), answered=len(answered),
        action_ok=sum(s.action_ok for s in answered), item_ok=sum(s.item_ok for s in answered),
        by_source=dict(sorted(by_source.items())),
        confusion=Counter((s.item.action, s.action or "") for s in wrong).most_common(), wrong=wrong,
    )


def curve(scores: Sequence[MatcherScore], thresholds: Sequence[float] | None = None,
          weak_threshold: float = 0.0) -> list[tuple[float, float, float]]:
    """(threshold, coverage, precision) for each threshold of the embedding head (weak answers also need ``weak_threshold``)."""
    thresholds = thresholds if thresholds is not None else [round(t, 2) for t in np.arange(0.3, 1.0001, 0.02)]
    points = []
    for t in thresholds:
        s = summary(scores, t, weak_threshold)
        points.append((t, s.answered / max(1, s.total), s.action_ok / s.answered if s.answered else 1.0))
    return points


def plot_curve(curves: dict[str, list[tuple[float, float, float]]], path: Any, *, chosen: float) -> None:
    """Coverage against precision as the threshold moves, one line per set, the chosen threshold marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for label, points in curves.items():
        ax.plot([c for _, c, _ in points], [p for _, _, p in points], marker=".", label=label)
        at = min(points, key=lambda point: abs(point[0] - chosen))
        ax.annotate(f"threshold {chosen:g}", (at[1], at[2]), textcoords="offset points", xytext=(6, -14), fontsize=8)
        ax.plot([at[1]], [at[2]], marker="o", color="black")
    ax.axhline(0.995, color="grey", linestyle="--", linewidth=0.8)
    ax.text(0.01, 0.9955, "99.5% precision", fontsize=8, color="grey", transform=ax.get_yaxis_transform())
    ax.set_xlabel("coverage (share of requests the matcher answers)")
    ax.set_ylabel("precision (its answers with the right action)")
    ax.set_title("Fast-path matcher: coverage vs precision over the embedding threshold")
    ax.legend(loc="lower left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
