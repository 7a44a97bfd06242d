"""Aggregations for the platform admin's pages: stores, live traffic and benchmark results.

Every function issues a fixed number of queries whatever the data size: counts are grouped in
the database (portable ``Count(filter=...)``, which SQLite and PostgreSQL both run), and
percentiles are computed in Python over a bounded window of the most recent rows
(``SAMPLE_LIMIT``), so a busy platform costs the same page time as a quiet one.

The audit tables are not under row-level security (only ledger tables are, ``tenants.rls``);
the admin views call these inside ``tenants.rls.bypass()`` all the same (cross-store maintenance).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import TruncDate
from django.utils import timezone

from assistant.models import BenchmarkRun, BenchmarkTurn
from audit.models import Record, Turn
from shelfwise.stats import percentile
from tenants.models import Membership, Store

MODES = ("router", "native", "small")
# Latency percentiles read at most this many recent rows per series.
SAMPLE_LIMIT = 5000
# Benchmark charts cover at most this many recent runs.
RUN_LIMIT = 60


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


# ---------------------------------------------------------------------------------------------
# Stores


@dataclass
class StoreRow:
    store: Store
    owner_email: str
    last_activity: datetime | None
    turns_by_mode: dict[str, int] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return sum(self.turns_by_mode.values())

    @property
    def mode_counts(self) -> list[int]:
        """Turns per mode, aligned with ``MODES`` (for a table's columns)."""
        return [self.turns_by_mode.get(mode, 0) for mode in MODES]


def store_rows(stores: Iterable[Store]) -> list[StoreRow]:
    """The page's stores with owner, last activity and turns per mode: two queries for any page size.

    ``stores`` is a queryset already annotated by ``stores_annotated`` (owner and activity).
    """
    stores = list(stores)
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    rows = (
        Turn.objects.filter(store_id__in=[s.pk for s in stores])
        .values("store_id", "mode")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        counts[row["store_id"]][row["mode"]] = row["n"]
    return [
        StoreRow(
            store=s,
            owner_email=getattr(s, "owner_email", "") or "",
            last_activity=_latest(getattr(s, "last_turn_at", None), getattr(s, "last_record_at", None)),
            turns_by_mode=dict(sorted(counts[s.pk].items())),
        )
        for s in stores
    ]


def stores_annotated():
    """All stores, newest first, with the first owner's email and the time of their latest audit row."""
    owner = (
        Membership.objects.filter(store=OuterRef("pk"), role=Membership.Role.OWNER)
        .order_by("created_at", "pk")
        .values("user__email")[:1]
    )
    return (
        Store.objects.select_related("business_type")
        .annotate(
            owner_email=Subquery(owner),
            last_turn_at=Subquery(
                Turn.objects.filter(store=OuterRef("pk")).order_by("-created_at").values("created_at")[:1]
            ),
            last_record_at=Subquery(
                Record.objects.filter(store=OuterRef("pk")).order_by("-created_at").values("created_at")[:1]
            ),
        )
        .order_by("-created_at", "-pk")
    )


def _latest(*moments: datetime | None) -> datetime | None:
    present = [m for m in moments if m is not None]
    return max(present) if present else None


# ---------------------------------------------------------------------------------------------
# Live traffic


@dataclass
class ModeTraffic:
    mode: str
    turns: int = 0
    median_ms: float | None = None
    p90_ms: float | None = None
    blocked: int = 0
    clarified: int = 0
    refused_turns: int = 0
    errors: int = 0
    refused_writes: int = 0
    escalations: int = 0
    matched: int = 0  # router decisions the fast-path matcher made
    model_routed: int = 0  # router decisions the router model made
    taught: int = 0  # of the matcher's, those a phrase the store's owner taught decided

    @property
    def matched_share(self) -> int | None:
        """Percent of the router's decisions that the matcher made (None when there were none)."""
        decided = self.matched + self.model_routed
        return round(100 * self.matched / decided) if decided else None


@dataclass
class RoleDurations:
    role: str
    calls: int
    median_ms: float | None
    p90_ms: float | None


@dataclass
class Traffic:
    since: datetime
    modes: list[ModeTraffic]
    roles: list[RoleDurations]
    days: list[str]
    turns_per_day: dict[str, list[int]]  # mode -> counts, aligned with ``days``

    @property
    def total_turns(self) -> int:
        return sum(m.turns for m in self.modes)

    @property
    def day_rows(self) -> list[tuple[str, list[int]]]:
        """(day, turns per mode in ``modes`` order), newest day first, for the table."""
        rows = [(day, [self.turns_per_day.get(m.mode, [0] * len(self.days))[i] for m in self.modes])
                for i, day in enumerate(self.days)]
        return list(reversed(rows))


def traffic(*, days: int = 7, now: datetime | None = None) -> Traffic:
    """Live traffic of the last ``days`` days across all stores: five queries whatever the volume."""
    now = now or timezone.now()
    since = now - timedelta(days=days)
    turns = Turn.objects.filter(created_at__gte=since).exclude(outcome="running")
    by_mode: dict[str, ModeTraffic] = {}
    for row in turns.values("mode").annotate(
        n=Count("id"),
        blocked=Count("id", filter=Q(outcome="blocked")),
        clarified=Count("id", filter=Q(outcome="clarified")),
        refused=Count("id", filter=Q(outcome="refused")),
        errors=Count("id", filter=Q(outcome="error")),
    ).order_by():
        by_mode[row["mode"]] = ModeTraffic(
            mode=row["mode"], turns=row["n"], blocked=row["blocked"], clarified=row["clarified"],
            refused_turns=row["refused"], errors=row["errors"],
        )
    records = Record.objects.filter(created_at__gte=since, turn__isnull=False)
    for row in records.values("mode").annotate(
        refused=Count("id", filter=Q(kind=Record.Kind.TOOL_CALL, outcome=Record.Outcome.REFUSED)),
        # Escalation (seed 002): the question went to the general model (router action or ask_general).
        escalations=Count("id", filter=Q(kind=Record.Kind.MODEL_CALL, name="general")),
        # Who decided the router's action (the turn's "route" event): the fast-path matcher or the model.
        matched=Count("id", filter=Q(kind=Record.Kind.EVENT, name="route", result__decided_by="matcher")),
        model_routed=Count("id", filter=Q(kind=Record.Kind.EVENT, name="route", result__decided_by="model")),
        taught=Count("id", filter=Q(kind=Record.Kind.EVENT, name="route", result__source="taught")),
    ).order_by():
        entry = by_mode.setdefault(row["mode"], ModeTraffic(mode=row["mode"]))
        entry.refused_writes, entry.escalations = row["refused"], row["escalations"]
        entry.matched, entry.model_routed, entry.taught = row["matched"], row["model_routed"], row["taught"]

    # Percentiles over the most recent turns (one query, bounded).
    latencies: dict[str, list[float]] = defaultdict(list)
    for mode, latency in turns.order_by("-created_at").values_list("mode", "latency_ms")[:SAMPLE_LIMIT]:
        latencies[mode].append(latency)
    for mode, values in latencies.items():
        entry = by_mode.setdefault(mode, ModeTraffic(mode=mode))
        entry.median_ms, entry.p90_ms = _round(percentile(values, 50)), _round(percentile(values, 90))

    durations: dict[str, list[float]] = defaultdict(list)
    model_calls = Record.objects.filter(created_at__gte=since, kind=Record.Kind.MODEL_CALL)
    for role, duration in model_calls.order_by("-created_at").values_list("name", "duration_ms")[:SAMPLE_LIMIT]:
        durations[role].append(duration)
    roles = [
        RoleDurations(role=role, calls=len(values), median_ms=_round(percentile(values, 50)),
                      p90_ms=_round(percentile(values, 90)))
        for role, values in sorted(durations.items())
    ]

    day_list = [(since + timedelta(days=i + 1)).date() for i in range(days)]
    day_keys = [d.isoformat() for d in day_list]
    per_day: dict[str, list[int]] = {}
    # Grouped by day in SQL: bucketing (mode, created_at) pairs in Python would not be bounded.
    for row in turns.annotate(day=TruncDate("created_at")).values("mode", "day").annotate(n=Count("id")).order_by():
        key = row["day"].isoformat() if row["day"] else ""
        if key in day_keys:
            per_day.setdefault(row["mode"], [0] * days)[day_keys.index(key)] = row["n"]

    ordered = sorted(by_mode.values(), key=lambda m: (MODES.index(m.mode) if m.mode in MODES else len(MODES), m.mode))
    return Traffic(since=since, modes=ordered, roles=roles, days=day_keys, turns_per_day=per_day)


# ---------------------------------------------------------------------------------------------
# Benchmarks


@dataclass
class CategoryRate:
    mode: str
    category: str
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclass
class Benchmarks:
    runs: list[BenchmarkRun]  # oldest first, for the chart
    categories: list[CategoryRate]
    series: dict[str, list[dict]]  # mode -> [{"x": iso time, "y": pass %, "run": id}]


def benchmarks(*, limit: int = RUN_LIMIT) -> Benchmarks:
    """The recent benchmark runs, pass rate per mode over time, and per mode and category: two queries."""
    # Routing-set trials (``bench --routing``, suite "routing:...") score single utterances, not owner sessions.
    runs = list(BenchmarkRun.objects.exclude(suite__startswith="routing:").order_by("-started_at", "-id")[:limit])
    runs.reverse()
    finished = [r for r in runs if r.status != BenchmarkRun.Status.RUNNING and r.turns_total]
    series: dict[str, list[dict]] = defaultdict(list)
    for run in finished:
        series[run.mode].append({"x": run.started_at.isoformat(), "y": round(run.pass_rate * 100, 1), "run": run.pk})
    categories = [
        CategoryRate(mode=row["run__mode"], category=row["category"], passed=row["passed"], total=row["total"])
        for row in BenchmarkTurn.objects.filter(run_id__in=[r.pk for r in finished])
        .values("run__mode", "category")
        .annotate(total=Count("id"), passed=Count("id", filter=Q(passed=True)))
        .order_by("category", "run__mode")
    ]
    return Benchmarks(runs=runs, categories=categories, series=dict(series))
