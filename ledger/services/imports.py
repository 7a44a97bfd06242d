"""Catalog and opening-stock imports as jobs: upload, preview (a Celery task), apply (another).

``import_create`` keeps the uploaded file and, once that commits, queues the preview;
``import_apply_request`` checks the preview can be applied and queues the apply. Both tasks
report progress in the cache (``import_progress``) for the page's progress bar. The apply runs
in one transaction: a conflict or any failure writes nothing of the file and the job says why.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ledger import catalog_csv
from ledger.errors import InvalidInput, InvalidTransition, LedgerError, NotFound
from ledger.models import CatalogImport
from ledger.scope import store_scope
from ledger.selectors import row_id
from ledger.services import checks
from ledger.services.catalog_plan import (
    CHANGE,
    CREATE,
    REJECT,
    UNCHANGED,
    catalog_apply,
    catalog_plan,
)
from ledger.services.stock_plan import stock_apply, stock_plan
from tenants.models import Store

logger = logging.getLogger(__name__)

PROGRESS_TTL_S = 3600


def _progress_key(job_id: int) -> str:
    return f"ledger:import:{job_id}:progress"


def _report(job: CatalogImport, phase: str, total: int):
    def report(done: int) -> None:
        cache.set(_progress_key(job.pk), {"phase": phase, "done": done, "total": total}, PROGRESS_TTL_S)

    report(0)
    return report


def import_progress(*, job: CatalogImport) -> dict[str, Any]:
    """How far the job's current step is: phase, rows done and total, and the percentage."""
    state = cache.get(_progress_key(job.pk)) or {}
    total = state.get("total") or job.rows or 0
    done = state.get("done", 0)
    if job.status in (CatalogImport.Status.PREVIEWED, CatalogImport.Status.APPLIED, CatalogImport.Status.FAILED):
        done = total
    percent = 100 if not total else min(100, round(100 * done / total))
    return {"status": job.status, "phase": state.get("phase", ""), "done": done, "total": total, "percent": percent}


def import_get(*, store: Store, import_id: int | str) -> CatalogImport:
    """The store's import job with that id.

    Raises:
        NotFound: no such import in this store.
    """
    pk = row_id(import_id, "import")
    with store_scope(store, what="import"):
        job = CatalogImport.objects.filter(store=store, pk=pk).first()
    if job is None:
        raise NotFound("import")
    return job


def import_create(*, store: Store, kind: str, filename: str, content: bytes, actor: str) -> CatalogImport:
    """Keep an uploaded catalog or stock-count CSV and queue its preview (after this commits).

    Raises:
        InvalidInput: an unknown kind, or a file that is empty, too large, binary or not UTF-8.
    """
    actor = checks.actor_of(actor)
    if kind not in CatalogImport.Kind.values:
        raise InvalidInput(_("Import a catalog or an opening stock count."))
    text = catalog_csv.decode(content)
    name = checks.text(filename or "upload.csv", what="file name", max_length=200)
    with store_scope(store, what="import"), transaction.atomic():
        job = CatalogImport.objects.create(
            store=store, kind=kind, filename=name, content=text, digest=hashlib.sha256(content).hexdigest(),
            actor=actor, created_at=timezone.now(),
        )
        _enqueue("preview", job)
    return job


def _enqueue(step: str, job: CatalogImport, **kwargs: Any) -> None:
    from ledger import tasks

    task = tasks.catalog_import_preview_task if step == "preview" else tasks.catalog_import_apply_task
    store_id, job_id = job.store_id, job.pk
    transaction.on_commit(lambda: task.delay(store_id=store_id, import_id=job_id, **kwargs))


def import_preview_request(*, store: Store, import_id: int | str) -> CatalogImport:
    """Queue a fresh preview of an import that was previewed or failed (the catalog may have changed).

    Raises:
        NotFound: no such import in this store.
        InvalidTransition: it is being previewed or applied, or was applied.
    """
    with store_scope(store, what="import"), transaction.atomic():
        job = CatalogImport.objects.select_for_update().filter(store=store, pk=row_id(import_id, "import")).first()
        if job is None:
            raise NotFound("import")
        if job.status not in (CatalogImport.Status.PREVIEWED, CatalogImport.Status.FAILED):
            raise InvalidTransition(_("This import is %(status)s; it cannot be previewed again.")
                                    % {"status": job.get_status_display().lower()}, status=job.status)
        job.status = CatalogImport.Status.UPLOADED
        job.save(update_fields=["status"])
        _enqueue("preview", job)
    return job


