"""Turns as worker jobs: run once, never twice, never late, and watched without holding a thread.

Only the language model is replaced, at its process boundary (``fake_models``); the guard's
other layers, grounding, policy, gateway and ledger run for real. Tasks run eagerly here, as
``make test`` runs without a broker; the redelivery cases hand the task the job a dead worker
left behind. On PostgreSQL it all runs under row-level security: the test reads a store's jobs
inside that store's context (``_reload``, ``_in``), as the web side does.
"""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from audit.models import Turn
from ledger.models import Product, StockEntry
from tenants.context import use_store
from worker.models import TurnJob
from worker.tasks import turn_jobs_reap_task, turn_task
from worker.turns import turn_submit
from worker.watch import turn_events, turn_wait

pytestmark = pytest.mark.django_db

COUNT_ATTA = {"action": "update_count", "item": "atta"}


def _submit(store, text, **extra):
    return turn_submit(store=store, channel="api", mode="router", actor="owner", text=text, **extra)


def _atta(store):
    with use_store(store):
        return Product.objects.get(store=store, name="Atta").stock, StockEntry.objects.filter(store=store).count()


def _in(store, read):
    """What ``read()`` returns inside ``store``'s context (row-level security shows it its own rows)."""
    with use_store(store):
        return read()


def _reload(job):
    with use_store(job.store):
        job.refresh_from_db()
    return job


def _left_behind(store, *, status, age_s=1, text="we actually have fifteen bags of atta"):
    with use_store(store):
        job = TurnJob.objects.create(store=store, channel="api", mode="router", actor="owner", text=text,
                                     status=status, attempts=1 if status == "running" else 0,
                                     started_at=timezone.now() if status == "running" else None)
        TurnJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - dt.timedelta(seconds=age_s))
    return job


def test_a_submitted_turn_runs_on_the_worker_and_its_answer_and_events_land_on_the_job(demo, router):
    router.add(COUNT_ATTA)

    job = _submit(demo, "we actually have fifteen bags of atta")

    _reload(job)
    assert (job.status, job.attempts, job.error) == ("done", 1, "")
    assert job.result["action"] == "update_count" and "15" in job.result["reply"]
    kinds = [event["type"] for event in job.events]
    assert kinds[0] == "transcript" and kinds[-2:] == ["reply", "done"]
    assert job.events[-1]["result"] == job.result
    assert _atta(demo)[0] == 15


def test_a_redelivered_finished_turn_is_not_run_again(demo, router):
    router.add(COUNT_ATTA)
    job = _submit(demo, "we actually have fifteen bags of atta")
    before = _atta(demo), _in(demo, Turn.objects.count), len(router.requests)

    turn_task.delay(store_id=demo.pk, job_id=str(job.pk))

    assert (_atta(demo), _in(demo, Turn.objects.count), len(router.requests)) == before
    assert _reload(job).status == "done"


def test_a_turn_whose_worker_died_mid_turn_is_reported_failed_and_not_run_twice(demo, router):
    job = _left_behind(demo, status="running")
    before = _atta(demo)

    turn_task.delay(store_id=demo.pk, job_id=str(job.pk))

    _reload(job)
    assert (job.status, job.error_code) == ("failed", "interrupted")
    assert "interrupted" in job.error
    assert [event["type"] for event in job.events] == ["error", "done"]
    assert router.requests == [] and _in(demo, Turn.objects.count) == 0 and _atta(demo) == before


def test_a_turn_whose_database_refused_before_the_claim_runs_once_when_the_task_runs_again(demo, router, monkeypatch):
    # Measured under load: "too many clients" at the task's first query left jobs queued until expiry.
    from django.db import OperationalError

    from worker import turns

    router.add(COUNT_ATTA)
    real_claim, calls = turns._claim, []

    def refusing_once(job, now):
        calls.append(job.pk)
        if len(calls) == 1:
            raise OperationalError("FATAL: sorry, too many clients already")
        return real_claim(job, now)

    monkeypatch.setattr(turns, "_claim", refusing_once)
    job = _left_behind(demo, status="queued")

    # throw=False: as on a worker, the retry is run (eagerly here; after a second on a worker).
    turn_task.apply(kwargs={"store_id": demo.pk, "job_id": str(job.pk)}, throw=False)

    _reload(job)
    assert len(calls) == 2
    assert (job.status, job.attempts) == ("done", 1) and _atta(demo)[0] == 15
    assert len(router.requests) == 1


