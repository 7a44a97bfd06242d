"""Repeated trials of the routing set, stored like suite runs so pass^k reads both the same way.

Each repetition is one ``BenchmarkRun`` (suite ``routing:<set name>``, settings ``kind: routing``)
with one ``BenchmarkTurn`` per utterance: its index is the utterance's 1-based position in the
whole set (so pieces of the set, ``--start``/``--limit``, add up), its category the gold action,
``passed`` the routing score's action+item verdict (``lab.bench.routing``). All repetitions
route on one demo store, repetition after repetition (not one utterance n times in a row, so no
trial follows its own twin in the model's prompt cache).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.utils import timezone

from assistant.models import BenchmarkRun, BenchmarkTurn
from lab.bench.routing import RouteScore, RoutingItem, route_one
from lab.bench.stores import bench_store_create, bench_store_delete
from shelfwise.stats import percentile
from tenants.models import PackVersion

ROUTING_PREFIX = "routing:"


def _turn(run: BenchmarkRun, position: int, score: RouteScore) -> BenchmarkTurn:
    failures = [] if score.item_ok else [f"gold {score.item.action}; got {score.predicted} [{score.grounded}]"]
    return BenchmarkTurn(
        run=run, index=position, category=score.item.action[:40], say=score.item.say, passed=score.item_ok,
        failures=failures, latency_ms=round(score.ms, 1),
        answer={"id": score.item.id, "predicted": score.predicted, "action_ok": score.action_ok,
                "grounded": score.grounded, "decided_by": score.decided_by},
        model_calls=[{"role": "router", "purpose": "route", "ms": round(ms, 1)} for ms in score.model_ms],
    )


def routing_trials(
    *,
    set_name: str,
    items: Sequence[tuple[int, RoutingItem]],
    repeat: int,
    fast: bool,
    settings: dict,
    warm: bool = True,
    on_score: Callable[[int, RouteScore], None] | None = None,
    pack_version: PackVersion | None = None,
    sample: bool = False,
) -> list[BenchmarkRun]:
    """Route every (position, item) ``repeat`` times on one fresh store and store each repetition.

    The store: the demo catalog, pinned to ``pack_version`` when given; ``sample``: that version's sample catalog.
    """
    from assistant.grounding import Catalog
    from ledger import selectors

    store = bench_store_create(label="route-passk", pack_version=pack_version, sample=sample)
    runs: list[BenchmarkRun] = []
    try:
        catalog = Catalog.from_products(selectors.product_list(store=store))
        if warm:  # one throwaway routing, so the first timed one is not the first call
            route_one(store=store, item=items[0][1], catalog=catalog, fast=fast)
        for number in range(1, repeat + 1):
            run = BenchmarkRun.objects.create(
                suite=f"{ROUTING_PREFIX}{set_name}"[:80], mode="router", run_number=number, turns_total=len(items),
                store_slug=store.slug, settings={"kind": "routing", "fast_path": fast, **settings},
            )
            runs.append(run)
            turns = []
            try:
                for position, item in items:
                    score = route_one(store=store, item=item, catalog=catalog, fast=fast)
                    turns.append(_turn(run, position, score))
                    if on_score is not None:
                        on_score(number, score)
                run.status = BenchmarkRun.Status.DONE
            except BaseException as exc:
                run.status, run.error = BenchmarkRun.Status.FAILED, f"{type(exc).__name__}: {exc}"[:2000]
                raise
            finally:
                BenchmarkTurn.objects.bulk_create(turns)
                latencies = [t.latency_ms for t in turns]
                run.turns_passed = sum(t.passed for t in turns)
                run.median_ms, run.p90_ms = percentile(latencies, 50), percentile(latencies, 90)
                run.finished_at = timezone.now()
                run.save()
    finally:
        bench_store_delete(store=store)
    return runs
