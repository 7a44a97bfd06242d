"""The talk page: the owner's smart-display view of the assistant (issue 5 fills it in)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render


@login_required
def talk(request: HttpRequest) -> HttpResponse:
    if getattr(request, "store", None) is None:
        return redirect("tenants:home")
    return render(request, "dashboard/talk.html", {"section": "talk"})
