"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in each app's ``tasks.py``.

With no broker configured, settings make tasks run eagerly in-process (``CELERY_TASK_ALWAYS_EAGER``).
Store work goes through ``worker.base.store_task``, which runs a task inside its store's context.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")

app = Celery("shelfwise")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
