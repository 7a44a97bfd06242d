"""The platform admin's pages: stores, the audit explorer, a turn's detail, metrics.

Only holders of ``identity.platform_admin`` (not ``is_staff``; vendors get nothing here).
Signed-out visitors are sent to the login page; anyone else gets the 403 page. These are
cross-store reads, the platform maintenance that ``tenants.rls.bypass()`` is for: each view runs
(and renders) inside it, since the audit tables are fenced by row-level security too.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.apps import apps
from django.core.paginator import Paginator
from django.db.models import Count, Exists, OuterRef, Prefetch
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.models import Channel, Record, SqlStatement, Turn
from dashboard import metrics
from dashboard.views.regressions import regression_form
from identity.permissions import platform_admin_required
from tenants.models import Store

PAGE_SIZE = 50
STORES_PAGE_SIZE = 50
OUTCOMES = ("answered", "clarified", "refused", "blocked", "error", "running")


# Platform admins only (identity.platform_admin, not is_staff); each view runs inside rls.bypass().
staff_required = platform_admin_required


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


# ---------------------------------------------------------------------------------------------
# Stores


@require_GET
@staff_required
def stores(request: HttpRequest) -> HttpResponse:
    paginator = Paginator(metrics.stores_annotated(), STORES_PAGE_SIZE)
    page = paginator.get_page(_page_number(request))
    rows = metrics.store_rows(page.object_list)
    return render(request, "dashboard/ops/stores.html", {
        "section": "stores", "page": page, "rows": rows, "modes": metrics.MODES,
    })


# ---------------------------------------------------------------------------------------------
# Audit explorer


class AuditFilter(forms.Form):
    """The explorer's filters; every field optional, every value checked."""

    store = forms.ModelChoiceField(queryset=Store.objects.order_by("name"), required=False, to_field_name="slug",
                                   empty_label="All stores")
    mode = forms.ChoiceField(required=False, choices=[("", "All modes")] + [(m, m) for m in metrics.MODES])
    outcome = forms.ChoiceField(required=False, choices=[("", "All outcomes")] + [(o, o) for o in OUTCOMES])
    conversation = forms.CharField(required=False, max_length=64)
    tool = forms.CharField(required=False, max_length=80, help_text="A tool's name, e.g. get_inventory.")
    since = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("The start date is after the end date.")
        return data


def _filtered_turns(data: dict[str, Any]):
    turns = Turn.objects.select_related("store")
    if data.get("store"):
        turns = turns.filter(store=data["store"])
    if data.get("mode"):
        turns = turns.filter(mode=data["mode"])
    if data.get("outcome"):
        turns = turns.filter(outcome=data["outcome"])
    if data.get("conversation"):
        turns = turns.filter(conversation=data["conversation"].strip())
    if data.get("tool"):
        used = Record.objects.filter(turn=OuterRef("pk"), kind=Record.Kind.TOOL_CALL, name=data["tool"].strip())
        turns = turns.filter(Exists(used))
    if data.get("since"):
        turns = turns.filter(created_at__date__gte=data["since"])
    if data.get("until"):
        turns = turns.filter(created_at__date__lte=data["until"])
    return turns.order_by("-created_at", "-id")


@require_GET
@staff_required
def audit(request: HttpRequest) -> HttpResponse:
    form = AuditFilter(request.GET or None)
    status = 200
    if form.is_bound and not form.is_valid():
        # Bad filters change nothing: say what is wrong and show no rows rather than a guess.
        status = 400
        page, turns = None, []
    else:
        data = form.cleaned_data if form.is_bound else {}
        paginator = Paginator(_filtered_turns(data), PAGE_SIZE)
        page = paginator.get_page(_page_number(request))
        turns = list(page.object_list)
        tools: dict[int, list[str]] = {}
        for turn_id, name in Record.objects.filter(
            turn_id__in=[t.pk for t in turns], kind=Record.Kind.TOOL_CALL
        ).order_by("id").values_list("turn_id", "name"):
            tools.setdefault(turn_id, []).append(name)
        for turn in turns:
            turn.tool_names = tools.get(turn.pk, [])
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "dashboard/ops/audit.html", {
        "section": "audit", "form": form, "page": page, "turns": turns, "query": query.urlencode(),
    }, status=status)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


