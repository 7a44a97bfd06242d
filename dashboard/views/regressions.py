"""Regression cases from the audit explorer: a platform admin marks a turn with the outcome it should have had.

The case (``assistant.regressions``) keeps the turn's words, the expected outcome and the catalog
state the turn needs, and nothing that ties it to the live store; ``manage.py bench --suite
regressions`` replays every case on a fresh store of its own. Platform admins only, as every
``/ops/`` page: a store's owner can neither see nor mark anything here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from assistant.models import RegressionCase
from assistant.regressions import ExpectedOutcome, RegressionError, action_choices, regression_case_create
from audit.models import Turn
from identity.permissions import platform_admin_required
from packs.source import store_pack_key


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


class RegressionForm(forms.Form):
    """The outcome the turn should have had; at least one part of it."""

    scope = forms.ChoiceField(choices=[("turn", "This turn alone"),
                                       ("conversation", "This turn after the conversation before it")],
                              initial="turn", widget=forms.RadioSelect)
    action = forms.ChoiceField(required=False, help_text="The action the turn should take.")
    product = forms.CharField(required=False, max_length=120,
                              help_text="A product some tool call must name (its catalog name).")
    say = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Reply must say",
                          help_text="One phrase a line; every one must be in the reply.")
    not_say = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Reply must not say",
                              help_text="One phrase a line; none may be in the reply.")
    no_write = forms.BooleanField(required=False, label="No write: the turn changes nothing in the books")
    note = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}),
                           help_text="What went wrong (kept with the case).")

    def __init__(self, *args: Any, actions: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "Any action")] + [(a, a) for a in actions]

    def outcome(self) -> ExpectedOutcome:
        data = self.cleaned_data
        return ExpectedOutcome(action=data["action"], product=data["product"].strip(), say=_lines(data["say"]),
                               not_say=_lines(data["not_say"]), no_write=data["no_write"])


def regression_form(turn: Turn, data: Any = None) -> RegressionForm:
    """The marking form for ``turn``, its actions those of the turn's business type."""
    return RegressionForm(data, actions=action_choices(store_pack_key(turn.store)))


@require_POST
@platform_admin_required
def turn_mark(request: HttpRequest, turn_id: int) -> HttpResponse:
    turn = get_object_or_404(Turn.objects.select_related("store__business_type"), pk=turn_id)
    form = regression_form(turn, request.POST)
    if form.is_valid():
        try:
            case = regression_case_create(turn=turn, expected=form.outcome(), note=form.cleaned_data["note"],
                                          whole_conversation=form.cleaned_data["scope"] == "conversation")
        except RegressionError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Turn {turn.pk} is regression case {case.pk}.")
            return redirect("ops:regressions")
    return render(request, "dashboard/ops/regression_mark.html",
                  {"section": "audit", "turn": turn, "form": form}, status=400)


@require_GET
@platform_admin_required
def regressions(request: HttpRequest) -> HttpResponse:
    cases = list(RegressionCase.objects.order_by("-id")[:500])
    return render(request, "dashboard/ops/regressions.html", {"section": "audit", "cases": cases})


@require_POST
@platform_admin_required
def regression_delete(request: HttpRequest, case_id: int) -> HttpResponse:
    case = get_object_or_404(RegressionCase, pk=case_id)
    case.delete()
    messages.success(request, f"Regression case {case_id} is deleted.")
    return redirect("ops:regressions")
