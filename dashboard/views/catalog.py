"""The catalog pages: add, edit, archive and restore products, shelf photos, CSV import and export.

Only the store's owner changes the catalog (staff see a short refusal); every write goes through
``ledger.services``, whose errors name the field and go back onto the form. An edit carries the
version the page showed, so two people editing one product cannot overwrite each other.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.catalog_forms import ImportForm, PhotoForm, ProductForm
from dashboard.views.owner import (
    _actor,
    _is_owner,
    _product_or_404,
    _wants_json,
    workspace_view,
)
from ledger import catalog_csv, selectors, services
from ledger.errors import EditConflict, LedgerError, NotFound
from ledger.models import CatalogImport, Product
from ledger.services.imports import import_get, import_progress
from ledger.services.product_fields import ALIAS_SEPARATOR, COLUMNS, InvalidField

PREVIEW_PAGE = 100


def owner_only(view):
    """The store's owner only; staff get a short sentence and a 403."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not _is_owner(request):
            message = "Only the store's owner can change the catalog or import files."
            if _wants_json(request):
                return JsonResponse({"ok": False, "message": message}, status=403)
            return render(request, "dashboard/forbidden.html", {"section": "inventory", "message": message}, status=403)
        return view(request, *args, **kwargs)

    return wrapper


def _initial(product: Product) -> dict[str, Any]:
    initial = {field: getattr(product, field) for field in ProductForm.FIELD_ORDER}
    initial["aliases"] = f" {ALIAS_SEPARATOR} ".join(product.aliases or [])
    initial["version"] = product.version
    return initial


def _form_page(request: HttpRequest, form: ProductForm, product: Product | None, status: int = 200) -> HttpResponse:
    return render(request, "dashboard/product_form.html",
                  {"section": "inventory", "form": form, "product": product}, status=status)


def _field_error(form: ProductForm, exc: LedgerError) -> None:
    field = exc.field if isinstance(exc, InvalidField) and exc.field in form.fields else None
    form.add_error(field, exc.reason if field else exc.message)


@require_http_methods(["GET", "POST"])
@workspace_view
@owner_only
def product_new(request: HttpRequest) -> HttpResponse:
    """Add a product with its opening stock."""
    form = ProductForm(request.POST or None, initial={"pack_size": 1, "unit_cost": 0, "par_level": 0, "reorder_point": 0})
    if request.method == "POST" and form.is_valid():
        try:
            product = services.product_create(
                store=request.store, actor=_actor(request), stock=form.cleaned_data["stock"] or 0, **form.values()
            )
        except LedgerError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, f"{product.name} (SKU {product.sku}) is in the catalog.")
            return redirect("owner:product", product.pk)
    return _form_page(request, form, None, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@workspace_view
@owner_only
def product_edit(request: HttpRequest, product_id: int) -> HttpResponse:
    """Edit a product's fields over the version the page showed; a concurrent edit is a conflict."""
    product = _product_or_404(request.store, product_id)
    form = ProductForm(request.POST or None, initial=_initial(product))
    if request.method == "POST" and form.is_valid():
        try:
            product = services.product_update(store=request.store, product=product, actor=_actor(request),
                                              version=form.cleaned_data["version"] or 0, **form.values())
        except EditConflict as exc:
            messages.error(request, exc.message)
            fresh = _product_or_404(request.store, product_id)
            return _form_page(request, ProductForm(initial=_initial(fresh)), fresh, status=409)
        except LedgerError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, f"{product.name} is saved.")
            return redirect("owner:product", product.pk)
    return _form_page(request, form, product, status=400 if form.errors else 200)


@require_POST
@workspace_view
@owner_only
def product_active(request: HttpRequest, product_id: int, *, active: bool) -> HttpResponse:
    """Archive (or restore) a product: it leaves the assistant, the shelf finder and reports; history stays."""
    product = _product_or_404(request.store, product_id)
    change = services.product_restore if active else services.product_archive
    change(store=request.store, product=product, actor=_actor(request))
    messages.success(request, f"{product.name} is {'back in the catalog' if active else 'archived; its history stays'}.")
    return redirect("owner:product", product.pk)


