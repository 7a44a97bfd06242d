"""Teaching the fast path, measured (``manage.py matcher_eval --taught``).

An owner teaches the matcher phrases from the store's history (``assistant.matcher.taught``). How
far a taught phrase reaches, and whether it is ever wrong there, is measured by teaching every
sentence of one set (as if the owner had approved each with its gold action) and asking the taught
layer alone about every sentence of another set: at each similarity threshold, the share of
requests it answers and the share of those answers with the gold action. The threshold is chosen
on the two development sets, taught one way and then the other; the held-out routing set is then
scored once, with both development sets taught.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.grounding import ground
from assistant.matcher.classifier import embed_cached
from assistant.matcher.core import Request, stable
from assistant.matcher.taught import TaughtSet, taught_match
from assistant.matcher.training import head_text
from assistant.normalize import normalize
from lab.bench.routing import RoutingItem

THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.70, 0.9951, 0.01))


@dataclass(frozen=True)
class TaughtScore:
    """One request: the nearest taught phrase's similarity and action, if the words fit that action."""

    item: RoutingItem
    similarity: float
    action: str | None  # None: the nearest phrase's action does not fit these words (never answered)

    @property
    def right(self) -> bool:
        return self.action == self.item.action


def teach_items(items: Sequence[RoutingItem], *, catalog: Any, lexicon: Any) -> TaughtSet:
    """The taught phrases an owner would make of ``items``, each with its gold action."""
    texts = [head_text(w.text, ground(w.text, catalog=catalog, lexicon=lexicon))
             for w in (normalize(item.say, lexicon) for item in items)]
    return TaughtSet(texts=tuple(texts), actions=tuple(item.action for item in items), vectors=embed_cached(texts))


def taught_scores(taught: TaughtSet, items: Sequence[RoutingItem], *, business_type: str, catalog: Any,
                  lexicon: Any) -> list[TaughtScore]:
    """What the taught layer alone would answer for each item, at any similarity."""
    requests = [Request(business_type=business_type, words=normalize(item.say, lexicon), catalog=catalog,
                        lexicon=lexicon, taught=taught) for item in items]
    groundings = [ground(r.words.text, catalog=catalog, lexicon=lexicon) for r in requests]
    vectors = embed_cached([head_text(r.words.text, g) for r, g in zip(requests, groundings, strict=True)])
    scores = []
    for item, request, grounding, vector in zip(items, requests, groundings, vectors, strict=True):
        nearest = taught.nearest(vector)
        found = taught_match(request, taught=taught, vector=vector, grounding=grounding, similarity=-1.0)
        action = found.decision.action if found is not None and stable(request, found) else None
        scores.append(TaughtScore(item=item, similarity=nearest[1] if nearest else 0.0, action=action))
    return scores


def taught_curve(scores: Sequence[TaughtScore], thresholds: Sequence[float] = THRESHOLDS
                 ) -> list[tuple[float, int, int]]:
    """(threshold, answered, right) at each similarity threshold."""
    points = []
    for t in thresholds:
        answered = [s for s in scores if s.action is not None and s.similarity >= t]
        points.append((t, len(answered), sum(s.right for s in answered)))
    return points


def lowest_exact(*curves: Sequence[tuple[float, int, int]]) -> float | None:
    """The lowest threshold from which every higher one is right on every answer of every curve."""
    chosen = None
    for index in range(len(curves[0]) - 1, -1, -1):
        if any(answered != right for curve in curves for _, answered, right in curve[index:index + 1]):
            break
        chosen = curves[0][index][0]
    return chosen
