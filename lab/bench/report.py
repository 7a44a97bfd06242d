"""Figures and tables for benchmark runs and the routing set, as printed by the commands.

Latency is the wall-clock time of a whole turn as its caller saw it (guard, tools and model
calls included); the per-stage split and the model-call durations (from the audit) say where
it went. Percentiles interpolate linearly between ranks (``stats.percentile``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from shelfwise.stats import percentile, rate_text, wilson


class TurnRow(Protocol):  # a BenchmarkTurn, or anything shaped like one
    index: int
    category: str
    say: str
    passed: bool
    failures: list[str]
    latency_ms: float
    stages: dict[str, float]
    model_calls: list[dict[str, Any]]


@dataclass(frozen=True)
class Timing:
    median_ms: float | None
    p90_ms: float | None
    count: int


def _timing(values: Sequence[float]) -> Timing:
    return Timing(median_ms=_round(percentile(values, 50)), p90_ms=_round(percentile(values, 90)), count=len(values))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


@dataclass
class RunStats:
    passed: int
    total: int
    ci_low: float
    ci_high: float
    median_ms: float | None
    p90_ms: float | None
    by_category: dict[str, tuple[int, int]] = field(default_factory=dict)  # category -> (passed, total)
    stages: dict[str, Timing] = field(default_factory=dict)  # median ms per stage, over the turns that ran it
    model_roles: dict[str, Timing] = field(default_factory=dict)  # per call, by role

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rate"] = round(self.rate, 4)
        return data


def run_stats(turns: Sequence[TurnRow]) -> RunStats:
    """Pass count with a Wilson interval, latency, and the per-category, per-stage and per-role splits."""
    passed = sum(bool(t.passed) for t in turns)
    low, high = wilson(passed, len(turns))
    latency = _timing([t.latency_ms for t in turns])
    categories: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    stages: dict[str, list[float]] = defaultdict(list)
    roles: dict[str, list[float]] = defaultdict(list)
    for t in turns:
        categories[t.category][0] += bool(t.passed)
        categories[t.category][1] += 1
        for stage, ms in (t.stages or {}).items():
            stages[stage].append(ms)
        for call in t.model_calls or []:
            roles[call.get("role", "?")].append(call.get("ms", 0.0))
    return RunStats(
        passed=passed, total=len(turns), ci_low=round(low, 4), ci_high=round(high, 4),
        median_ms=latency.median_ms, p90_ms=latency.p90_ms,
        by_category={name: (ok, n) for name, (ok, n) in categories.items()},
        stages={name: _timing(values) for name, values in stages.items()},
        model_roles={name: _timing(values) for name, values in sorted(roles.items())},
    )


@dataclass
class RunsStats:
    per_run: list[tuple[int, int]]  # (passed, total) for each run
    pooled: RunStats
    flaky: list[int]  # turn indexes whose pass/fail differed between runs
    always_failed: list[int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "per_run": [{"passed": p, "total": n} for p, n in self.per_run],
            "pooled": self.pooled.as_dict(),
            "flaky_turns": self.flaky,
            "failed_every_run": self.always_failed,
        }


def runs_stats(runs: Sequence[Sequence[TurnRow]]) -> RunsStats:
    """Each run's pass count, the pooled figures, and which turns varied or always failed."""
    outcomes: dict[int, set[bool]] = defaultdict(set)
    for turns in runs:
        for t in turns:
            outcomes[t.index].add(bool(t.passed))
    return RunsStats(
        per_run=[(sum(bool(t.passed) for t in turns), len(turns)) for turns in runs],
        pooled=run_stats([t for turns in runs for t in turns]),
        flaky=sorted(index for index, seen in outcomes.items() if len(seen) > 1),
        always_failed=sorted(index for index, seen in outcomes.items() if seen == {False}),
    )


# ---------------------------------------------------------------------------------------------
# Text


