"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in each app's ``tasks.py``.

With no broker configured, settings make tasks run eagerly in-process (``CELERY_TASK_ALWAYS_EAGER``).
Store work goes through ``worker.base.store_task``, which runs a task inside its store's context.
Queues and routes: ``CELERY_TASK_ROUTES`` in settings (turns, jobs, imports, bench).
"""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import beat_init, worker_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")

logger = logging.getLogger(__name__)

app = Celery("shelfwise")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

TURNS_QUEUE = "turns"


@worker_init.connect
@beat_init.connect
def _check_settings_at_start(sender=None, **kwargs) -> None:
    """A worker or beat with a bad setting stops at start with the check's id (``shelfwise.startup``)."""
    from shelfwise.startup import check_at_start

    check_at_start("worker")


@beat_init.connect
def _report_schedules_at_start(sender=None, **kwargs) -> None:
    """Beat starts with every store's daily report schedule in place (then every five minutes)."""
    try:
        from worker.schedules import report_schedules_sync

        report_schedules_sync()
    except Exception:  # the database may still be starting: the periodic sync catches up
        logger.exception("Report schedules could not be synced at beat start")


@worker_ready.connect
def _warm_up_turn_worker(sender=None, **kwargs) -> None:
    """A worker that takes turns loads its models before the first one (``SHELFWISE_WARM_UP=1``)."""
    from shelfwise.env import env_bool

    queues = {queue.name for queue in getattr(getattr(sender, "app", app).amqp, "queues", {}).values()}
    consumer = getattr(sender, "consumer", None)
    if consumer is not None and getattr(consumer, "task_consumer", None) is not None:
        queues = {queue.name for queue in consumer.task_consumer.queues}
    if env_bool("SHELFWISE_WARM_UP", False) and TURNS_QUEUE in queues:
        from assistant.warmup import warm_up_in_background

        warm_up_in_background()
