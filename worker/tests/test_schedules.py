"""Each store's daily report schedule: one per store, at its time in its zone, kept in line."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest
from django_celery_beat.models import PeriodicTask, PeriodicTasks

from tenants.services import store_delete
from worker.schedules import (
    TASK,
    SyncCount,
    report_schedules_sync,
    schedule_name,
    store_schedule_sync,
)
from worker.tasks import report_schedules_sync_task

pytestmark = pytest.mark.django_db


def _schedules():
    return {
        task.name: (task.task, json.loads(task.kwargs), task.crontab.hour, task.crontab.minute, str(task.crontab.timezone))
        for task in PeriodicTask.objects.select_related("crontab").filter(name__startswith="daily-reports:")
    }


def test_every_store_gets_one_schedule_at_its_report_time_in_its_own_zone(store, other_store):
    other_store.timezone, other_store.report_time = "Asia/Kolkata", dt.time(20, 45)
    other_store.save()

    assert report_schedules_sync_task.delay().get() == {"created": 2, "updated": 0, "deleted": 0}

    assert _schedules() == {
        schedule_name(store.pk): (TASK, {"store_id": store.pk}, "21", "0", "America/Chicago"),
        schedule_name(other_store.pk): (TASK, {"store_id": other_store.pk}, "20", "45", "Asia/Kolkata"),
    }


def test_syncing_again_changes_nothing_so_beat_does_not_reload(store, other_store):
    report_schedules_sync()
    last_change = PeriodicTasks.last_change()

    assert report_schedules_sync_task.delay().get() == {"created": 0, "updated": 0, "deleted": 0}
    assert PeriodicTasks.last_change() == last_change


def test_a_new_report_time_or_zone_moves_the_schedule_and_a_deleted_store_loses_it(store, other_store):
    report_schedules_sync()
    store.report_time, store.timezone = dt.time(7, 30), "Europe/London"
    store.save()
    store_delete(store=other_store, actor="user:1")

    assert report_schedules_sync() == SyncCount(created=0, updated=1, deleted=1)
    assert _schedules() == {schedule_name(store.pk): (TASK, {"store_id": store.pk}, "7", "30", "Europe/London")}


def test_one_store_can_be_synced_at_once_after_its_settings_change(store):
    store.report_time = dt.time(6, 5)
    task = store_schedule_sync(store=store)

    assert (task.crontab.hour, task.crontab.minute, task.enabled) == ("6", "5", True)
    assert store_schedule_sync(store=store).pk == task.pk  # the same row, not a second schedule


def test_the_schedule_is_due_at_the_report_time_in_the_stores_zone_not_utc(store):
    store.timezone, store.report_time = "Asia/Kolkata", dt.time(21, 0)
    schedule = store_schedule_sync(store=store).crontab.schedule
    kolkata = ZoneInfo("Asia/Kolkata")
    yesterday = dt.datetime(2026, 3, 2, 21, 0, tzinfo=kolkata)

    schedule.nowfun = lambda: dt.datetime(2026, 3, 3, 15, 29, tzinfo=dt.UTC)  # 20:59 in Kolkata
    assert schedule.is_due(yesterday).is_due is False
    schedule.nowfun = lambda: dt.datetime(2026, 3, 3, 15, 30, 30, tzinfo=dt.UTC)  # 21:00:30 in Kolkata
    assert schedule.is_due(yesterday).is_due is True
