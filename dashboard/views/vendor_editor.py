"""The vendor portal's pack editor: a new pack from a bundled template, and a version's files edited in the page.

Every save is validated whole; a refused one lists every problem (file, path, reason), answers 400
and stores nothing. A draft is saved in place; a published version never changes, so editing it
saves the next version's draft. A vendor edits only the business types they created (another's,
or the platform's, is a 404); store owners get the portal's 403.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from dashboard.pack_forms import PackNewForm
from dashboard.views.vendor_packs import _manager, _vendor_or_admin
from packs.drafting import manifest_problems, manifest_with, pack_files_edited, pack_from_template
from packs.errors import PackInvalid, Problem
from packs.services import pack_install
from packs.source import MANIFEST, MAX_FILE_BYTES, PackFiles
from packs.validate import pack_validate
from tenants.models import PackVersion

MAX_UPLOAD_BYTES = MAX_FILE_BYTES


@require_http_methods(["GET", "POST"])
def new(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST: copy a bundled pack under a new slug and name, store it as draft 1, open the editor."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    form = PackNewForm(request.POST if request.method == "POST" else None)
    problems: list[Problem] = []
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            pack = pack_validate(pack_from_template(template=data["template"], slug=data["slug"], name=data["name"]))
            version = pack_install(pack=pack, actor=f"vendor:{request.user.pk}", vendor=_manager(request))
        except PackInvalid as exc:
            problems = exc.problems
        else:
            return redirect(reverse("vendor:edit", args=[version.business_type.slug, version.version]) + "?created=1")
    return render(request, "dashboard/vendor/pack_new.html", {
        "section": "vendors", "form": form, "problems": problems,
    }, status=400 if form.is_bound else 200)


def _managed(request: HttpRequest, slug: str, version: int) -> PackVersion:
    """The version, if the request's user may edit its business type (else 404: nothing to learn by guessing)."""
    manager = _manager(request)
    found = PackVersion.objects.select_related("business_type").filter(
        business_type__slug=slug, version=version).first()
    if found is None or (manager is not None and found.business_type.vendor_id != manager.pk):
        raise Http404("No such pack version that you manage.")
    return found


def _target(found: PackVersion) -> tuple[int, PackVersion | None]:
    """The version a save writes (the draft itself, or the next after a published one) and a newer draft, if any."""
    if found.status == PackVersion.Status.DRAFT:
        return found.version, None
    newer = (PackVersion.objects.filter(business_type=found.business_type, version__gt=found.version,
                                        status=PackVersion.Status.DRAFT).order_by("-version").first())
    top = PackVersion.objects.filter(business_type=found.business_type).aggregate(top=Max("version"))["top"]
    return (newer.version if newer else top + 1), newer


def _shown(found: PackVersion, target: int) -> dict[str, str]:
    files = dict(found.files)
    if target != found.version and MANIFEST in files:
        files[MANIFEST] = manifest_with(files[MANIFEST], version=target)
    return files


def _posted(request: HttpRequest, shown: dict[str, str], origin: str) -> tuple[PackFiles | None, list[Problem]]:
    """The edited files from the form (textareas ``file:<path>``, uploads ``upload:<path>``, a new file, removals)."""
    try:
        post, uploads = request.POST, request.FILES
    except RequestDataTooBig:
        limit = filesizeformat(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return None, [Problem("", "", f"the edited text is larger than {limit} in all; upload a big file instead "
                                      "of typing it")]
    problems: list[Problem] = []
    texts = {key.removeprefix("file:"): value for key, value in post.items() if key.startswith("file:")}
    files: dict[str, bytes] = {}
    new_path = post.get("new_path", "").strip()
    named = [(key.removeprefix("upload:"), upload) for key, upload in uploads.items() if key.startswith("upload:")]
    if new_path:
        if "new_upload" in uploads:
            named.append((new_path, uploads["new_upload"]))
        else:
            texts[new_path] = post.get("new_text", "")
    for name, upload in named:
        if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
            problems.append(Problem(name, "", f"larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB"))
            continue
        files[name] = upload.read()
    edited = pack_files_edited(current=shown, texts=texts, uploads=files, remove=post.getlist("remove"), origin=origin)
    return edited, problems


@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """GET: the version's files, one textarea each. POST: validate the edited pack and store it as the target draft."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    found = _managed(request, slug, version)
    target, newer = _target(found)
    shown = _shown(found, target)
    context: dict[str, Any] = {"section": "vendors", "version": found, "target": target, "newer": newer,
                               "created": request.GET.get("created"), "saved": request.GET.get("saved")}
    if newer is not None:  # the next draft exists: edit it there, not from the published one
        return render(request, "dashboard/vendor/pack_edit.html", {**context, "files": []},
                      status=400 if request.method == "POST" else 200)
    if request.method == "GET":
        return render(request, "dashboard/vendor/pack_edit.html", {**context, "files": sorted(shown.items())})
    edited, problems = _posted(request, shown, origin=f"{slug} {target}")
    if edited is not None:
        problems += manifest_problems(edited, slug=slug, version=target)
        try:
            pack = pack_validate(edited)
        except PackInvalid as exc:
            problems += exc.problems
        if not problems:
            try:
                saved = pack_install(pack=pack, actor=f"vendor:{request.user.pk}", vendor=_manager(request))
            except PackInvalid as exc:
                problems += exc.problems
            else:
                return redirect(reverse("vendor:edit", args=[slug, saved.version]) + "?saved=1")
    typed = {**shown, **(dict(edited.files) if edited is not None else {})}
    return render(request, "dashboard/vendor/pack_edit.html", {
        **context, "files": sorted(typed.items()), "problems": sorted(set(problems)),
        "new_path": request.POST.get("new_path", "") if edited is not None else "",
    }, status=400)
