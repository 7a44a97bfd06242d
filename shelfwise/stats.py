"""Small, honest statistics for small samples: Wilson intervals and percentiles (seed 001)."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # two-sided 95%


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``passed`` of ``total`` (0..1); (0, 1) when there is no trial.

    Unlike the normal approximation it stays inside 0..1 and is sensible at 29/30 or 30/30.
    """
    if total <= 0:
        return 0.0, 1.0
    if not 0 <= passed <= total:
        raise ValueError(f"passed must be between 0 and {total}, not {passed}.")
    p = passed / total
    z2 = z * z
    denominator = 1 + z2 / total
    centre = (p + z2 / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) by linear interpolation between closest ranks; None when empty.

    The same definition as numpy's default, so p50 of an even count is the mean of the middle two.
    """
    if not values:
        return None
    if not 0 <= q <= 100:
        raise ValueError("q must be between 0 and 100.")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def rate_text(passed: int, total: int) -> str:
    """ "29/30 = 96.7% (95% CI 83.3%–99.4%)" """
    if total == 0:
        return "0/0 (no turns)"
    low, high = wilson(passed, total)
    return f"{passed}/{total} = {100 * passed / total:.1f}% (95% CI {100 * low:.1f}%–{100 * high:.1f}%)"


def binomial_two_sided(k: int, n: int) -> float:
    """The exact two-sided p-value of ``k`` successes in ``n`` fair-coin trials (p = 0.5).

    With p = 0.5 the distribution is symmetric, so the two-sided value (the probability of an
    outcome no likelier than the one seen) is twice the smaller tail, capped at 1; the same
    figure as ``scipy.stats.binomtest(k, n, 0.5).pvalue``, by exact integer arithmetic.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"k must be between 0 and n (k={k}, n={n}).")
    if n == 0:
        return 1.0
    tail = min(k, n - k)
    below = sum(math.comb(n, i) for i in range(tail + 1))
    return min(1.0, 2 * below / 2**n)


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """The exact McNemar test's two-sided p-value for paired outcomes (seed 001).

    ``only_first``: pairs that succeed under the first condition only; ``only_second``: under the
    second only. Concordant pairs carry no information; under the null hypothesis each discordant
    pair is a fair coin, so the p-value is the exact binomial test of ``only_first`` of their sum.
    1.0 when there is no discordant pair.
    """
    if only_first < 0 or only_second < 0:
        raise ValueError("Discordant counts cannot be negative.")
    return binomial_two_sided(only_first, only_first + only_second)