def _s(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def turn_table(turns: Sequence[TurnRow], *, width: int = 120) -> str:
    """A row per turn (index, category, pass/fail, latency), its failed checks one per line."""
    lines = [f"{'#':>3}  {'category':<15} {'result':<6} {'latency':>8}  failed checks"]
    indent = " " * 38
    for t in turns:
        failures = [_clip(failure, width - len(indent)) for failure in t.failures or []] or [""]
        lines.append(
            f"{t.index:>3}  {_clip(t.category, 15):<15} {'pass' if t.passed else 'FAIL':<6} {_s(t.latency_ms):>8}  "
            + failures[0]
        )
        lines += [indent + failure for failure in failures[1:]]
    return "\n".join(line.rstrip() for line in lines)


def stats_text(stats: RunStats) -> str:
    lines = [
        f"Passed: {rate_text(stats.passed, stats.total)}",
        f"Turn latency (wall clock, n={stats.total}): median {_s(stats.median_ms)}, p90 {_s(stats.p90_ms)}",
    ]
    if stats.by_category:
        lines.append("By category: " + ", ".join(f"{name} {ok}/{n}" for name, (ok, n) in stats.by_category.items()))
    if stats.stages:
        lines.append(
            "Per stage (median ms over the turns that ran it): "
            + ", ".join(f"{name} {timing.median_ms:.0f} (n={timing.count})" for name, timing in stats.stages.items())
        )
    if stats.model_roles:
        lines.append(
            "Model calls from the audit (median / p90 ms per call): "
            + ", ".join(
                f"{role} {timing.median_ms:.0f} / {timing.p90_ms:.0f} (n={timing.count})"
                for role, timing in stats.model_roles.items()
            )
        )
    else:
        lines.append("Model calls from the audit: none")
    return "\n".join(lines)


def runs_text(summary: RunsStats) -> str:
    pooled = summary.pooled
    lines = [
        "Runs: " + ", ".join(f"run {i} {p}/{n}" for i, (p, n) in enumerate(summary.per_run, start=1)),
        f"Overall: {rate_text(pooled.passed, pooled.total)}",
        (
            "  (the same turns repeat in every run, so the pooled interval is narrower than the evidence;"
            " read each run's interval for one session)"
        ),
        f"Turn latency over all runs (n={pooled.total}): median {_s(pooled.median_ms)}, p90 {_s(pooled.p90_ms)}",
        "Turns that varied between runs: " + (", ".join(f"#{i}" for i in summary.flaky) or "none"),
        "Turns that failed in every run: " + (", ".join(f"#{i}" for i in summary.always_failed) or "none"),
    ]
    return "\n".join(lines)


def routing_text(summary: Any, *, list_misses: bool = True) -> str:
    """Per-action accuracy, the confusion of the misses, drops to chat, latency and the misses."""
    s = summary
    lines = [f"{'action':<15} {'n':>4}  {'action':>14}  {'action+item':>14}"]
    for name, tally in s.per_action.items():
        lines.append(
            f"{name:<15} {tally.total:>4}  {tally.action_ok:>4} {100 * tally.action_ok / tally.total:>6.1f}%   "
            f"{tally.item_ok:>4} {100 * tally.item_ok / tally.total:>6.1f}%"
        )
    lines += [
        f"Action:      {rate_text(s.action_ok, s.total)}",
        f"Action+item: {rate_text(s.item_ok, s.total)}",
        (
            "Action requests dropped to chat (gold action not general, routed to general): "
            f"{s.dropped_to_chat} of {s.action_requests}"
        ),
    ]
    if s.numbers_total:
        lines.append(f"Spoken counts/quantities read (update_count, draft_restock): {s.numbers_ok}/{s.numbers_total}")
    if getattr(s, "periods_total", 0):
        lines.append(f"Periods found in the words as the gold (sales_period; any action): {s.periods_ok}/{s.periods_total}")
    lines.append(
        f"Latency per utterance (wall clock, n={s.total}): median {_s(s.median_ms)}, p90 {_s(s.p90_ms)}"
        + (f"; router model call median {s.median_model_ms:.0f} ms" if s.median_model_ms is not None else "")
    )
    if s.matched:
        lines += [
            f"Decided by the fast-path matcher: {rate_text(s.matched, s.total)}; the rest by the router model",
            f"  the matcher's precision, action:      {rate_text(s.matched_action_ok, s.matched)}",
            f"  the matcher's precision, action+item: {rate_text(s.matched_item_ok, s.matched)}",
            f"  median per utterance: matcher {_s(s.matched_median_ms)}, model {_s(s.model_median_ms)}",
        ]
        if s.matcher_confusion:
            lines.append("  the matcher's wrong answers (gold -> matcher: count):")
            lines += [f"    {gold} -> {predicted}: {count}" for (gold, predicted), count in s.matcher_confusion]
    if s.confusion:
        lines.append("Confusion of the action misses (gold -> predicted: count):")
        lines += [f"  {gold} -> {predicted}: {count}" for (gold, predicted), count in s.confusion]
    if list_misses and s.misses:
        lines.append(f"Misses ({len(s.misses)}):")
        for score in s.misses:
            gold = score.item.action + (f" [{_gold_words(score.item)}]" if _gold_words(score.item) else "")
            lines.append(
                f"  {score.item.id:<7} {_clip(score.item.say, 48):<48} gold {gold}; got {score.predicted}"
                f" [{score.grounded}]" + (" (matcher)" if score.decided_by == "matcher" else "")
                + (f"; period {score.item.period}" + (f" vs {score.item.compare}" if score.item.compare else "")
                   + f", found {score.period_said}" if score.period_ok is False else "")
            )
    return "\n".join(lines)


def _gold_words(item: Any) -> str:
    if item.not_carried:
        return f"not carried {item.not_carried!r}"
    if item.item:
        return item.item
    if item.items:
        return ", ".join(str(entry.get("item")) for entry in item.items)
    if item.group:
        return f"group {item.group}"
    return ""