def test_a_turn_that_lost_the_database_mid_turn_is_reported_interrupted_not_unchanged(demo, router, monkeypatch):
    from django.db import OperationalError

    import assistant.pipeline

    def gone(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(assistant.pipeline, "run_turn", gone)
    job = _submit(demo, "we actually have fifteen bags of atta")

    _reload(job)
    assert (job.status, job.error_code) == ("failed", "interrupted")
    assert "check your approvals and counts" in job.error  # not "Nothing was changed": a write may have landed
    assert [event["type"] for event in job.events][-2:] == ["error", "done"]


def test_a_turn_that_waited_too_long_for_a_worker_is_not_run(demo, router):
    job = _left_behind(demo, status="queued", age_s=600)

    turn_task.delay(store_id=demo.pk, job_id=str(job.pk))

    _reload(job)
    assert (job.status, job.error_code) == ("failed", "expired")
    assert router.requests == [] and _in(demo, Turn.objects.count) == 0


def test_a_repeated_idempotency_key_gets_the_first_turn_and_another_store_its_own(demo, other_store, router):
    router.add(COUNT_ATTA)
    first = _submit(demo, "we actually have fifteen bags of atta", idempotency_key="till-7")
    asked = len(router.requests)

    again = _submit(demo, "we actually have fifteen bags of atta", idempotency_key="till-7")
    assert again.pk == first.pk and len(router.requests) == asked

    theirs = _submit(other_store, "hello", idempotency_key="till-7")
    assert theirs.pk != first.pk and theirs.store_id == other_store.pk
    assert _atta(demo) == (15, _atta(demo)[1])


def test_the_reaper_fails_turns_whose_worker_vanished_or_that_no_worker_took(demo, other_store):
    from tenants.rls import bypass

    lost = _left_behind(demo, status="running")
    with use_store(demo):
        TurnJob.objects.filter(pk=lost.pk).update(started_at=timezone.now() - dt.timedelta(hours=1))
    waiting = _left_behind(other_store, status="queued", age_s=3600)
    fresh = _left_behind(demo, status="queued")

    assert turn_jobs_reap_task.delay().get() == 2

    with bypass():  # the test looks across both stores on purpose
        statuses = dict(TurnJob.objects.values_list("pk", "error_code"))
    assert statuses == {lost.pk: "interrupted", waiting.pk: "expired", fresh.pk: ""}


def test_the_web_side_gets_each_pushed_event_once_in_order_ending_with_the_answer(demo, router):
    from channels.layers import get_channel_layer

    router.add(COUNT_ATTA)
    channel = async_to_sync(get_channel_layer().new_channel)()
    job = _submit(demo, "we actually have fifteen bags of atta", notify=channel)

    async def watch():
        return [event async for event in turn_events(store=demo, job_id=str(job.pk), notify=channel, timeout=5)]

    events = async_to_sync(watch)()
    _reload(job)
    assert events == job.events
    assert events[-1]["type"] == "done" and events[-1]["result"] == job.result and "latency_ms" in events[-1]


def test_without_pushed_events_the_web_side_reads_them_from_the_job(demo, router):
    router.add(COUNT_ATTA)
    job = _submit(demo, "we actually have fifteen bags of atta")

    status = async_to_sync(turn_wait)(store=demo, job_id=str(job.pk), notify=None, timeout=5)

    assert status["status"] == "done" and status["result"]["action"] == "update_count"


def test_a_job_failed_without_events_still_ends_with_an_error_and_a_done(demo):
    job = _left_behind(demo, status="running")
    with use_store(demo):
        TurnJob.objects.filter(pk=job.pk).update(status="failed", error_code="interrupted", error="Interrupted.")

    async def watch():
        return [event async for event in turn_events(store=demo, job_id=str(job.pk), notify=None, timeout=5)]

    assert async_to_sync(watch)() == [
        {"type": "error", "code": "interrupted", "message": "Interrupted."}, {"type": "done", "result": None},
    ]


def test_waiting_for_a_turn_that_does_not_finish_gives_up_at_the_bound(demo):
    job = _left_behind(demo, status="queued")

    assert async_to_sync(turn_wait)(store=demo, job_id=str(job.pk), notify=None, timeout=0.5) is None


def test_a_retry_of_a_turn_the_broker_refused_hands_the_same_job_over_again(demo, router):
    router.add(COUNT_ATTA)
    with use_store(demo):
        refused = TurnJob.objects.create(store=demo, channel="api", mode="router", actor="owner",
                                         idempotency_key="k-9", text="we actually have fifteen bags of atta",
                                         status="failed", error_code="assistant_unavailable",
                                         error="The assistant can't take requests.")

    again = _submit(demo, "we actually have fifteen bags of atta", idempotency_key="k-9")

    _reload(again)
    assert again.pk == refused.pk and (again.status, again.error_code) == ("done", "")
    assert _atta(demo)[0] == 15 and _in(demo, TurnJob.objects.filter(store=demo).count) == 1


def test_a_turn_the_broker_refused_is_recorded_failed_once_the_request_commits(
    demo, monkeypatch, django_capture_on_commit_callbacks
):
    # On a worker deployment the job is handed over on commit, after the submitter's store context
    # ended; the refusal is still written on the store's job (row-level security on PostgreSQL).
    from shelfwise.celery import app
    from worker.turns import TurnUnavailable

    def refused(*args, **kwargs):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(turn_task, "apply_async", refused)
    app.conf.task_always_eager = False
    try:
        with pytest.raises(TurnUnavailable), django_capture_on_commit_callbacks(execute=True):
            job = _submit(demo, "we actually have fifteen bags of atta")
    finally:
        app.conf.task_always_eager = True

    assert (_reload(job).status, job.error_code) == ("failed", "assistant_unavailable")
