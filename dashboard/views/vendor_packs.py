"""The vendor portal: upload a pack (a zip archive), see every problem with file, path and reason, publish a draft.

Vendors (``identity.vendor``) and platform admins only; a vendor manages the business types they
created, a platform admin any. Nothing here reads a store: the portal holds packs, not store data.
A refused upload stores nothing (the page lists its problems with status 400).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from identity.permissions import is_platform_admin, is_vendor
from packs.errors import PackInvalid, Problem
from packs.services import pack_install, pack_publish
from packs.source import MAX_PACK_BYTES, read_zip
from packs.validate import pack_validate
from tenants.models import BusinessType, PackVersion


def _vendor_or_admin(request: HttpRequest) -> HttpResponse | None:
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not (is_vendor(user) or is_platform_admin(user)):
        raise PermissionDenied("The pack portal is for vendors.")
    return None


def _manager(request: HttpRequest) -> Any:
    """The vendor whose types a request may change (None: a platform admin, who may change any)."""
    return None if is_platform_admin(request.user) else request.user


def _page(request: HttpRequest, *, problems: list[Problem] | None = None, origin: str = "",
          status: int = 200) -> HttpResponse:
    manager = _manager(request)
    kinds = BusinessType.objects.order_by("position", "name").prefetch_related("versions")
    rows = [{"type": kind, "versions": list(kind.versions.all()),
             "mine": manager is None or kind.vendor_id == manager.pk} for kind in kinds]
    return render(request, "dashboard/vendor/packs.html", {
        "section": "vendors", "rows": rows, "problems": problems, "origin": origin,
        "max_mb": MAX_PACK_BYTES // (1024 * 1024), "published": request.GET.get("published", ""),
        "installed": request.GET.get("installed", ""),
    }, status=status)


@require_http_methods(["GET", "POST"])
def packs(request: HttpRequest) -> HttpResponse:
    """GET: the types, their versions and the upload form. POST: validate and store an uploaded pack as a draft."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    if request.method == "GET":
        return _page(request)
    upload = request.FILES.get("pack")
    if upload is None:
        return _page(request, problems=[Problem("", "", "choose a .zip archive of the pack folder")], status=400)
    if upload.size is not None and upload.size > MAX_PACK_BYTES:
        return _page(request, problems=[Problem("", "", f"the archive is larger than {MAX_PACK_BYTES // (1024 * 1024)} MB")],
                     origin=upload.name or "", status=400)
    try:
        pack = pack_validate(read_zip(upload.read(), origin=upload.name or "upload"))
        version = pack_install(pack=pack, publish=False, actor=f"vendor:{request.user.pk}", vendor=_manager(request))
    except PackInvalid as exc:
        return _page(request, problems=exc.problems, origin=upload.name or "", status=400)
    return redirect(f"{request.path}?installed={version.business_type.slug}-{version.version}")


@require_POST
def publish(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """Publish a draft the vendor manages (it never changes after)."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    manager = _manager(request)
    draft = PackVersion.objects.select_related("business_type").filter(
        business_type__slug=slug, version=version).first()
    if draft is None or (manager is not None and draft.business_type.vendor_id != manager.pk):
        raise Http404("No such pack version that you manage.")
    try:
        pack_validate(read_zip_free(draft))  # published only as it validates today
    except PackInvalid as exc:
        return _page(request, problems=exc.problems, origin=f"{slug} {version}", status=400)
    pack_publish(version=draft)
    return redirect(f"/vendors/packs/?published={slug}-{version}")


CHARS_PER_TOKEN = 4  # a rough rule for English text; the page says it is an estimate
PREVIEW_SAY = "where is the first product"


@require_http_methods(["GET"])
def preview(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """The router prompt a version generates for its own sample catalog: what the model would read."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    manager = _manager(request)
    found = PackVersion.objects.select_related("business_type").filter(
        business_type__slug=slug, version=version).first()
    if found is None or (manager is not None and found.status == PackVersion.Status.DRAFT
                         and found.business_type.vendor_id != manager.pk):
        raise Http404("No such pack version that you may see.")
    messages = sample_messages(found, say=" ".join(request.GET.get("say", "").split())[:200])
    chars = sum(len(m["content"]) for m in messages)
    return render(request, "dashboard/vendor/pack_preview.html", {
        "section": "vendors", "version": found, "messages": messages, "chars": chars,
        "tokens": -(-chars // CHARS_PER_TOKEN),
        "may_evaluate": manager is None or found.business_type.vendor_id == manager.pk,
    })


def sample_messages(version: PackVersion, *, say: str = "") -> list[dict[str, str]]:
    """The router's messages for a store of this version holding its sample catalog, and one request.

    A sample catalog over ``FULL_CATALOG_LIMIT`` products is shown by its categories, as a big store's
    is; its first products stand in for the few a request's own words would pick at run time.
    """
    import csv
    import io

    from assistant.modes.router import prompt as prompts
    from packs.source import SAMPLE_CATALOG

    files = read_zip_free(version)
    pack = prompts.router_pack_of(files, key=version.business_type.slug)
    rows = list(csv.DictReader(io.StringIO(files.files.get(SAMPLE_CATALOG, ""))))
    lines = [row["name"] + (f" ({', '.join(a for a in row.get('aliases', '').split('|') if a)})"
                            if row.get("aliases") else "") for row in rows]
    if len(lines) > prompts.FULL_CATALOG_LIMIT:
        categories = sorted({row.get("category") or "Other" for row in rows})[:prompts.MAX_CATEGORIES]
        store = prompts.store_prompt(store_name="Sample store", owner="", catalog_size=len(lines), categories=categories)
        listed: list[str] | None = lines[:prompts.REQUEST_PRODUCTS]
    else:
        store = prompts.store_prompt(store_name="Sample store", owner="", products=lines)
        listed = None
    text = say or (f"where is the {rows[0]['name'].lower()}" if rows else PREVIEW_SAY)
    user = prompts.request_prompt(text=text, last_product="", last_action="", products=listed)
    return [{"role": "system", "content": prompts.static_prompt(pack) + store}, {"role": "user", "content": user}]


def read_zip_free(version: PackVersion):
    """A stored version's files as the validator reads them."""
    from packs.source import PackFiles, digest_of

    return PackFiles(files=dict(version.files), origin=f"{version.business_type.slug} {version.version}",
                     digest=digest_of(version.files))
