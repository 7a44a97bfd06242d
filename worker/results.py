"""Celery's result backend in the database, riding out a database that refuses for a moment.

With ``CELERY_TASK_TRACK_STARTED`` the worker records a task as started *before* its body runs.
django-celery-results retries only ``InterfaceError`` ("connection already closed"), so while
PostgreSQL refused connections (a restart; measured with ``scripts/faults.py``) that write raised
``OperationalError`` outside the task body: the task failed without running, its own retry policy
never applied, and every store's daily reports due in those seconds were never sent. Here a
connection error is safe to retry too (with a fresh connection); the retries are bounded by
``CELERY_RESULT_BACKEND_MAX_RETRIES`` and the sleeps between them (settings).
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError, connection
from django_celery_results.backends.database import DatabaseBackend


class ResilientDatabaseBackend(DatabaseBackend):
    def exception_safe_to_retry(self, exc: BaseException) -> bool:
        if isinstance(exc, OperationalError | InterfaceError):
            connection.close()  # the next try connects afresh
            return True
        return super().exception_safe_to_retry(exc)
