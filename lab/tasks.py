"""Benchmark runs started from the metrics page, and pack evaluations started from the vendor portal.

The page starts a run with ``benchmark_start``; the task runs the suite through
``lab.bench.runner.suite_run`` (the real pipeline on a throwaway demo store) and writes
its progress, turn by turn, to the cache under the job's id, where the page's small JSON
endpoint reads it every second.

With a broker the task goes to a worker. Without one (the embedded default, Celery eager) it
runs in a background thread of this process, so the page still answers at once and its progress
bar still moves; ``DASHBOARD_BENCH_INLINE = True`` runs it inside the request instead (tests).

One run at a time: a run keeps the machine's cores busy for minutes, and two at once would
measure each other. A start while one is queued or running is refused with its progress; a run
whose progress has not moved for ``STALE_AFTER_S`` (a lost worker) no longer holds the slot.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import connections, transaction

from packs.source import GROCERY_EVALUATION

logger = logging.getLogger(__name__)

SUITES_DIR = GROCERY_EVALUATION / "suites"
PROGRESS_TTL_S = 6 * 3600
MAX_LIMIT = 500
ACTIVE_KEY = "dashboard:bench:active"  # the job id of the run that holds the machine
STALE_AFTER_S = 30 * 60  # no turn takes this long: a job silent this long was lost
# Background runs of this process (eager mode), by job id: tests join them.
threads: dict[str, threading.Thread] = {}


class BenchStartError(ValueError):
    """The run cannot start as asked; the message says why."""


def suite_names() -> list[str]:
    """The suite files the page offers (the grocery pack's ``evaluation/suites/*.json``), and the marked regression cases."""
    from assistant.models import RegressionCase
    from lab.bench.regressions import SUITE_NAME

    files = sorted(path.name for path in SUITES_DIR.glob("*.json"))
    return files + ([SUITE_NAME] if RegressionCase.objects.exists() else [])


def mode_names() -> list[str]:
    from lab.bench.runner import MODE_ROLES

    return list(MODE_ROLES)


def _key(job: str) -> str:
    return f"dashboard:bench:{job}"


def progress_get(job: str) -> dict[str, Any] | None:
    """The job's progress: state, done, total, passed, run id, error; None for an unknown job."""
    return cache.get(_key(job))


def _progress_set(job: str, **fields: Any) -> dict[str, Any]:
    current = progress_get(job) or {}
    current.update(fields, updated=time.time())
    cache.set(_key(job), current, PROGRESS_TTL_S)
    return current


def active_job() -> tuple[str, dict[str, Any]] | None:
    """The queued or running job that holds the slot, with its progress; None when the slot is free."""
    job = cache.get(ACTIVE_KEY)
    if not job:
        return None
    progress = progress_get(job)
    if (progress is None or progress.get("state") in ("done", "failed")
            or time.time() - float(progress.get("updated") or 0) > STALE_AFTER_S):
        return None
    return job, progress


def _claim(job: str) -> bool:
    """Take the slot for ``job`` (atomic: ``cache.add``); a stale holder is replaced."""
    if cache.add(ACTIVE_KEY, job, PROGRESS_TTL_S):
        return True
    if active_job() is None:
        cache.delete(ACTIVE_KEY)
        return cache.add(ACTIVE_KEY, job, PROGRESS_TTL_S)
    return False


def _release(job: str) -> None:
    if cache.get(ACTIVE_KEY) == job:
        cache.delete(ACTIVE_KEY)


def _busy_message(progress: dict[str, Any]) -> str:
    done, total = progress.get("done") or 0, progress.get("total")
    where = f" ({done} of {total} turns done)" if total else " (queued)"
    return (f"A benchmark run is already {progress.get('state', 'queued')}: {progress.get('mode', '')} on "
            f"{progress.get('suite', '')}{where}. Start another when it has finished.")


def benchmark_start(*, suite: str, mode: str, limit: int | None = None) -> str:
    """Queue a benchmark run and return its job id (the key of its progress).

    Raises:
        BenchStartError: an unknown suite or mode, or a limit out of range.
    """
    if suite not in suite_names():
        raise BenchStartError(f"Unknown suite {suite!r}; choose one of: {', '.join(suite_names())}.")
    if mode not in mode_names():
        raise BenchStartError(f"Unknown mode {mode!r}; choose one of: {', '.join(mode_names())}.")
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        raise BenchStartError(f"The turn limit must be between 1 and {MAX_LIMIT}.")
    active = active_job()
    if active is not None:
        raise BenchStartError(_busy_message(active[1]))
    job = uuid.uuid4().hex
    _progress_set(job, state="queued", suite=suite, mode=mode, done=0, total=None, passed=0, run=None, error="")
    kwargs = {"job": job, "suite": suite, "mode": mode, "limit": limit}
    transaction.on_commit(lambda: _dispatch(job, kwargs))
    return job


def _dispatch(job: str, kwargs: dict[str, Any], *, task: Any = None) -> None:
    from shelfwise.celery import app

    task = task or benchmark_run_task
    # Claimed here, once the request's transaction committed: a start that rolled back holds nothing.
    if not _claim(job):
        active = active_job()
        _progress_set(job, state="failed", error=_busy_message(active[1]) if active else "Another run started first.")
        if task is not benchmark_run_task:
            _pack_progress_set(job, state="failed", error="Another run started first.")
        return
    if not app.conf.task_always_eager:
        task.apply_async(kwargs=kwargs)
    elif getattr(settings, "DASHBOARD_BENCH_INLINE", False):
        task.apply(kwargs=kwargs)
    else:
        thread = threading.Thread(target=_run_in_thread, args=(kwargs, task), name=f"bench-{job[:8]}", daemon=True)
        threads[job] = thread
        thread.start()


def _run_in_thread(kwargs: dict[str, Any], task: Any) -> None:
    try:
        task.apply(kwargs=kwargs)
    finally:
        connections.close_all()  # this thread's connections belong to no request: close them here


@shared_task(name="lab.benchmark_run", acks_late=False)
def benchmark_run_task(*, job: str, suite: str, mode: str, limit: int | None = None) -> int | None:
    """Run ``suite`` (a file name) in ``mode`` and report progress under ``job``; returns the run's id.

    Not retried: a run is an experiment, and a half-done one is recorded as failed. The slot is
    freed however it ends.
    """
    try:
        return _run_suite(job=job, suite=suite, mode=mode, limit=limit)
    finally:
        _release(job)


def _run_suite(*, job: str, suite: str, mode: str, limit: int | None) -> int | None:
    from lab.bench.regressions import SUITE_NAME, regressions_suite
    from lab.bench.runner import BenchError, suite_run
    from lab.bench.suite import SuiteError, suite_load

    try:
        loaded = (regressions_suite() if suite == SUITE_NAME else suite_load(SUITES_DIR / suite)).limited(limit)
    except (SuiteError, OSError) as exc:
        _progress_set(job, state="failed", error=str(exc)[:300])
        return None
    _progress_set(job, state="running", total=len(loaded.turns), done=0, passed=0)

    def on_turn(record) -> None:
        state = progress_get(job) or {}
        _progress_set(
            job, run=record.run_id, done=int(state.get("done") or 0) + 1,
            passed=int(state.get("passed") or 0) + (1 if record.passed else 0),
        )

    try:
        outcome = suite_run(suite=loaded, mode=mode, progress=False, on_turn=on_turn,
                        settings={"started_from": "ops metrics page", "limit": limit})
    except BenchError as exc:
        _progress_set(job, state="failed", error=str(exc)[:300])
        return None
    except Exception as exc:
        logger.exception("Benchmark job %s failed", job)
        _progress_set(job, state="failed", error=f"The run failed: {type(exc).__name__}.")
        return None
    run = outcome.run
    _progress_set(job, state="done", run=run.pk, done=len(outcome.turns), passed=run.turns_passed,
                  total=run.turns_total, median_ms=run.median_ms, p90_ms=run.p90_ms)
    return run.pk


def passk_latest() -> list[dict[str, Any]]:
    """pass^k of the latest stored ``bench --repeat`` group of each suite, for the metrics page."""
    from lab.bench.passk import latest_groups

    return latest_groups()


# ---------------------------------------------------------------------------------------------
# A pack version's evaluation, started from the vendor portal (``lab.bench.pack_eval``)

PACK_RUNS = 3


def _pack_key(job: str) -> str:
    return f"packs:eval:{job}"


def _pack_latest_key(version_id: int) -> str:
    return f"packs:eval:version:{version_id}"


def pack_eval_progress(job: str) -> dict[str, Any] | None:
    """A pack evaluation's progress: version, state, done, total, what runs now, error, and the result when done."""
    return cache.get(_pack_key(job))


def pack_eval_latest(version_id: int) -> str | None:
    """The job id of the newest evaluation started for a pack version, while its progress is kept."""
    job = cache.get(_pack_latest_key(version_id))
    return job if job and pack_eval_progress(job) is not None else None


def _pack_progress_set(job: str, **fields: Any) -> dict[str, Any]:
    current = pack_eval_progress(job) or {}
    current.update(fields, updated=time.time())
    cache.set(_pack_key(job), current, PROGRESS_TTL_S)
    # Also in the shared slot's format, so a benchmark start while this runs says what holds the machine.
    _progress_set(job, state=current.get("state"), suite=f"pack {current.get('pack', '')}", mode="router",
                  done=current.get("done", 0), total=current.get("total"))
    return current


def pack_eval_start(*, version_id: int, runs: int = PACK_RUNS, limit: int | None = None) -> str:
    """Queue the evaluation of a stored pack version (its suites ``runs`` times, its routing set) and return its job id.

    The caller has checked that the requester may see the version. One run at a time, shared with
    the metrics page's benchmark runs.

    Raises:
        BenchStartError: no such version, numbers out of range, or a run is already queued or running.
    """
    from lab.bench.runner import pack_label
    from tenants.models import PackVersion

    version = PackVersion.objects.select_related("business_type").filter(pk=version_id).first()
    if version is None:
        raise BenchStartError("No such pack version.")
    if not 1 <= runs <= 5 or (limit is not None and not 1 <= limit <= MAX_LIMIT):
        raise BenchStartError(f"Runs must be 1 to 5 and the limit 1 to {MAX_LIMIT}.")
    active = active_job()
    if active is not None:
        raise BenchStartError(_busy_message(active[1]))
    job = uuid.uuid4().hex
    _pack_progress_set(job, state="queued", version=version.pk, pack=pack_label(version), runs=runs, done=0,
                       total=None, running="", error="", result=None)
    cache.set(_pack_latest_key(version.pk), job, PROGRESS_TTL_S)
    kwargs = {"job": job, "version_id": version.pk, "runs": runs, "limit": limit}
    transaction.on_commit(lambda: _dispatch(job, kwargs, task=pack_eval_task))
    return job


@shared_task(name="lab.pack_eval", acks_late=False)
def pack_eval_task(*, job: str, version_id: int, runs: int = PACK_RUNS, limit: int | None = None) -> None:
    """Evaluate the pack version, reporting progress under ``job``; the figures go into its progress when done.

    Not retried (an evaluation is an experiment); the slot is freed however it ends.
    """
    from lab.bench.pack_eval import evaluation_dict, pack_evaluate
    from lab.bench.packs import PackEvalError
    from lab.bench.runner import BenchError
    from tenants.models import PackVersion

    try:
        version = PackVersion.objects.select_related("business_type").get(pk=version_id)
        _pack_progress_set(job, state="running")
        result = pack_evaluate(
            version=version, runs=runs, limit=limit,
            progress=lambda done, total, what: _pack_progress_set(job, done=done, total=total, running=what))
        _pack_progress_set(job, state="done", result=evaluation_dict(result))
    except (PackEvalError, BenchError) as exc:
        _pack_progress_set(job, state="failed", error=str(exc)[:300])
    except Exception as exc:
        logger.exception("Pack evaluation job %s failed", job)
        _pack_progress_set(job, state="failed", error=f"The evaluation failed: {type(exc).__name__}.")
    finally:
        _release(job)
