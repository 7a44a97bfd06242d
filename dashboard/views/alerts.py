"""The workspace's alerts page: open, snoozed and past alerts with acknowledge and snooze, and (for
the owner) which kinds the store sends and where. Every action goes through ``alerts.services``,
the same functions the REST API calls; staff see and act on the staff kinds only."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from alerts import services
from alerts.kinds import ALL_CHANNELS, Channel, Kind, visible_kinds
from dashboard.views.owner import _actor, _is_owner, workspace_view
from ledger.errors import LedgerError, NotFound
from ledger.selectors import store_tz

SNOOZES = {"1": dt.timedelta(hours=1), "4": dt.timedelta(hours=4), "24": dt.timedelta(hours=24),
           "168": dt.timedelta(days=7)}
PAST_SHOWN = 30


@require_GET
@workspace_view
def alerts_page(request: HttpRequest) -> HttpResponse:
    store, owner, now = request.store, _is_owner(request), timezone.now()
    visible = services.alerts_visible(store=store, owner=owner)
    prefs = services.preferences(store=store)
    kinds = [(kind, label, prefs[kind]) for kind, label in Kind.choices if kind in visible_kinds(owner_level=owner)]
    return render(request, "dashboard/alerts.html", {
        "section": "alerts",
        "open": list(services.alerts_open(store=store, owner=owner, now=now).order_by("-created_at", "-id")),
        "snoozed": list(visible.filter(acknowledged_at__isnull=True, snoozed_until__gt=now).order_by("snoozed_until")),
        "past": list(visible.filter(acknowledged_at__isnull=False).order_by("-acknowledged_at")[:PAST_SHOWN]),
        "kinds": kinds, "channels": Channel.choices, "can_choose": owner,
        "snoozes": [("1", "1 hour"), ("4", "4 hours"), ("24", "a day"), ("168", "a week")],
    })


def _done(request: HttpRequest, message: str, *, ok: bool = True) -> HttpResponse:
    (messages.success if ok else messages.error)(request, message)
    return redirect("owner:alerts")


@require_POST
@workspace_view
def alert_ack(request: HttpRequest, alert_id: int) -> HttpResponse:
    try:
        services.alert_acknowledge(store=request.store, alert_id=alert_id, actor=_actor(request),
                                   owner=_is_owner(request))
    except NotFound as exc:
        raise Http404(exc.message) from None
    return _done(request, "Acknowledged.")


@require_POST
@workspace_view
def alert_snooze(request: HttpRequest, alert_id: int) -> HttpResponse:
    span = SNOOZES.get(request.POST.get("hours", ""))
    if span is None:
        return _done(request, "Choose how long to snooze it.", ok=False)
    try:
        alert = services.alert_snooze(store=request.store, alert_id=alert_id, until=timezone.now() + span,
                                      owner=_is_owner(request))
    except NotFound as exc:
        raise Http404(exc.message) from None
    except LedgerError as exc:
        return _done(request, exc.message, ok=False)
    local = timezone.localtime(alert.snoozed_until, timezone=store_tz(request.store))
    return _done(request, f"Snoozed until {local:%a %d %b, %H:%M}.")


@require_POST
@workspace_view
def alert_preferences(request: HttpRequest) -> HttpResponse:
    """The owner's choice per kind: on or off, and its channels (one form for every kind)."""
    try:
        for kind in Kind.values:
            channels = [c for c in ALL_CHANNELS if request.POST.get(f"{kind}:{c}") == "on"]
            services.preference_set(store=request.store, kind=kind, enabled=request.POST.get(f"{kind}:on") == "on",
                                    channels=channels, actor=_actor(request))
    except PermissionDenied:
        return _done(request, "Only the store's owner can change which alerts the store sends.", ok=False)
    return _done(request, "Alert choices saved.")
