"""The vendor portal's pack evaluation: start it as a job, watch its progress, read its per-action results.

The job is the lab's (``lab.tasks.pack_eval_task``: the version's suites in router mode, three runs
each, and its routing set, on throwaway stores of its own sample catalog, as ``manage.py pack eval``
does). A vendor starts and sees the jobs of the business types they created only; a platform admin
any. A deployment without the lab app has no evaluation (404).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from dashboard.views.vendor_packs import _manager, _vendor_or_admin
from tenants.models import PackVersion

POLL_S = 2


def _lab() -> Any:
    if not apps.is_installed("lab"):
        raise Http404("Pack evaluations run where the lab app is installed.")
    from lab import tasks

    return tasks


def _own_version(request: HttpRequest, **lookup: Any) -> PackVersion:
    """A version of a business type the requester manages (the same 404 for another vendor's and a missing one)."""
    manager = _manager(request)
    found = PackVersion.objects.select_related("business_type").filter(**lookup).first()
    if found is None or (manager is not None and found.business_type.vendor_id != manager.pk):
        raise Http404("No such pack version that you manage.")
    return found


@require_POST
def start(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """Queue the evaluation of a version the vendor manages (``runs``, default 3; ``limit``: a smoke run), then show its progress."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    found = _own_version(request, business_type__slug=slug, version=version)
    lab = _lab()
    try:
        runs, limit = _whole(request.POST.get("runs"), lab.PACK_RUNS), _whole(request.POST.get("limit"), None)
        job = lab.pack_eval_start(version_id=found.pk, runs=runs, limit=limit)
    except (lab.BenchStartError, ValueError) as exc:  # nothing started: say why, on the job's own page
        return render(request, "dashboard/vendor/pack_eval.html", {
            "section": "vendors", "version": found, "progress": {"state": "refused", "error": str(exc)},
        }, status=400)
    return redirect("vendor:eval", job=job)


def _whole(value: str | None, default: int | None) -> int | None:
    """A whole number from a form field (blank: ``default``).

    Raises:
        ValueError: not a whole number (the message says so).
    """
    if value is None or not value.strip():
        return default
    if not value.strip().isdigit():
        raise ValueError("Runs and the limit are whole numbers.")
    return int(value)


def _job(request: HttpRequest, job: str) -> tuple[dict[str, Any], PackVersion]:
    progress = _lab().pack_eval_progress(job) if len(job) == 32 and job.isalnum() else None
    if progress is None:
        raise Http404("No such evaluation.")
    return progress, _own_version(request, pk=progress.get("version"))


@require_GET
def status(request: HttpRequest, job: str) -> HttpResponse:
    """The job's page: progress while it runs (the page reloads itself), then each suite run and the routing set's per-action results."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return refused
    progress, version = _job(request, job)
    running = progress.get("state") in ("queued", "running")
    return render(request, "dashboard/vendor/pack_eval.html", {
        "section": "vendors", "version": version, "progress": progress, "result": progress.get("result"),
        "running": running, "poll_s": POLL_S,
        "percent": int(100 * (progress.get("done") or 0) / progress["total"]) if progress.get("total") else 0,
    })


@require_GET
def progress(request: HttpRequest, job: str) -> JsonResponse:
    """The job's progress as JSON (state, done, total, what runs now, error; the figures when done)."""
    refused = _vendor_or_admin(request)
    if refused is not None:
        return JsonResponse({"error": "sign in as a vendor"}, status=403)
    found, _version = _job(request, job)
    keys = ("state", "pack", "runs", "done", "total", "running", "error", "result")
    return JsonResponse({key: found.get(key) for key in keys})
