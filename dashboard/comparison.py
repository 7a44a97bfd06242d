"""The three-mode comparison of seed 000's paper, from stored benchmark runs of one suite.

For each mode (and native variant) it takes the latest finished full runs of the suite (``last``
of each, or the runs named), and reports what the paper reports: the pass rate over every
turn of those runs with its 95% Wilson interval and each run's score, the pass rate per category,
turn latency (median, p90), model-call durations per role (median and p90 per call), model calls
and tokens per turn, and a failure taxonomy: each failed turn counted once under every kind of
check it failed (so the kinds of one mode can add up to more than its failed turns). Modes are
also compared pairwise with exact McNemar tests on the turns both ran (the k-th run of one mode
against the k-th of the other, turn by turn).

It only reads ``BenchmarkRun``/``BenchmarkTurn`` (written by ``manage.py bench``); the
``/ops/metrics/compare/`` page and ``manage.py compare_modes`` (Markdown and PNG charts, in the
lab) both render ``comparison_build``'s result.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from statistics import mean
from typing import Any

from assistant.models import BenchmarkRun, BenchmarkTurn
from shelfwise.stats import mcnemar_exact, percentile, wilson

MODES = ("router", "native", "small")
MAX_RUNS = 20  # per column
# The kinds of failure, by the check that failed (``lab.bench.checks``), in the order they are shown.
TAXONOMY: dict[str, tuple[str, ...]] = {
    "action or tool": ("action", "tools", "tools_not"),
    "arguments": ("args", "product"),
    "books": ("ledger_unchanged", "orders_added", "stock_after", "pending_draft"),
    "facts said": ("reply_stock_of", "reply_price_of", "reply_sales"),
    "reply words": ("reply_any", "reply_all", "reply_none"),
    "media": ("media",),
    "guard": ("guard",),
}
_KIND_OF = {check: kind for kind, checks in TAXONOMY.items() for check in checks}


class ComparisonError(ValueError):
    """The comparison cannot be built as asked (no such suite, no finished runs); the message says why."""


@dataclass(frozen=True)
class Rate:
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.passed, self.total)

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {"passed": self.passed, "total": self.total, "rate": self.rate, "ci95": [low, high]}


@dataclass
class Column:
    """One mode (and variant): its runs and every figure of the comparison."""

    label: str
    mode: str
    variant: str
    runs: list[dict[str, Any]]
    overall: Rate
    categories: dict[str, Rate]
    turn_ms: dict[str, float | None]
    roles: dict[str, dict[str, float | int | None]]
    per_turn: dict[str, float | int | None]
    failures: dict[str, int]
    failed_turns: int
    models: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["overall"] = self.overall.as_dict()
        data["categories"] = {name: rate.as_dict() for name, rate in self.categories.items()}
        return data


@dataclass
class Comparison:
    suite: str
    columns: list[Column]
    categories: list[str]
    pairs: list[dict[str, Any]]
    kinds: tuple[str, ...] = tuple(TAXONOMY)

    def as_dict(self) -> dict[str, Any]:
        return {"suite": self.suite, "columns": [column.as_dict() for column in self.columns],
                "categories": self.categories, "pairs": self.pairs, "kinds": list(self.kinds)}


def suites_with_runs() -> list[str]:
    """The suites that have finished runs, most recent first."""
    names = BenchmarkRun.objects.filter(status=BenchmarkRun.Status.DONE).order_by("-started_at", "-id") \
        .values_list("suite", flat=True)[:500]
    return list(dict.fromkeys(names))


def _full(run: BenchmarkRun) -> bool:
    """A run of the whole suite: not a smoke run (``--limit``) or one category (``--category``)."""
    settings = run.settings or {}
    return not settings.get("limit") and not settings.get("category")


def _selected(suite: str, *, last: int, run_ids: Sequence[int] | None) -> dict[tuple[str, str], list[BenchmarkRun]]:
    runs = BenchmarkRun.objects.filter(suite=suite, status=BenchmarkRun.Status.DONE)
    if run_ids:
        runs = runs.filter(pk__in=run_ids)
    chosen: dict[tuple[str, str], list[BenchmarkRun]] = defaultdict(list)
    for run in runs.order_by("-started_at", "-id")[:2000]:
        key = (run.mode, run.variant if run.mode == "native" else "")
        if (run_ids or _full(run)) and len(chosen[key]) < (MAX_RUNS if run_ids else last):
            chosen[key].append(run)
    return {key: list(reversed(found)) for key, found in chosen.items()}  # oldest first: run k pairs with run k


def _ms(values: list[float]) -> dict[str, float | None]:
    median, p90 = percentile(values, 50), percentile(values, 90)
    return {"median": None if median is None else round(median, 1), "p90": None if p90 is None else round(p90, 1),
            "n": len(values)}


def _column(mode: str, variant: str, runs: list[BenchmarkRun], turns: list[BenchmarkTurn]) -> Column:
    by_category: dict[str, list[bool]] = defaultdict(list)
    calls: dict[str, list[float]] = defaultdict(list)
    failures: Counter[str] = Counter()
    calls_per_turn, tokens = [], []
    for turn in turns:
        by_category[turn.category].append(turn.passed)
        made = turn.model_calls or []
        calls_per_turn.append(len(made))
        for call in made:
            calls[str(call.get("role", "?"))].append(float(call.get("ms") or 0))
        counted = [c for c in made if c.get("prompt_tokens") is not None or c.get("completion_tokens") is not None]
        if made and len(counted) == len(made):
            tokens.append(sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in made))
        if not turn.passed:
            failures.update({_KIND_OF.get(str(line).split(":", 1)[0], "other") for line in turn.failures or ["other"]})
    passed = {run.pk: sum(t.passed for t in turns if t.run_id == run.pk) for run in runs}
    return Column(
        label=f"{mode} ({variant})" if variant else mode, mode=mode, variant=variant,
        runs=[{"id": run.pk, "passed": passed[run.pk], "total": run.turns_total, "model": run.model,
               "started": run.started_at.isoformat()} for run in runs],
        overall=Rate(sum(t.passed for t in turns), len(turns)),
        categories={name: Rate(sum(results), len(results)) for name, results in sorted(by_category.items())},
        turn_ms=_ms([t.latency_ms for t in turns]),
        roles={role: _ms(values) for role, values in sorted(calls.items())},
        per_turn={"model_calls": round(mean(calls_per_turn), 2) if calls_per_turn else None,
                  "tokens_mean": round(mean(tokens), 1) if tokens else None,
                  "tokens_median": percentile([float(t) for t in tokens], 50) if tokens else None,
                  "turns_with_tokens": len(tokens)},
        failures={kind: failures[kind] for kind in (*TAXONOMY, "other") if failures[kind]},
        failed_turns=sum(not t.passed for t in turns),
        models=sorted({run.model for run in runs if run.model}),
    )


def _pairs(columns: list[Column], outcomes: dict[str, dict[tuple[int, int], bool]]) -> list[dict[str, Any]]:
    pairs = []
    for first, second in combinations(columns, 2):
        a, b = outcomes[first.label], outcomes[second.label]
        shared = sorted(set(a) & set(b))
        only_a = sum(a[key] and not b[key] for key in shared)
        only_b = sum(b[key] and not a[key] for key in shared)
        pairs.append({"a": first.label, "b": second.label, "pairs": len(shared), "only_a": only_a, "only_b": only_b,
                      "p": mcnemar_exact(only_a, only_b) if shared else None})
    return pairs


def comparison_build(*, suite: str, last: int = 3, run_ids: Sequence[int] | None = None) -> Comparison:
    """The comparison of every mode's latest ``last`` full runs of ``suite`` (or of the runs in ``run_ids``).

    Raises:
        ComparisonError: ``last`` is out of range, or the suite has no finished run to compare.
    """
    if not 1 <= last <= MAX_RUNS:
        raise ComparisonError(f"Compare the last 1 to {MAX_RUNS} runs of each mode.")
    selected = _selected(suite, last=last, run_ids=run_ids)
    if not selected:
        raise ComparisonError(f"No finished full run of the suite {suite!r} to compare: run manage.py bench first.")
    order = {mode: number for number, mode in enumerate(MODES)}
    columns, outcomes, categories = [], {}, set()
    for (mode, variant), runs in sorted(selected.items(), key=lambda item: (order.get(item[0][0], 9), item[0])):
        turns = list(BenchmarkTurn.objects.filter(run__in=runs).order_by("run_id", "index"))
        column = _column(mode, variant, runs, turns)
        position = {run.pk: number for number, run in enumerate(runs)}
        outcomes[column.label] = {(position[t.run_id], t.index): t.passed for t in turns}
        categories |= set(column.categories)
        columns.append(column)
    return Comparison(suite=suite, columns=columns, categories=sorted(categories), pairs=_pairs(columns, outcomes))
