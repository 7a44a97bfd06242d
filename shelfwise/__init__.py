# The Celery app is loaded with Django so that @shared_task (and worker.base.store_task) bind to it.
from shelfwise.celery import app as celery_app

__all__ = ("celery_app",)
