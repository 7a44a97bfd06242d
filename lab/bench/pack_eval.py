"""Evaluate one pack version: its owner-session suites in router mode, N runs each, and its routing set.

The same runner, stores and scorer as ``bench --suite`` and ``route_eval --set`` (so the figures
are theirs): each suite run on a fresh store of the pack's type pinned to the version (draft or
published) holding the catalog the suite names (its sample catalog through the catalog import, or
the demo catalog), each turn through the real pipeline; the routing set routed utterance by
utterance on one such store, as a turn routes it, no tool run. ``manage.py pack eval`` prints the
result and the vendor portal's job (``lab.tasks.pack_eval_task``) shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from lab.bench.packs import PackEvalError, pack_routing_set, pack_suites, sample_catalog_names
from lab.bench.report import run_stats, runs_stats
from lab.bench.routing import (
    RouteScore,
    RoutingSetError,
    RoutingSummary,
    routing_run,
    routing_set_parse,
    routing_set_store,
    routing_summary,
)
from lab.bench.runner import RunOutcome, pack_label, suite_run, warm_up
from lab.bench.stores import bench_store_create, bench_store_delete
from lab.bench.suite import Suite, SuiteError, suite_parse
from shelfwise.stats import wilson
from tenants.models import PackVersion

Progress = Callable[[int, int, str], None]  # (done, total, what is running)


@dataclass
class SuiteResult:
    suite: Suite
    outcomes: list[RunOutcome] = field(default_factory=list)


@dataclass
class PackEvaluation:
    pack: str
    runs: int
    fast_path: bool
    suites: list[SuiteResult]
    routing_set: str = ""
    routing_store: str = ""
    routing_scores: list[RouteScore] = field(default_factory=list)

    @property
    def routing(self) -> RoutingSummary | None:
        return routing_summary(self.routing_scores) if self.routing_scores else None


def pack_plan(version: PackVersion, *, limit: int | None = None) -> tuple[list[Suite], tuple[str, str, tuple]]:
    """The version's suites and its routing set (name, store, items), each cut to ``limit`` turns or utterances.

    Raises:
        PackEvalError: a suite or the routing set cannot be read (the message names the file).
    """
    names = sample_catalog_names(version)
    suites = []
    try:
        for file in pack_suites(version):
            suites.append(suite_parse(file.data, source=file.path, sample_catalog=names).limited(limit))
        routing = pack_routing_set(version)
        items = routing_set_parse(routing.data, name=routing.path) if routing else ()
        store = routing_set_store(routing.data, name=routing.path) if routing else "demo"
    except (SuiteError, RoutingSetError) as exc:
        raise PackEvalError(str(exc)) from exc
    if not suites and not items:
        raise PackEvalError("The pack names no evaluation suite and no routing set in its manifest.")
    return suites, (routing.path if routing else "", store, items[:limit] if limit else items)


def pack_evaluate(*, version: PackVersion, runs: int = 3, fast: bool | None = None, limit: int | None = None,
                  warm: bool = True, progress: Progress | None = None,
                  log: Callable[[str], None] = lambda line: None) -> PackEvaluation:
    """Run the version's suites ``runs`` times each in router mode and route its routing set once.

    ``fast``: the router's fast path on or off for both (None: as ``SHELFWISE_FAST_PATH`` says).
    ``progress(done, total, what)`` after every turn and utterance.

    Raises:
        PackEvalError: an evaluation file cannot be read.
        lab.bench.runner.BenchError: a model cannot be used.
    """
    from django.test import override_settings

    from assistant.matcher.route import fast_path_enabled

    suites, (set_name, set_store, items) = pack_plan(version, limit=limit)
    fast = fast_path_enabled() if fast is None else fast
    total = sum(len(suite.turns) for suite in suites) * runs + len(items)
    done = 0

    def tick(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, what)

    result = PackEvaluation(pack=pack_label(version), runs=runs, fast_path=fast,
                            suites=[SuiteResult(suite) for suite in suites], routing_set=set_name,
                            routing_store=set_store)
    with override_settings(SHELFWISE_FAST_PATH=fast) if fast != fast_path_enabled() else nullcontext():
        if warm:
            warm_up(mode="router", log=log)
        for entry in result.suites:
            for number in range(1, runs + 1):
                outcome = suite_run(
                    suite=entry.suite, mode="router", run_number=number, pack_version=version, progress=False,
                    on_turn=lambda turn, name=entry.suite.name: tick(name),
                    settings={"pack_eval": True, "fast_path": fast, "limit": limit, "repeat": runs},
                )
                entry.outcomes.append(outcome)
                log(f"{entry.suite.name} run {number}/{runs}: {outcome.run.turns_passed}/{len(outcome.turns)} passed")
        if items:
            store = bench_store_create(label="pack-eval-routing", pack_version=version, sample=set_store == "sample")
            try:
                result.routing_scores = routing_run(store=store, items=items, fast=fast, warm=warm,
                                                    on_score=lambda scores: tick(set_name))
            finally:
                bench_store_delete(store=store)
    return result


def evaluation_dict(result: PackEvaluation) -> dict[str, Any]:
    """The evaluation as JSON-serialisable figures: each suite's runs and failed turns, the routing set's accuracy."""
    suites = []
    for entry in result.suites:
        summary = runs_stats([outcome.turns for outcome in entry.outcomes])
        suites.append({
            "name": entry.suite.name, "turns": len(entry.suite.turns), "store": entry.suite.store,
            "runs": [{"run": outcome.run.pk, "passed": run_stats(outcome.turns).passed, "total": len(outcome.turns),
                      "failed": [{"index": turn.index, "say": turn.say, "failures": turn.failures,
                                  "reply": (turn.answer or {}).get("reply", ""),
                                  "action": (turn.answer or {}).get("action")}
                                 for turn in outcome.turns if not turn.passed]}
                     for outcome in entry.outcomes],
            "summary": summary.as_dict(),
        })
    routing = result.routing
    routing_dict = None
    if routing is not None:
        low, high = wilson(routing.action_ok, routing.total)
        item_low, item_high = wilson(routing.item_ok, routing.total)
        routing_dict = {
            "set": result.routing_set, "store": result.routing_store, "total": routing.total,
            "action_ok": routing.action_ok, "action_ci": [round(low, 4), round(high, 4)],
            "item_ok": routing.item_ok, "item_ci": [round(item_low, 4), round(item_high, 4)],
            "fast_path": result.fast_path, "matched": routing.matched, "matched_action_ok": routing.matched_action_ok,
            "dropped_to_chat": routing.dropped_to_chat, "median_ms": routing.median_ms,
            "per_action": {name: {"total": t.total, "action_ok": t.action_ok, "item_ok": t.item_ok}
                           for name, t in routing.per_action.items()},
            "misses": [{"id": s.item.id, "say": s.item.say, "gold": s.item.action, "predicted": s.predicted,
                        "grounded": s.grounded, "action_ok": s.action_ok, "decided_by": s.decided_by}
                       for s in routing.misses],
        }
    return {"pack": result.pack, "runs": result.runs, "fast_path": result.fast_path, "suites": suites,
            "routing": routing_dict}


def evaluation_text(result: PackEvaluation) -> str:
    """What ``pack eval`` prints: each run's pass rate and failed turns, the summary over runs, the routing set."""
    from lab.bench.report import routing_text, runs_text
    from shelfwise.stats import rate_text

    lines = [f"Pack {result.pack}: {result.runs} run(s) of each suite in router mode, "
             f"fast path {'on' if result.fast_path else 'off'}"]
    for entry in result.suites:
        lines += ["", f"== Suite {entry.suite.name} ({len(entry.suite.turns)} turns, {entry.suite.store} store) =="]
        for outcome in entry.outcomes:
            stats = run_stats(outcome.turns)
            lines.append(f"Run {outcome.run.run_number} (BenchmarkRun {outcome.run.pk}): "
                         f"{rate_text(stats.passed, stats.total)}")
            for turn in outcome.turns:
                if not turn.passed:
                    lines.append(f"  #{turn.index} {turn.say!r}: {'; '.join(turn.failures)}")
        if len(entry.outcomes) > 1:
            lines.append(runs_text(runs_stats([outcome.turns for outcome in entry.outcomes])))
    routing = result.routing
    if routing is not None:
        lines += ["", f"== Routing set {result.routing_set} ({routing.total} utterances, {result.routing_store} store) ==",
                  routing_text(routing)]
    return "\n".join(lines)


__all__ = ["PackEvalError", "PackEvaluation", "evaluation_dict", "evaluation_text", "pack_evaluate", "pack_plan"]