@require_GET
@staff_required
def turn_detail(request: HttpRequest, turn_id: int) -> HttpResponse:
    turn = get_object_or_404(Turn.objects.select_related("store__business_type"), pk=turn_id)
    records = list(
        Record.objects.filter(turn=turn)
        .select_related("credential")
        .prefetch_related(Prefetch("statements", queryset=SqlStatement.objects.order_by("seq")))
        .order_by("created_at", "id")
    )
    steps = []
    for record in records:
        offset = (record.created_at - turn.created_at).total_seconds() * 1000
        step: dict[str, Any] = {"record": record, "offset_ms": max(offset, 0.0),
                                "statements": list(record.statements.all())}
        if record.kind == Record.Kind.MODEL_CALL:
            request_data = record.arguments or {}
            step["messages"] = [
                {"role": m.get("role", "?"), "content": m.get("content") if isinstance(m.get("content"), str)
                 else _pretty(m.get("content"))}
                for m in (request_data.get("messages") or []) if isinstance(m, dict)
            ]
            step["parameters"] = _pretty({k: v for k, v in request_data.items() if k not in ("messages",)})
            step["response"] = _pretty(record.result)
            step["sql_ms"] = 0.0
        else:
            step["arguments"] = _pretty(record.arguments)
            step["result"] = _pretty(record.result)
            step["sql_ms"] = sum(s.duration_ms for s in step["statements"])
        steps.append(step)
    return render(request, "dashboard/ops/turn.html", {
        "section": "audit", "turn": turn, "steps": steps, "stages": list((turn.stages or {}).items()),
        "guard": (turn.result or {}).get("guard") or {}, "result_json": _pretty(turn.result),
        "sql_count": sum(len(s["statements"]) for s in steps), "regression_form": regression_form(turn),
    })


# ---------------------------------------------------------------------------------------------
# Tool calls from every channel (MCP clients, the REST API, the assistant)


class CallFilter(forms.Form):
    store = forms.ModelChoiceField(queryset=Store.objects.order_by("name"), required=False, to_field_name="slug",
                                   empty_label="All stores")
    channel = forms.ChoiceField(required=False, choices=[("", "All channels"), *Channel.choices])
    tool = forms.CharField(required=False, max_length=80)
    outcome = forms.ChoiceField(required=False, choices=[("", "All outcomes"), *Record.Outcome.choices])
    since = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError("The start date is after the end date.")
        return data


@require_GET
@staff_required
def calls(request: HttpRequest) -> HttpResponse:
    form = CallFilter(request.GET or None)
    status, page, rows = 200, None, []
    if form.is_bound and not form.is_valid():
        status = 400
    else:
        data = form.cleaned_data if form.is_bound else {}
        records = Record.objects.filter(kind=Record.Kind.TOOL_CALL).select_related("store", "credential")
        for field, lookup in (("store", "store"), ("channel", "channel"), ("outcome", "outcome")):
            if data.get(field):
                records = records.filter(**{lookup: data[field]})
        if data.get("tool"):
            records = records.filter(name=data["tool"].strip())
        if data.get("since"):
            records = records.filter(created_at__date__gte=data["since"])
        if data.get("until"):
            records = records.filter(created_at__date__lte=data["until"])
        records = records.annotate(sql_count=Count("statements")).order_by("-created_at", "-id")
        page = Paginator(records, PAGE_SIZE).get_page(_page_number(request))
        rows = list(page.object_list)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "dashboard/ops/calls.html", {
        "section": "calls", "form": form, "page": page, "rows": rows, "query": query.urlencode(),
    }, status=status)


@require_GET
@staff_required
def record_detail(request: HttpRequest, record_id: int) -> HttpResponse:
    record = get_object_or_404(Record.objects.select_related("store", "credential", "turn"), pk=record_id)
    statements = list(record.statements.order_by("seq"))
    return render(request, "dashboard/ops/record.html", {
        "section": "calls", "record": record, "statements": statements,
        "arguments": _pretty(record.arguments), "result": _pretty(record.result), "data": _pretty(record.data),
        "sql_ms": sum(s.duration_ms for s in statements),
    })


# ---------------------------------------------------------------------------------------------
# Metrics and benchmark runs


def _lab():
    """The lab's benchmark jobs (``lab.tasks``); a deployment without the lab app has none (404)."""
    if not apps.is_installed("lab"):
        raise Http404("Benchmarks run where the lab app is installed.")
    from lab import tasks

    return tasks


