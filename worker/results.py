"""Celery's result backend in the database: only the worker's login role touches it, and it rides
out a database that refuses for a moment.

*Who reads task results.* ``TaskResult`` (and django-celery-results' group and chord rows) has no
store column, yet a task's arguments and result name a store's ids. So it is not fenced per store
but closed to the application: ``tenants.rls`` revokes the app role's privileges on these tables
(``RLS_WORKER_ONLY_APPS``; ``tenants.E006`` reports a grant), and this backend runs each of its
statements as the login role (``tenants.rls.bypass()``), as the Django admin's "Task results"
page does. Request, MCP and assistant code cannot read them; nothing in Shelfwise asks a task
for its result through Celery (turns and reports keep their own fenced rows in ``worker.models``).

*Retries.* With ``CELERY_TASK_TRACK_STARTED`` the worker records a task as started *before* its
body runs. django-celery-results retries only ``InterfaceError`` ("connection already closed"),
so while PostgreSQL refused connections (a restart; measured with ``scripts/faults.py``) that
write raised ``OperationalError`` outside the task body: the task failed without running, its own
retry policy never applied, and every store's daily reports due in those seconds were never sent.
Here a connection error is safe to retry too (with a fresh connection); the retries are bounded
by ``CELERY_RESULT_BACKEND_MAX_RETRIES`` and the sleeps between them (settings).
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError, connection
from django_celery_results.backends.database import DatabaseBackend

from tenants.rls import bypass


class ResilientDatabaseBackend(DatabaseBackend):
    def exception_safe_to_retry(self, exc: BaseException) -> bool:
        if isinstance(exc, OperationalError | InterfaceError):
            connection.close()  # the next try connects afresh
            return True
        return super().exception_safe_to_retry(exc)

    # Every method of DatabaseBackend that sends SQL, each as the login role (see the module's doc).

    def _store_result(self, *args, **kwargs):
        with bypass():
            return super()._store_result(*args, **kwargs)

    def _get_task_meta_for(self, task_id):
        with bypass():
            return super()._get_task_meta_for(task_id)

    def _forget(self, task_id):
        with bypass():
            return super()._forget(task_id)

    def cleanup(self):
        with bypass():
            return super().cleanup()

    def _restore_group(self, group_id):
        with bypass():
            return super()._restore_group(group_id)

    def _save_group(self, group_id, group_result):
        with bypass():
            return super()._save_group(group_id, group_result)

    def _delete_group(self, group_id):
        with bypass():
            return super()._delete_group(group_id)

    def apply_chord(self, header_result_args, body, **kwargs):
        with bypass():
            return super().apply_chord(header_result_args, body, **kwargs)

    def on_chord_part_return(self, request, state, result, **kwargs):
        with bypass():
            return super().on_chord_part_return(request, state, result, **kwargs)
