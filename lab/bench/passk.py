"""pass^k (tau-bench, Yao et al. 2024): the chance that ALL k independent trials of a task succeed.

With n trials of a task and c of them passed, the unbiased estimator of pass^k is
C(c, k) / C(n, k) (drawing k of the n trials without replacement, the chance all k are passes);
a suite's pass^k is its mean over the tasks, and a category's the mean over its tasks. pass^1 is
the plain pass rate; pass^k falls with k as soon as a task passes only some of its trials, so it
tells "works every morning" from "works most mornings".

A task here is one turn of an owner-session suite (its trials are its runs, each on a fresh
store, the turn in its place in the conversation) or one utterance of the routing set (its trials
are repeated routings on one store). Trials are grouped by the turn's index; runs of one group
(``--group`` of ``manage.py bench``) may come from several invocations, so a long measurement can
be split into pieces.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

DEFAULT_K = 5


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k from ``c`` passes in ``n`` trials: C(c, k) / C(n, k).

    Raises:
        ValueError: k is not between 1 and n, or c is not between 0 and n.
    """
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of trials ({n}), not {k}.")
    if not 0 <= c <= n:
        raise ValueError(f"the passes must be between 0 and {n}, not {c}.")
    return comb(c, k) / comb(n, k)


@dataclass(frozen=True)
class Trial:
    """One trial of one task: the task's index in its suite, its category and words, and the verdict."""

    index: int
    category: str
    say: str
    passed: bool


@dataclass(frozen=True)
class TaskPassK:
    index: int
    category: str
    say: str
    n: int
    c: int
    values: tuple[float, ...]  # pass^1 .. pass^k


@dataclass(frozen=True)
class PassK:
    k: int
    trials: int  # trials per task (the smallest, where tasks differ)
    tasks: tuple[TaskPassK, ...]
    by_category: dict[str, tuple[int, tuple[float, ...]]]  # category -> (tasks, pass^1..pass^k)
    overall: tuple[float, ...]

    def as_dict(self) -> dict[str, Any]:
        def values(row: Sequence[float]) -> dict[str, float]:
            return {f"pass^{i}": round(value, 4) for i, value in enumerate(row, start=1)}

        return {
            "k": self.k, "trials_per_task": self.trials, "tasks": len(self.tasks),
            "overall": values(self.overall),
            "by_category": {name: {"tasks": count, **values(row)} for name, (count, row) in self.by_category.items()},
            "per_task": [
                {"index": t.index, "category": t.category, "say": t.say, "trials": t.n, "passed": t.c, **values(t.values)}
                for t in self.tasks
            ],
        }


class PassKError(ValueError):
    """The trials cannot give pass^k as asked (too few trials, or two tasks under one index)."""


def _mean(rows: Sequence[Sequence[float]]) -> tuple[float, ...]:
    return tuple(sum(column) / len(rows) for column in zip(*rows, strict=True))


def passk_table(trials: Iterable[Trial], *, k: int | None = None) -> PassK:
    """pass^1..pass^k per task, per category and overall (means over tasks) from every trial.

    ``k`` defaults to the number of trials per task (the smallest, where they differ).

    Raises:
        PassKError: no trials, a task has fewer than ``k`` trials, or one index holds two different tasks.
    """
    outcomes: dict[int, list[bool]] = defaultdict(list)
    tasks: dict[int, tuple[str, str]] = {}
    for trial in trials:
        known = tasks.setdefault(trial.index, (trial.category, trial.say))
        if known != (trial.category, trial.say):
            raise PassKError(f"Task #{trial.index} is {known[1]!r} in one trial and {trial.say!r} in another: "
                             "the runs are not of the same suite.")
        outcomes[trial.index].append(bool(trial.passed))
    if not outcomes:
        raise PassKError("No trials to compute pass^k from.")
    fewest = min(len(seen) for seen in outcomes.values())
    k = fewest if k is None else k
    if k < 1:
        raise PassKError("k must be at least 1.")
    if k > fewest:
        short = min(outcomes, key=lambda index: len(outcomes[index]))
        raise PassKError(f"pass^{k} needs at least {k} trials of every task; task #{short} has {fewest}.")
    rows = []
    for index in sorted(outcomes):
        seen = outcomes[index]
        n, c = len(seen), sum(seen)
        category, say = tasks[index]
        rows.append(TaskPassK(index=index, category=category, say=say, n=n, c=c,
                              values=tuple(pass_hat_k(n, c, j) for j in range(1, k + 1))))
    categories: dict[str, list[TaskPassK]] = defaultdict(list)
    for row in rows:
        categories[row.category].append(row)
    return PassK(
        k=k, trials=fewest, tasks=tuple(rows),
        by_category={name: (len(group), _mean([t.values for t in group])) for name, group in sorted(categories.items())},
        overall=_mean([row.values for row in rows]),
    )


