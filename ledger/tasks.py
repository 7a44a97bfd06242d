"""Celery tasks of the ledger: catalog and stock-count imports (preview, then apply).

Each takes the store (``worker.base.store_task``) and the import's id, and calls one service.
They are queued by ``ledger.services.imports`` once the request that asked for them commits.
"""

from __future__ import annotations

from ledger.services import imports
from worker.base import store_task


@store_task
def catalog_import_preview_task(store, *, import_id: int) -> str | None:
    """Plan every row of an uploaded catalog or stock-count file."""
    job = imports.import_preview(store=store, import_id=import_id)
    return job.status if job is not None else None


@store_task
def catalog_import_apply_task(store, *, import_id: int) -> str | None:
    """Apply a previewed import in one transaction."""
    job = imports.import_apply(store=store, import_id=import_id)
    return job.status if job is not None else None
