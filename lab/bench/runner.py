"""Run a suite through the real pipeline on a fresh demo store, and record every turn.

One run: a new store seeded with the demo catalog, the suite's turns in order in ONE
conversation through ``run_turn`` (channel "system"), ledger snapshots around each turn, the
turn's checks, its wall-clock latency, its per-stage times and its model calls from the audit;
then the store is deleted (unless kept). Results go to ``BenchmarkRun``/``BenchmarkTurn``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from assistant.models import BenchmarkRun, BenchmarkTurn
from inference.base import InferenceError, Role
from lab.bench.checks import ledger_snapshot, turn_failures
from lab.bench.report import run_stats
from lab.bench.stores import ACTOR, bench_store_create, bench_store_delete, captured_store_create
from lab.bench.suite import Suite, SuiteTurn
from tenants.models import PackVersion, Store

# The model roles each mode can call in a turn (the guard judges every request).
MODE_ROLES: dict[str, tuple[Role, ...]] = {
    "router": (Role.GUARD, Role.ROUTER, Role.GENERAL),
    "native": (Role.GUARD, Role.NATIVE),
    "small": (Role.GUARD, Role.SMALL),
}
WARM_TURN = "where do we keep the basmati"


class BenchError(Exception):
    """The benchmark cannot run (a model is misconfigured or cannot load); the message says what to fix."""


def role_models(mode: str) -> dict[str, dict[str, str]]:
    """The backend kind and model serving each of the mode's roles, for the run's record.

    Raises:
        BenchError: a role's settings are wrong (the message names the variable).
    """
    from inference.config import get_backend

    described = {}
    for role in MODE_ROLES[mode]:
        try:
            backend = get_backend(role)
        except ImproperlyConfigured as exc:
            raise BenchError(str(exc)) from exc
        described[str(role)] = {"backend": backend.kind, "model": Path(backend.model).name if backend.model else ""}
    return described


def warm_up(*, mode: str, log: Callable[[str], None] = lambda line: None) -> dict[str, float]:
    """Load every model the mode uses and the guard's layers, then run one throwaway turn on a separate store.

    Timed turns then measure answering, not loading or first-call setup. Returns the seconds
    each step took.

    Raises:
        BenchError: a model cannot be configured or loaded.
    """
    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput
    from inference.config import get_backend

    took: dict[str, float] = {}
    for role in MODE_ROLES[mode]:
        started = time.perf_counter()
        try:
            get_backend(role).warm_up()
        except (ImproperlyConfigured, InferenceError) as exc:
            raise BenchError(f"The {role} model cannot be used: {exc}") from exc
        took[f"load {role}"] = time.perf_counter() - started
        log(f"  {role}: ready in {took[f'load {role}']:.1f} s")
    from assistant.guard import get_guard

    started = time.perf_counter()
    get_guard().warm_up()  # its local classifiers too, not only the guard role's model
    took["load guard layers"] = time.perf_counter() - started
    log(f"  guard layers: ready in {took['load guard layers']:.1f} s")
    started = time.perf_counter()
    store = bench_store_create(label=f"warm-{mode}")
    try:
        run_turn(store=store, turn=TurnInput(text=WARM_TURN, mode=Mode(mode), channel="system", actor=ACTOR))
    finally:
        bench_store_delete(store=store)
    took["throwaway turn"] = time.perf_counter() - started
    log(f"  throwaway turn {WARM_TURN!r} on a separate store: {took['throwaway turn']:.1f} s (not scored)")
    return took


def pack_label(version: PackVersion) -> str:
    """``"bakery@1+0123456789ab (draft)"``: the version a run used, for its record."""
    return f"{version.business_type.slug}@{version.version}+{version.digest[:12]} ({version.status})"


def model_calls(*, store: Store, conversation: str, index: int) -> list[dict]:
    """The turn's model calls as the audit recorded them: role, purpose, duration and tokens, in order.

    ``cached_tokens``: the prompt tokens the backend served from its prefix cache (None when it does
    not say), so a run shows how much of each prompt was read again.
    """
    from audit.models import Record
    from tenants.context import use_store

    with use_store(store):
        records = Record.objects.filter(
            store=store, kind=Record.Kind.MODEL_CALL, turn__conversation=conversation, turn__index=index
        ).order_by("id")
        return [
            {"role": record.name, "purpose": (record.data or {}).get("purpose", ""), "ms": round(record.duration_ms, 1),
             "prompt_tokens": (record.data or {}).get("prompt_tokens"),
             "completion_tokens": (record.data or {}).get("completion_tokens"),
             "cached_tokens": (record.result or {}).get("cached_tokens")}
            for record in records
        ]


@dataclass
class RunOutcome:
    run: BenchmarkRun
    turns: list[BenchmarkTurn]
    kept_store: bool


def suite_run(
    *,
    suite: Suite,
    mode: str,
    run_number: int = 1,
    variant: str = "",
    keep: bool = False,
    seed: int = 7,
    settings: dict | None = None,
    progress: bool = True,
    on_turn: Callable[[BenchmarkTurn], None] | None = None,
    pack_version: PackVersion | None = None,
) -> RunOutcome:
    """Run every turn of ``suite`` in one conversation on a fresh demo store and record the results.

    ``pack_version``: the pack version the store runs (draft or published); a suite on the
    ``"sample"`` store needs one, and its store holds that version's sample catalog.

    A suite of replayed cases runs each case on a fresh store of its own, holding the products the
    case captured: its context turns first (unchecked), then its turn, in one conversation.

    Raises:
        BenchError: a replayed case's store cannot be built (the message names the case).
    """
    from tqdm import tqdm

    roles = role_models(mode)
    if suite.store == "sample" and pack_version is None:
        raise BenchError(f"The suite {suite.name} runs on a pack's sample catalog: name its pack.")
    store = None if suite.replayed else bench_store_create(
        label=f"{mode}-{run_number}", seed=seed, pack_version=pack_version, sample=suite.store == "sample")
    run = BenchmarkRun.objects.create(
        suite=suite.name[:80], mode=mode, variant=variant[:40], run_number=run_number, turns_total=len(suite.turns),
        model=", ".join(f"{role}={info['model'] or info['backend']}" for role, info in roles.items())[:200],
        store_slug=store.slug if store is not None else "",
        settings={"roles": roles, "suite_file": suite.source, "seed": seed, "kept_store": keep,
                  **({"replayed_cases": True} if suite.replayed else {}),
                  **({"pack": pack_label(pack_version), "store": suite.store} if pack_version is not None else {}),
                  **(settings or {})},
    )
    turns: list[BenchmarkTurn] = []
    conversation: str | None = None
    bar = tqdm(suite.turns, desc=f"run {run_number} ({mode})", unit="turn", disable=not progress, leave=False)
    try:
        for turn in bar:
            if suite.replayed:
                record = _case_run(turn, run=run, mode=mode, keep=keep)
            else:
                assert store is not None
                record, conversation = _turn_run(turn, run=run, mode=mode, store=store, conversation=conversation)
            turns.append(record)
            bar.set_postfix(passed=sum(t.passed for t in turns), failed=sum(not t.passed for t in turns))
            if on_turn is not None:
                on_turn(record)
        run.status = BenchmarkRun.Status.DONE
    except BaseException as exc:  # also Ctrl-C: the run is marked failed and the store still goes
        run.status = BenchmarkRun.Status.FAILED
        run.error = f"{type(exc).__name__}: {exc}"[:2000]
        raise
    finally:
        bar.close()
        stats = run_stats(turns)
        run.turns_passed = stats.passed
        run.median_ms = stats.median_ms
        run.p90_ms = stats.p90_ms
        run.finished_at = timezone.now()
        run.save()
        if store is not None and not keep:
            bench_store_delete(store=store)
    return RunOutcome(run=run, turns=turns, kept_store=keep)


def _say(store: Store, *, text: str, mode: str, conversation: str | None):
    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput

    return run_turn(store=store, turn=TurnInput(text=text, mode=Mode(mode), conversation=conversation,
                                                channel="system", actor=ACTOR))


def _turn_run(turn: SuiteTurn, *, run: BenchmarkRun, mode: str, store: Store,
              conversation: str | None) -> tuple[BenchmarkTurn, str]:
    """Say one suite turn in the conversation, check it against the ledger around it, and record it."""
    before = ledger_snapshot(store=store, sales_args=(turn.expect.get("reply_sales") or {}).get("args"))
    started = time.perf_counter()
    result = _say(store, text=turn.say, mode=mode, conversation=conversation)
    wall_ms = (time.perf_counter() - started) * 1000
    after = ledger_snapshot(store=store)
    failures = turn_failures(turn.expect, result=result, before=before, after=after)
    record = BenchmarkTurn.objects.create(
        run=run, index=turn.index, category=turn.category[:40], say=turn.say, passed=not failures,
        failures=failures, latency_ms=round(wall_ms, 1),
        answer={**result.as_dict(), "outcome": str(result.outcome), **({"case": turn.case} if turn.case else {})},
        stages=dict(result.stages),
        model_calls=model_calls(store=store, conversation=result.conversation, index=result.turn),
    )
    return record, result.conversation


def _case_run(turn: SuiteTurn, *, run: BenchmarkRun, mode: str, keep: bool) -> BenchmarkTurn:
    """A replayed case on a fresh store of its captured products: its context said first, then its turn."""
    assert turn.store is not None
    try:
        store = captured_store_create(label=f"{turn.case}-{mode}", spec=dict(turn.store))
    except (ValueError, ImproperlyConfigured) as exc:
        raise BenchError(f"Case {turn.case} ({turn.say!r}): its store cannot be built: {exc}") from exc
    try:
        conversation: str | None = None
        for text in turn.context:
            conversation = _say(store, text=text, mode=mode, conversation=conversation).conversation
        record, _conversation = _turn_run(turn, run=run, mode=mode, store=store, conversation=conversation)
        return record
    finally:
        if not keep:
            bench_store_delete(store=store)


def summary_json(outcomes: Sequence[RunOutcome], *, warm: dict[str, float] | None = None) -> dict:
    """Everything the command printed, as one JSON-serialisable object."""
    from lab.bench.report import runs_stats

    return {
        "warm_up_s": {key: round(value, 2) for key, value in (warm or {}).items()},
        "runs": [
            {
                "id": outcome.run.pk,
                "run": outcome.run.run_number,
                "suite": outcome.run.suite,
                "mode": outcome.run.mode,
                "variant": outcome.run.variant,
                "status": outcome.run.status,
                "store": outcome.run.store_slug,
                "settings": outcome.run.settings,
                "stats": run_stats(outcome.turns).as_dict(),
                "turns": [
                    {
                        "index": t.index, "category": t.category, "say": t.say, "passed": t.passed,
                        "failures": t.failures, "latency_ms": t.latency_ms, "stages": t.stages,
                        "model_calls": t.model_calls, "reply": t.answer.get("reply", ""),
                        "action": t.answer.get("action"), "tools": [c.get("tool") for c in t.answer.get("tool_calls", [])],
                    }
                    for t in outcome.turns
                ],
            }
            for outcome in outcomes
        ],
        "summary": runs_stats([outcome.turns for outcome in outcomes]).as_dict(),
    }
