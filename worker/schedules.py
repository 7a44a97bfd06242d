"""Each store's daily report schedule, kept in django-celery-beat's tables.

One ``PeriodicTask`` per store, named ``daily-reports:store-<id>``, on a crontab at the store's
``report_time`` in the store's own time zone (beat's ``DatabaseScheduler`` reads them, so they
survive restarts and show in the admin). ``store_schedule_sync`` brings one store's schedule in
line at once (the store settings page calls it after a change); ``report_schedules_sync``
reconciles every store in two queries and runs every five minutes and when beat starts, so a
store created or changed by any path, or deleted, is picked up without a signal.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from django.db import transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from tenants.models import Store

logger = logging.getLogger(__name__)

TASK = "worker.tasks.daily_reports_task"
PREFIX = "daily-reports:store-"


def schedule_name(store_id: int) -> str:
    return f"{PREFIX}{store_id}"


@dataclass(frozen=True)
class SyncCount:
    created: int = 0
    updated: int = 0
    deleted: int = 0


def _crontab(*, hour: int, minute: int, tz: str) -> CrontabSchedule:
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=str(minute), hour=str(hour), day_of_week="*", day_of_month="*", month_of_year="*", timezone=tz
    )
    return crontab


def _wanted(store: Store) -> tuple[str, str, str]:
    return str(store.report_time.minute), str(store.report_time.hour), str(store.timezone)


def _current(task: PeriodicTask) -> tuple[str, str, str] | None:
    crontab = task.crontab
    if crontab is None or task.task != TASK or not task.enabled:
        return None
    return crontab.minute, crontab.hour, str(crontab.timezone)


def _apply(store: Store, task: PeriodicTask | None) -> str:
    """Create or correct one store's schedule; returns what happened ("created", "updated", "")."""
    if task is not None and _current(task) == _wanted(store):
        return ""
    crontab = _crontab(hour=store.report_time.hour, minute=store.report_time.minute, tz=str(store.timezone))
    fields = {
        "task": TASK, "crontab": crontab, "interval": None, "kwargs": json.dumps({"store_id": store.pk}),
        "enabled": True, "description": f"Daily sales and inventory reports of {store.name}",
    }
    if task is None:
        PeriodicTask.objects.create(name=schedule_name(store.pk), **fields)
        return "created"
    for name, value in fields.items():
        setattr(task, name, value)
    task.save()
    return "updated"


def store_schedule_sync(*, store: Store) -> PeriodicTask:
    """Make ``store``'s daily report schedule match its report time and time zone; returns it."""
    with transaction.atomic():
        task = PeriodicTask.objects.select_related("crontab").filter(name=schedule_name(store.pk)).first()
        _apply(store, task)
    return PeriodicTask.objects.get(name=schedule_name(store.pk))


def report_schedules_sync() -> SyncCount:
    """Every store gets exactly its schedule: missing ones created, stale ones corrected, orphans deleted."""
    stores = {store.pk: store for store in Store.objects.only("id", "name", "timezone", "report_time")}
    tasks = {task.name: task for task in PeriodicTask.objects.select_related("crontab").filter(name__startswith=PREFIX)}
    created = updated = 0
    with transaction.atomic():
        for store in stores.values():
            outcome = _apply(store, tasks.pop(schedule_name(store.pk), None))
            created += outcome == "created"
            updated += outcome == "updated"
        orphans = [task.pk for task in tasks.values()]
        for task in PeriodicTask.objects.filter(pk__in=orphans):
            task.delete()  # one by one: beat notices deletions through the model's delete()
    count = SyncCount(created=created, updated=updated, deleted=len(orphans))
    if count != SyncCount():
        logger.info("Report schedules: %s created, %s updated, %s deleted", count.created, count.updated, count.deleted)
    return count
