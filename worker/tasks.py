"""Celery tasks (found by ``app.autodiscover_tasks()``). Store work: ``worker.base.store_task``."""