def passk_text(table: PassK, *, what: str = "turn") -> str:
    """The overall and per-category pass^1..pass^k, then every task that did not pass all its trials."""
    header = "".join(f"{f'pass^{i}':>9}" for i in range(1, table.k + 1))
    lines = [
        f"pass^k over {table.trials} trials per {what} (tau-bench: the chance that all k trials pass, "
        f"C(c,k)/C(n,k) per {what}, averaged over {what}s)",
        f"{'':<24}{'n':>5}{header}",
        f"{'overall':<24}{len(table.tasks):>5}" + "".join(f"{value:>9.3f}" for value in table.overall),
    ]
    for name, (count, row) in table.by_category.items():
        lines.append(f"{name[:23]:<24}{count:>5}" + "".join(f"{value:>9.3f}" for value in row))
    unsteady = [t for t in table.tasks if t.c < t.n]
    if unsteady:
        lines.append(f"{what.capitalize()}s that failed at least one trial ({len(unsteady)}):")
        lines += [
            f"  #{t.index:<4} {t.category[:15]:<15} {t.c}/{t.n} passed  pass^{table.k} {t.values[-1]:.3f}  "
            + _clip(t.say, 50)
            for t in unsteady
        ]
    else:
        lines.append(f"Every {what} passed every trial.")
    return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def group_trials(group: str) -> list[Trial]:
    """Every trial stored under a ``--group`` label: the turns of its finished runs."""
    from assistant.models import BenchmarkRun, BenchmarkTurn

    rows = BenchmarkTurn.objects.filter(
        run__settings__passk_group=group, run__status=BenchmarkRun.Status.DONE
    ).values_list("index", "category", "say", "passed")
    return [Trial(index=index, category=category, say=say, passed=passed) for index, category, say, passed in rows]


def group_runs(group: str) -> list[Any]:
    from assistant.models import BenchmarkRun

    return list(BenchmarkRun.objects.filter(settings__passk_group=group, status=BenchmarkRun.Status.DONE)
                .order_by("started_at", "id"))


def latest_groups(*, k: int = DEFAULT_K) -> list[dict[str, Any]]:
    """For the metrics page: pass^1..pass^k of the latest stored group of each suite, in three queries."""
    from assistant.models import BenchmarkRun, BenchmarkTurn

    done = BenchmarkRun.objects.filter(status=BenchmarkRun.Status.DONE)
    latest: dict[str, str] = {}
    for suite, settings in (done.filter(settings__has_key="passk_group")
                            .order_by("-started_at", "-id").values_list("suite", "settings")[:200]):
        latest.setdefault(suite, str(settings.get("passk_group")))
    runs: dict[str, list[Any]] = defaultdict(list)
    for run in done.filter(settings__passk_group__in=list(latest.values())).order_by("started_at", "id"):
        runs[str(run.settings.get("passk_group"))].append(run)
    trials: dict[str, list[Trial]] = defaultdict(list)
    group_of = {run.pk: group for group, members in runs.items() for run in members}
    for run_id, index, category, say, passed in BenchmarkTurn.objects.filter(run_id__in=list(group_of)).values_list(
            "run_id", "index", "category", "say", "passed"):
        trials[group_of[run_id]].append(Trial(index=index, category=category, say=say, passed=passed))
    shown = []
    for suite, group in sorted(latest.items()):
        members = [run for run in runs[group] if run.suite == suite]
        try:
            fewest = passk_table(trials[group]).trials
            table = passk_table(trials[group], k=min(fewest, k))
        except PassKError:
            continue
        shown.append({
            "suite": suite, "group": group, "mode": members[0].mode if members else "", "runs": len(members),
            "finished": members[-1].finished_at if members else None, "table": table,
            "ks": list(range(1, table.k + 1)), "unsteady": [t for t in table.tasks if t.c < t.n][:30],
        })
    return shown