class BenchStartForm(forms.Form):
    suite = forms.ChoiceField(choices=())
    mode = forms.ChoiceField(choices=())
    limit = forms.IntegerField(required=False, min_value=1, max_value=500,
                               help_text="Run only the first N turns (a smoke run). Empty: the whole suite.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        lab = _lab()
        self.fields["suite"].choices = [(s, s) for s in lab.suite_names()]
        self.fields["mode"].choices = [(m, m) for m in lab.mode_names()]


def _chart_data(traffic: metrics.Traffic, bench: metrics.Benchmarks) -> dict[str, Any]:
    """What the page's charts draw; the tables beside them show the same numbers."""
    return {
        "passRate": bench.series,
        "categories": [
            {"mode": c.mode, "category": c.category, "rate": round(c.rate * 100, 1)} for c in bench.categories
        ],
        "latency": [{"mode": m.mode, "median": m.median_ms, "p90": m.p90_ms} for m in traffic.modes],
        "roles": [{"role": r.role, "median": r.median_ms, "p90": r.p90_ms} for r in traffic.roles],
        "days": traffic.days,
        "turnsPerDay": traffic.turns_per_day,
        "outcomes": [
            {"mode": m.mode, "blocked": m.blocked, "refused": m.refused_writes, "clarified": m.clarified,
             "escalations": m.escalations} for m in traffic.modes
        ],
    }


@require_GET
@staff_required
def metrics_page(request: HttpRequest) -> HttpResponse:
    days_raw = request.GET.get("days", "7")
    days = int(days_raw) if days_raw.isdigit() and 1 <= int(days_raw) <= 90 else 7
    traffic = metrics.traffic(days=days)
    bench = metrics.benchmarks()
    job, lab_installed = request.GET.get("job", ""), apps.is_installed("lab")
    if lab_installed and not job and (active := _lab().active_job()) is not None:
        job = active[0]  # a run someone started is shown as it goes
    return render(request, "dashboard/ops/metrics.html", {
        "section": "metrics", "traffic": traffic, "bench": bench, "days": days,
        "chart_data": _chart_data(traffic, bench), "form": BenchStartForm() if lab_installed else None,
        "job": job if job.isalnum() and len(job) <= 40 else "",
        "recent_runs": list(reversed(bench.runs))[:15],
        "passk": _lab().passk_latest() if lab_installed else [],
    })


@require_POST
@staff_required
def bench_start(request: HttpRequest) -> HttpResponse:
    form = BenchStartForm(request.POST)
    wants_json = "application/json" in request.headers.get("Accept", "")
    if not form.is_valid():
        errors = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in form.errors.items())
        if wants_json:
            return JsonResponse({"error": errors}, status=400)
        return _metrics_with_error(request, form, errors)
    lab = _lab()
    try:
        job = lab.benchmark_start(suite=form.cleaned_data["suite"], mode=form.cleaned_data["mode"],
                                  limit=form.cleaned_data["limit"])
    except lab.BenchStartError as exc:
        if wants_json:
            return JsonResponse({"error": str(exc)}, status=400)
        return _metrics_with_error(request, form, str(exc))
    if wants_json:
        return JsonResponse({"job": job, "progress": reverse("ops:bench-progress", args=[job])}, status=202)
    return redirect(f"{reverse('ops:metrics')}?job={job}#bench")


def _metrics_with_error(request: HttpRequest, form: BenchStartForm, error: str) -> HttpResponse:
    traffic, bench = metrics.traffic(days=7), metrics.benchmarks()
    return render(request, "dashboard/ops/metrics.html", {
        "section": "metrics", "traffic": traffic, "bench": bench, "days": 7,
        "chart_data": _chart_data(traffic, bench), "form": form, "bench_error": error, "job": "",
        "recent_runs": list(reversed(bench.runs))[:15], "passk": _lab().passk_latest(),
    }, status=400)


@require_GET
@staff_required
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    from assistant.models import BenchmarkRun

    run = get_object_or_404(BenchmarkRun, pk=run_id)
    turns = list(run.results.order_by("index"))
    return render(request, "dashboard/ops/run.html", {
        "section": "metrics", "run": run, "turns": turns, "settings_json": _pretty(run.settings),
        "failed": sum(not t.passed for t in turns),
    })


@require_GET
@staff_required
def bench_progress(request: HttpRequest, job: str) -> JsonResponse:
    progress = _lab().progress_get(job)
    if progress is None:
        return JsonResponse({"error": "No such benchmark job."}, status=404)
    total = progress.get("total") or 0
    percent = round(100 * (progress.get("done") or 0) / total) if total else 0
    return JsonResponse({**progress, "job": job, "percent": percent,
                         "finished": progress.get("state") in ("done", "failed")})
