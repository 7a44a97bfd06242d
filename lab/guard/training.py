"""Training the classifier layer and choosing the guard's thresholds, on guard_train only.

``guard_train`` embeds the training set, fits the regression (fixed seed), and picks the
classifier's confident band from 5-fold out-of-fold scores. Where the judge's answers on the
training set are saved (``guard_eval --set …/guard_train.json --layers llm --save-verdicts``),
the band is chosen together with them: the cheapest band whose errors, with the LLM deciding
inside it, are fewest, where each LLM call costs ``LLM_CALL_COST`` of an error and a blocked
owner-data request costs ``OWNER_DATA_FP_COST``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.guard.dataset import GuardItem

LLM_CALL_COST = 0.05  # one error is worth twenty LLM calls (1-3 s each on a laptop CPU)
OWNER_DATA_FP_COST = (
    5.0  # refusing the owner their own books is the error owners notice most
)
# A blocked owner sentence in the judge-aware band (``band_judged``): chosen on the dev sets, where at 5
# the band let the judge refuse one more owner sentence to catch ten more unsafe requests.
OWNER_SPEECH_FP_COST = 10.0
GRID = tuple(round(x, 3) for x in np.arange(0.02, 0.99, 0.01))
INJECTION_GRID = (0.99, 0.995, 0.999, 0.9995, 0.9999)
REPLY_GRID = (0.9, 0.95, 0.98, 0.99)
JUDGE_VERDICTS = Path(__file__).resolve().parents[2] / "assistant" / "guard" / "weights" / "judge_train.json"


@dataclass(frozen=True)
class BandChoice:
    safe_below: float
    unsafe_above: float
    errors: float  # weighted errors on the training set (out of fold)
    llm_calls: int
    llm_missing: int  # band items without a saved judge answer (counted as the classifier's call)


def _item_cost(item: GuardItem, predicted_unsafe: bool) -> float:
    if predicted_unsafe == item.unsafe:
        return 0.0
    return OWNER_DATA_FP_COST if item.category == "owner_data" else 1.0


def band_choose(
    items: Sequence[GuardItem],
    scores: np.ndarray,
    verdicts: Mapping[str, bool] | None = None,
) -> BandChoice:
    """The band (safe_below, unsafe_above) with the lowest cost on out-of-fold ``scores``.

    Without judge ``verdicts`` the LLM is assumed to do no better than the classifier at 0.5 and
    the band only buys certainty: it is then the widest band whose confident sides each hold at
    most one percent of the other class.
    """
    if not verdicts:
        unsafe_scores = np.sort([s for s, i in zip(scores, items, strict=True) if i.unsafe])
        safe_scores = np.sort([s for s, i in zip(scores, items, strict=True) if not i.unsafe])
        low = float(unsafe_scores[int(len(unsafe_scores) * 0.01)])
        high = float(safe_scores[-1 - int(len(safe_scores) * 0.01)])
        low, high = min(low, 0.5), max(high, 0.5)
        inside = int(((scores > low) & (scores < high)).sum())
        return BandChoice(low, high, float("nan"), inside, inside)

    confident = np.array([[_item_cost(i, False), _item_cost(i, True)] for i in items])
    judged = np.array(
        [
            _item_cost(i, verdicts[i.id])
            if i.id in verdicts
            else _item_cost(i, s >= 0.5)
            for i, s in zip(items, scores, strict=True)
        ]
    )
    missing = np.array([i.id not in verdicts for i in items])
    best: BandChoice | None = None
    for low in GRID:
        for high in GRID:
            if high <= low:
                continue
            safe_side, unsafe_side = scores <= low, scores >= high
            band = ~safe_side & ~unsafe_side
            errors = (
                confident[safe_side, 0].sum()
                + confident[unsafe_side, 1].sum()
                + judged[band].sum()
            )
            calls = int(band.sum())
            cost = errors + LLM_CALL_COST * calls
            if (
                best is None
                or cost < best.errors + LLM_CALL_COST * best.llm_calls - 1e-9
            ):
                best = BandChoice(
                    low, high, float(errors), calls, int((band & missing).sum())
                )
    assert best is not None
    return best


def band_calibrate(
    items: Sequence[GuardItem], scores: np.ndarray, *, miss_share: float = 0.01, max_llm_share: float | None = None,
) -> BandChoice:
    """The band from development scores: zero false positives on owner speech first, then recall.

    Without ``max_llm_share``: ``unsafe_above`` is the first grid value above every safe
    request's score (the classifier alone then blocks no safe dev request); ``safe_below`` the
    highest grid value under which at most ``miss_share`` of the unsafe requests fall.

    With it: of the bands that block no owner speech and send at most that share of the requests
    to the LLM, the one with the fewest confident errors (safe blocked above it, unsafe passed
    below it), the narrower on a tie; the LLM is counted right inside the band. ``errors``
    counts those confident errors. Falls back to the first rule when no band fits the share.
    """
    if max_llm_share is not None:
        chosen = _band_capped(items, scores, max_llm_share)
        if chosen is not None:
            return chosen
    safe = np.array([s for s, i in zip(scores, items, strict=True) if not i.unsafe])
    unsafe = np.sort([s for s, i in zip(scores, items, strict=True) if i.unsafe])
    high = next((g for g in GRID if g > safe.max(initial=0.0)), 0.99)
    allowed = int(len(unsafe) * miss_share)
    low = max([g for g in GRID if g < high and (unsafe <= g).sum() <= allowed], default=GRID[0])
    inside = int(((scores > low) & (scores < high)).sum())
    return BandChoice(low, high, float((unsafe <= low).sum()), inside, inside)


def _band_capped(items: Sequence[GuardItem], scores: np.ndarray, max_llm_share: float) -> BandChoice | None:
    unsafe = np.array([i.unsafe for i in items])
    owner = np.array([i.owner_speech for i in items])
    top_owner = float(scores[owner].max(initial=0.0))
    best: tuple[float, int, float, float] | None = None
    for high in (g for g in GRID if g > top_owner):
        for low in (g for g in GRID if g < high):
            band = (scores > low) & (scores < high)
            if band.sum() > max_llm_share * len(items):
                continue
            errors = float(((scores >= high) & ~unsafe).sum() + ((scores <= low) & unsafe).sum())
            key = (errors, int(band.sum()), low, high)
            if best is None or key[:2] < best[:2]:
                best = key
    if best is None:
        return None
    errors, calls, low, high = best
    return BandChoice(low, high, errors, calls, calls)


def band_judged(
    items: Sequence[GuardItem], scores: np.ndarray, verdicts: Mapping[str, bool], *, max_llm_share: float,
    owner_fp_cost: float = OWNER_SPEECH_FP_COST,
) -> BandChoice:
    """The band from development scores and the judge's own answers on the same requests.

    ``band_calibrate`` counts the judge right inside the band; here each request in the band is
    decided by what the judge answered on it (``verdicts``: item id -> unsafe). Of the bands that
    send at most ``max_llm_share`` of the requests to the judge and hold no request without an
    answer, the cheapest: a blocked owner sentence (by the classifier above the band or the judge
    inside it) costs ``owner_fp_cost`` errors, any other wrong decision one; fewer judge calls on a
    tie. Owner speech strictly first would be no calibration: with a judge that refuses owner
    speech, the only band without an owner false positive passes nearly every unsafe request.
    ``errors`` counts every wrong decision, owner speech once.
    """
    unsafe = np.array([i.unsafe for i in items])
    owner = np.array([i.owner_speech for i in items])
    answered = np.array([i.id in verdicts for i in items])
    judged = np.array([verdicts.get(i.id, False) for i in items])
    best: tuple[float, int, float, float, float] | None = None
    for high in GRID:
        for low in (g for g in GRID if g < high):
            band = (scores > low) & (scores < high)
            if band.sum() > max_llm_share * len(items) or (band & ~answered).any():
                continue
            blocked = (scores >= high) | (band & judged)
            errors = float((blocked != unsafe).sum())
            cost = errors + (owner_fp_cost - 1) * float((blocked & owner).sum())
            if best is None or (cost, int(band.sum())) < best[:2]:
                best = (cost, int(band.sum()), low, high, errors)
    if best is None:
        raise ValueError("No band fits: the judge answered none of the requests near the classifier's boundary.")
    _, calls, low, high, errors = best
    return BandChoice(low, high, errors, calls, 0)


def injection_threshold(safe_scores: Sequence[float]) -> float:
    """The lowest NanoGuard threshold that no safe development request reaches (1.0: never block)."""
    top = max(safe_scores, default=0.0)
    for threshold in INJECTION_GRID:
        if threshold > top:
            return threshold
    return 1.0


def reply_threshold(safe_reply_scores: Sequence[float]) -> float:
    """The lowest classifier threshold for replies that no safe training reply reaches (out of fold)."""
    top = max(safe_reply_scores, default=0.0)
    for threshold in REPLY_GRID:
        if threshold > top:
            return threshold
    return 1.0


def verdicts_load(path: Path) -> dict[str, bool]:
    """Saved judge answers on the training set: ``{item id: "safe" | "unsafe"}``."""
    data = json.loads(path.read_text())
    return {
        str(key): value == "unsafe" for key, value in data.get("verdicts", data).items()
    }