def _counts(plan: list[dict[str, Any]]) -> dict[str, int]:
    tally = {CREATE: 0, CHANGE: 0, UNCHANGED: 0, REJECT: 0}
    for item in plan:
        tally[item["status"]] += 1
    return {"created": tally[CREATE], "changed": tally[CHANGE], "unchanged": tally[UNCHANGED], "rejected": tally[REJECT]}


def _task_row_id(import_id: Any) -> int | None:
    """A task's import id, or None when it is not one (a forged message: nothing to do)."""
    try:
        return row_id(import_id, "import")
    except NotFound:
        return None


def _claim(store: Store, import_id: int, *, expected: str, next_status: str) -> CatalogImport | None:
    """Move the job from ``expected`` to ``next_status`` (committed at once), or None if it is not there."""
    with transaction.atomic():
        job = CatalogImport.objects.select_for_update().filter(store=store, pk=import_id).first()
        if job is None or job.status != expected:
            return None
        job.status = next_status
        job.save(update_fields=["status"])
    return job


def _fail(job: CatalogImport, message: str) -> CatalogImport:
    job.status, job.error = CatalogImport.Status.FAILED, message
    job.save(update_fields=["status", "error"])
    return job


def import_preview(*, store: Store, import_id: int) -> CatalogImport | None:
    """Plan every row of the file (the preview task's work); a file-level problem fails the job with its reason."""
    pk = _task_row_id(import_id)
    if pk is None:
        return None
    with store_scope(store, what="import"):
        job = _claim(store, pk, expected=CatalogImport.Status.UPLOADED, next_status=CatalogImport.Status.PREVIEWING)
        if job is None:
            return None
        try:
            table = catalog_csv.read(job.content)
            job.rows = len(table.records)
            report = _report(job, "preview", job.rows)
            planner = catalog_plan if job.kind == CatalogImport.Kind.CATALOG else stock_plan
            plan = planner(store=store, table=table, progress=report)
        except InvalidInput as exc:
            return _fail(job, exc.message)
        except Exception:
            logger.exception("Preview of import %s failed", job.pk)
            return _fail(job, _("Something went wrong on our side and nothing was imported. Please try again."))
        report(job.rows)
        for field, value in _counts(plan).items():
            setattr(job, field, value)
        job.plan, job.error = plan, ""
        job.status, job.previewed_at = CatalogImport.Status.PREVIEWED, timezone.now()
        job.save()
    return job


def import_apply_request(*, store: Store, import_id: int | str, actor: str) -> CatalogImport:
    """Queue the apply of a previewed import with no rejected rows.

    Raises:
        NotFound: no such import in this store.
        InvalidTransition: not previewed (or already applied), or some rows were rejected.
    """
    actor = checks.actor_of(actor)
    with store_scope(store, what="import"), transaction.atomic():
        job = CatalogImport.objects.select_for_update().filter(store=store, pk=row_id(import_id, "import")).first()
        if job is None:
            raise NotFound("import")
        if job.status != CatalogImport.Status.PREVIEWED:
            raise InvalidTransition(_("This import is %(status)s, so it cannot be applied.")
                                    % {"status": job.get_status_display().lower()}, status=job.status)
        if job.rejected:
            raise InvalidTransition(_("%(n)s rows were rejected. Fix them in the file and upload it again; nothing was "
                                      "imported.") % {"n": job.rejected}, status=job.status)
        job.status, job.applied_by = CatalogImport.Status.APPLYING, actor
        job.save(update_fields=["status", "applied_by"])
        _enqueue("apply", job)
    return job


def import_apply(*, store: Store, import_id: int) -> CatalogImport | None:
    """Apply a queued import in one transaction (the apply task's work); a conflict fails the job, writing nothing."""
    pk = _task_row_id(import_id)
    if pk is None:
        return None
    with store_scope(store, what="import"):
        job = CatalogImport.objects.filter(store=store, pk=pk, status=CatalogImport.Status.APPLYING).first()
        if job is None:
            return None
        report = _report(job, "apply", job.created + job.changed)
        try:
            with transaction.atomic():
                if job.kind == CatalogImport.Kind.CATALOG:
                    catalog_apply(store=store, plan=job.plan, progress=report)
                else:
                    stock_apply(store=store, plan=job.plan, actor=job.applied_by or job.actor, progress=report)
                job.status, job.applied_at, job.error = CatalogImport.Status.APPLIED, timezone.now(), ""
                job.save(update_fields=["status", "applied_at", "error"])
        except LedgerError as exc:
            return _fail(job, exc.message)
        except Exception:
            logger.exception("Apply of import %s failed", job.pk)
            return _fail(job, _("Something went wrong on our side and nothing was imported. Please try again."))
    return job