@require_POST
@workspace_view
@owner_only
def product_photo(request: HttpRequest, product_id: int) -> HttpResponse:
    """Replace the shelf photo; a bad file is a clear error and the old photo stays."""
    product = _product_or_404(request.store, product_id)
    form = PhotoForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a photo to upload (JPEG, PNG or WebP).")
        return redirect("owner:product", product.pk)
    upload = form.cleaned_data["photo"]
    if upload.size > 5 * 1024 * 1024:
        messages.error(request, "The photo is larger than 5 MB; use a smaller one. The old photo stays.")
        return redirect("owner:product", product.pk)
    try:
        services.product_photo_set(store=request.store, product=product, content=upload.read(), filename=upload.name)
    except LedgerError as exc:
        messages.error(request, f"{exc.message} The old photo stays.")
    else:
        messages.success(request, f"The shelf photo of {product.name} is updated.")
    return redirect("owner:product", product.pk)


# ---------------------------------------------------------------------------------------------
# CSV import and export


@require_http_methods(["GET", "POST"])
@workspace_view
@owner_only
def catalog_import(request: HttpRequest) -> HttpResponse:
    """Upload a catalog or opening-stock CSV; its preview runs as a job and opens on the next page."""
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            job = services.import_create(store=request.store, kind=form.cleaned_data["kind"], filename=upload.name,
                                         content=upload.read(), actor=_actor(request))
        except LedgerError as exc:
            form.add_error("file", exc.message)
        else:
            return redirect("owner:import", job.pk)
    with_store = CatalogImport.objects.filter(store=request.store).defer("content", "plan")[:10]
    return render(request, "dashboard/catalog_import.html",
                  {"section": "inventory", "form": form, "columns": COLUMNS, "imports": list(with_store)},
                  status=400 if form.errors else 200)


def _job_or_404(request: HttpRequest, import_id: int) -> CatalogImport:
    try:
        return import_get(store=request.store, import_id=import_id)
    except NotFound:
        from django.http import Http404

        raise Http404("Import not found.") from None


@require_GET
@workspace_view
@owner_only
def import_detail(request: HttpRequest, import_id: int) -> HttpResponse:
    """The job's progress bar, then its preview: rejected rows first, each with column and reason."""
    job = _job_or_404(request, import_id)
    progress = import_progress(job=job)
    if _wants_json(request):
        return JsonResponse(progress)
    show = request.GET.get("show", "problems" if job.rejected else "all")
    rows = [row for row in job.plan if show != "problems" or row["status"] == "reject"] if job.plan else []
    return render(request, "dashboard/import_detail.html", {
        "section": "inventory", "job": job, "progress": progress, "rows": rows[:PREVIEW_PAGE], "more": max(0, len(rows) - PREVIEW_PAGE),
        "show": show, "running": job.status in (CatalogImport.Status.UPLOADED, CatalogImport.Status.PREVIEWING,
                                                 CatalogImport.Status.APPLYING),
    })


@require_POST
@workspace_view
@owner_only
def import_apply(request: HttpRequest, import_id: int) -> HttpResponse:
    job = _job_or_404(request, import_id)
    try:
        services.import_apply_request(store=request.store, import_id=job.pk, actor=_actor(request))
    except LedgerError as exc:
        messages.error(request, exc.message)
    return redirect("owner:import", job.pk)


@require_POST
@workspace_view
@owner_only
def import_repreview(request: HttpRequest, import_id: int) -> HttpResponse:
    job = _job_or_404(request, import_id)
    try:
        services.import_preview_request(store=request.store, import_id=job.pk)
    except LedgerError as exc:
        messages.error(request, exc.message)
    return redirect("owner:import", job.pk)


@require_GET
@workspace_view
@owner_only
def catalog_export(request: HttpRequest) -> HttpResponse:
    """The whole catalog (archived products too) as a CSV with the import's columns."""
    products = selectors.product_list(store=request.store, active=None)
    rows = []
    for product in products:
        values = {field: getattr(product, field) for field in COLUMNS}
        values["aliases"] = ALIAS_SEPARATOR.join(product.aliases or [])
        values["active"] = "true" if product.active else "false"
        rows.append([values[field] for field in COLUMNS])
    response = HttpResponse(catalog_csv.write(COLUMNS, rows), content_type="text/csv; charset=utf-8")
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="{request.store.slug}-catalog-{stamp}.csv"'
    return response


def import_url(job: CatalogImport) -> str:
    return reverse("owner:import", args=[job.pk])
