"""Each task goes to the queue whose workers can run it: turns to the model-holding workers,
imports to their own queue, benchmark runs apart from owners' turns, the rest to jobs."""

from __future__ import annotations

import pytest

from shelfwise.celery import app


@pytest.mark.parametrize(("task", "queue"), [
    ("worker.tasks.turn_task", "turns"),
    ("worker.tasks.speech_partial_task", "turns"),
    ("worker.tasks.daily_reports_task", "jobs"),
    ("worker.tasks.report_email_task", "jobs"),
    ("worker.tasks.drafts_expire_task", "jobs"),
    ("ledger.tasks.catalog_import_preview_task", "imports"),
    ("ledger.tasks.catalog_import_apply_task", "imports"),
    ("lab.benchmark_run", "bench"),
])
def test_each_task_is_routed_to_the_queue_of_the_workers_that_run_it(task, queue):
    app.loader.import_default_modules()  # what a worker does at start: every app's tasks.py
    assert task in app.tasks
    assert app.amqp.router.route({}, task)["queue"].name == queue
