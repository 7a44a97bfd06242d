"""Celery tasks (found by ``app.autodiscover_tasks()``). Store work: ``worker.base.store_task``.

Each task is thin: ids in, one service call, its own retry policy. Each is safe to run twice
(acks are late, so a task whose worker died runs again): turns are claimed once
(``worker.turns``), report emails go once per idempotency key (``worker.reports``), expiry
and schedule syncs only move rows towards a state they reach once.

Queues (``CELERY_TASK_ROUTES``): ``turn_task`` on ``turns`` (workers that hold the models),
the rest on ``jobs``.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ledger.errors import DeliveryFailed
from tenants.models import Store
from worker.base import store_task

logger = logging.getLogger(__name__)

# The database restarting, or the mail server refusing for a moment: worth another try.
TRANSIENT = (OperationalError, InterfaceError)
REPORT_RETRIES = 5


# The database refusing for a moment (a restart, "too many clients") before or while a turn ran:
# the task runs again shortly. That is safe: a job not yet claimed is claimed then, and one that
# was claimed is found running and reported interrupted, never run twice (worker.turns).
@store_task(acks_late=True, ignore_result=True, autoretry_for=TRANSIENT, max_retries=6, retry_backoff=1,
            retry_backoff_max=8, retry_jitter=False)
def turn_task(
    store: Store, *, job_id: str, notify: str | None = None, audio_b64: str | None = None,
    audio_format: str = "pcm16", sample_rate: int = 16_000, voice: bool = False,
    transcript: dict[str, Any] | None = None,
) -> None:
    """Run one submitted assistant turn (``worker.turns.turn_job_run``); its answer lands on the job."""
    from worker.turns import turn_job_run

    audio = None if audio_b64 is None else {"audio_b64": audio_b64, "audio_format": audio_format, "sample_rate": sample_rate}
    turn_job_run(store=store, job_id=job_id, notify=notify, audio=audio, voice=voice, transcript=transcript)


@store_task(ignore_result=True)
def speech_partial_task(store: Store, *, audio_b64: str, sample_rate: int, notify: str, seq: int, req: int = 0,
                        final: bool = False) -> None:
    """Transcribe the utterance so far and push it to the socket (``speech.partial``): a quick greedy
    pass while the owner speaks, or with ``final`` the full re-ranked pass on a pause, which the
    socket hands to the turn when the pause turns out to be the end (``worker.speech``)."""
    from worker.speech import speech_partial

    speech_partial(store=store, audio_b64=audio_b64, sample_rate=sample_rate, notify=notify, seq=seq, req=req,
                   final=final)


@store_task(bind=True, acks_late=True, max_retries=REPORT_RETRIES, autoretry_for=(DeliveryFailed, *TRANSIENT),
            retry_backoff=30, retry_backoff_max=600, retry_jitter=True)
def daily_reports_task(task, store: Store) -> dict[str, str]:
    """The store's daily sales and inventory reports for the day they were due; each goes at most once."""
    from worker.reports import (
        DAILY_KINDS,
        SCHEDULE_ACTOR,
        daily_key,
        report_dispatch,
        report_dispatch_give_up,
        report_moment,
    )

    at = report_moment(store=store)
    outcome: dict[str, str] = {}
    for kind in DAILY_KINDS:
        key = daily_key(store=store, kind=kind, day=at.date())
        try:
            outcome[kind] = report_dispatch(store=store, kind=kind, key=key, actor=SCHEDULE_ACTOR, at=at).status
        except DeliveryFailed as exc:
            if task.request.retries >= task.max_retries:
                report_dispatch_give_up(key=key, error=exc.message)
            raise
    return outcome


@store_task(bind=True, acks_late=True, max_retries=REPORT_RETRIES, autoretry_for=(DeliveryFailed, *TRANSIENT),
            retry_backoff=30, retry_backoff_max=600, retry_jitter=True)
def report_email_task(
    task, store: Store, *, kind: str, key: str, actor: str, to: str | None = None, at: str | None = None,
) -> str:
    """Email one report under an idempotency key (enqueue it with ``transaction.on_commit``); returns its status."""
    from worker.reports import report_dispatch, report_dispatch_give_up

    moment = dt.datetime.fromisoformat(at) if at else None
    key = f"{store.pk}:{key}"  # keys are per store: one store's key can never match another's row
    try:
        return report_dispatch(store=store, kind=kind, key=key, actor=actor, to=to, at=moment).status
    except DeliveryFailed as exc:
        if task.request.retries >= task.max_retries:
            report_dispatch_give_up(key=key, error=exc.message)
        raise


@shared_task(acks_late=True, autoretry_for=TRANSIENT, max_retries=3, retry_backoff=5)
def drafts_expire_task() -> int:
    """Expire the reorder drafts past their time, store by store, each in its own context."""
    from ledger.selectors import draft_expiry_store_ids
    from ledger.services import drafts_expire

    expired = 0
    for store in Store.objects.filter(pk__in=draft_expiry_store_ids()).order_by("pk"):
        expired += drafts_expire(store=store)
    return expired


@shared_task(acks_late=True, autoretry_for=TRANSIENT, max_retries=3, retry_backoff=5)
def report_schedules_sync_task() -> dict[str, Any]:
    """Give every store exactly its daily report schedule (``worker.schedules``)."""
    from worker.schedules import report_schedules_sync

    count = report_schedules_sync()
    return {"created": count.created, "updated": count.updated, "deleted": count.deleted}


@shared_task(acks_late=True, autoretry_for=TRANSIENT, max_retries=3, retry_backoff=5)
def turn_jobs_reap_task() -> int:
    """Fail the turns whose worker vanished or that waited too long (``worker.turns.turn_jobs_reap``)."""
    from worker.turns import turn_jobs_reap

    return turn_jobs_reap()
