"""The three-mode comparison page (``dashboard.comparison``), from stored benchmark runs. Platform admins only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.comparison import MAX_RUNS, ComparisonError, comparison_build, suites_with_runs
from identity.permissions import platform_admin_required


class CompareForm(forms.Form):
    suite = forms.ChoiceField(choices=())
    last = forms.IntegerField(min_value=1, max_value=MAX_RUNS, initial=3, required=False,
                              help_text="The latest full runs of each mode (default 3).")

    def __init__(self, *args: Any, suites: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["suite"].choices = [(name, name) for name in suites]


def _percent(rate: dict[str, Any]) -> str:
    if not rate["total"]:
        return "—"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:.1f}% ({100 * low:.0f}–{100 * high:.0f})"


@require_GET
@platform_admin_required
def compare(request: HttpRequest) -> HttpResponse:
    suites = suites_with_runs()
    form = CompareForm(request.GET or ({"suite": suites[0]} if suites else None), suites=suites)
    context: dict[str, Any] = {"section": "metrics", "form": form, "comparison": None}
    status = 200
    if form.is_bound and form.is_valid():
        try:
            comparison = comparison_build(suite=form.cleaned_data["suite"], last=form.cleaned_data["last"] or 3)
        except ComparisonError as exc:
            context["error"], status = str(exc), 400
        else:
            data = comparison.as_dict()
            for column in data["columns"]:
                column["overall_text"] = _percent(column["overall"])
                column["category_texts"] = [_percent(column["categories"][name]) if name in column["categories"]
                                            else "—" for name in data["categories"]]
                column["failure_counts"] = [column["failures"].get(kind, 0) for kind in data["kinds"]]
            roles = sorted({role for column in data["columns"] for role in column["roles"]})
            context.update(comparison=data, roles=roles, role_rows=[
                (role, [column["roles"].get(role) for column in data["columns"]]) for role in roles])
            context["category_rows"] = [
                (name, [column["category_texts"][number] for column in data["columns"]])
                for number, name in enumerate(data["categories"])]
            context["failure_rows"] = [
                (kind, [column["failure_counts"][number] for column in data["columns"]])
                for number, kind in enumerate(data["kinds"])]
    elif form.is_bound:
        status = 400
    return render(request, "dashboard/ops/compare.html", context, status=status)
