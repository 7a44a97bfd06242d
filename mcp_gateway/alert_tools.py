"""``get_alerts`` and ``dismiss_alert``: what the store spoke up about, for every caller.

Both go through ``alerts.services`` and its role rule (``alerts.kinds``): at owner level (the
owner, or a credential with ``orders:confirm``) every kind, else only stock and unusual-day
alerts. An alert of another store, or of a kind the caller's role does not see, is "not found",
the same as a missing one. Acknowledging twice is fine: the first time is kept.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from alerts import services
from alerts.delivery import still_true
from alerts.kinds import visible_kinds
from alerts.models import Alert
from mcp_gateway.policy import ToolCall

DEFAULT_LIMIT = 20


def _owner(call: ToolCall) -> bool:
    """Whether the caller sees the owner's alerts; through the assistant, whoever is talking to it."""
    caller = call.caller
    if caller.speaker:
        return services.owner_level(store=call.store, actor=caller.speaker, channel=caller.speaker_channel)
    return services.owner_level(store=call.store, actor=caller.actor, channel=caller.channel)


def _alert(alert: Alert) -> dict[str, Any]:
    product = alert.product
    holds, stock = still_true(alert, {product.pk: product} if product is not None else {})
    return {
        "alertId": alert.pk,
        "kind": alert.kind,
        "message": alert.message,
        "product": product.name if product is not None else None,
        "stillHolds": holds,
        "stockNow": stock,
        "createdAt": alert.created_at.isoformat(),
        "acknowledged": alert.acknowledged_at is not None,
        "acknowledgedAt": alert.acknowledged_at.isoformat() if alert.acknowledged_at else None,
        "snoozedUntil": alert.snoozed_until.isoformat() if alert.snoozed_until else None,
    }


def get_alerts(call: ToolCall) -> dict[str, Any]:
    """The alerts this caller's role sees, newest first: open ones (the default) or acknowledged ones."""
    owner = _owner(call)
    state = call.arguments.get("state", "open")
    limit = call.arguments.get("limit", DEFAULT_LIMIT)
    if state == "open":
        rows = services.alerts_open(store=call.store, owner=owner, now=timezone.now())
    else:
        rows = services.alerts_visible(store=call.store, owner=owner).filter(acknowledged_at__isnull=False)
    rows = rows.order_by("-created_at", "-id")
    total = rows.count()
    return {
        "state": state,
        "count": total,
        "alerts": [_alert(alert) for alert in rows.select_related("product")[:limit]],
        "kindsShown": sorted(visible_kinds(owner_level=owner)),
    }


def dismiss_alert(call: ToolCall) -> dict[str, Any]:
    """Mark one alert seen and dealt with; an alert already acknowledged keeps its first time."""
    owner = _owner(call)
    alert = services.alert_acknowledge(store=call.store, alert_id=call.arguments["alertId"],
                                       actor=call.caller.actor, owner=owner)
    result = _alert(alert)
    result["acknowledgedBy"] = alert.acknowledged_by
    return result
