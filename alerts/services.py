"""Raising alerts (once per event), and acknowledging, snoozing and switching them off.

An alert is one row per (store, kind, event_key): the event key names what happened (a journal
entry, a day, a draft, a report dispatch), so a retried task, a redelivered message, the beat's
sweep and a concurrent worker that see the same event all find the one row (``get_or_create``
inserts inside a savepoint and reads the winner's row on the unique constraint's
``IntegrityError``). A new alert is pushed to the members' open sockets after it commits.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from alerts.kinds import ALL_CHANNELS, Kind, visible_kinds
from alerts.models import Alert, AlertPreference
from ledger.errors import InvalidInput, NotFound
from ledger.models import Product, StockEntry
from ledger.selectors import row_id
from tenants.context import store_context
from tenants.models import Store
from tenants.permissions import may_confirm_orders

MAX_SNOOZE = dt.timedelta(days=30)
# A product with an alert of this kind still open is not alerted again until that one is acknowledged.
_ONE_OPEN_PER_PRODUCT = (Kind.LOW_STOCK, Kind.SOLD_OUT)


@dataclass(frozen=True)
class Preference:
    kind: str
    enabled: bool
    channels: tuple[str, ...]


def owner_level(*, store: Store, actor: str, channel: str = "") -> bool:
    """Whether ``actor`` sees the owner's alerts: whoever may place orders (owner, or orders:confirm)."""
    return may_confirm_orders(store=store, actor=actor, channel=channel)


def preferences(*, store: Store) -> dict[str, Preference]:
    """Every kind's preference for the store; kinds without a row are on, on every channel."""
    with store_context(store):
        rows = {row.kind: row for row in AlertPreference.objects.filter(store=store)}
    return {
        kind: Preference(kind=kind, enabled=rows[kind].enabled, channels=tuple(rows[kind].channels))
        if kind in rows else Preference(kind=kind, enabled=True, channels=ALL_CHANNELS)
        for kind in Kind.values
    }


def preference_set(*, store: Store, kind: str, enabled: bool, channels: list[str] | None, actor: str,
                   channel: str = "") -> Preference:
    """Switch a kind on or off for the store and choose its channels (owner level only).

    Raises:
        PermissionDenied: the actor is not at owner level.
        InvalidInput: an unknown kind or channel.
    """
    if not owner_level(store=store, actor=actor, channel=channel):
        raise PermissionDenied("Only the store's owner can change which alerts the store sends.")
    if kind not in Kind.values:
        raise InvalidInput(f"Unknown alert kind. Choose one of: {', '.join(Kind.values)}.")
    if not isinstance(enabled, bool):
        raise InvalidInput("enabled is true or false.")
    chosen = list(ALL_CHANNELS) if channels is None else channels
    if not isinstance(chosen, list) or any(c not in ALL_CHANNELS for c in chosen):
        raise InvalidInput(f"Channels are any of: {', '.join(ALL_CHANNELS)}.")
    ordered = [c for c in ALL_CHANNELS if c in chosen]
    with store_context(store):
        AlertPreference.objects.update_or_create(
            store=store, kind=kind, defaults={"enabled": enabled, "channels": ordered, "updated_by": actor[:120]}
        )
    return Preference(kind=kind, enabled=enabled, channels=tuple(ordered))


def alert_raise(
    *, store: Store, kind: str, event_key: str, facts: dict, product: Product | None = None,
    now: dt.datetime | None = None,
) -> tuple[Alert | None, bool]:
    """The alert for this event, created unless it exists; (None, False) when the kind is off.

    Safe to call any number of times, from any number of workers at once: one row per event.
    """
    if not preferences(store=store)[kind].enabled:
        return None, False
    with store_context(store), transaction.atomic():
        if kind in _ONE_OPEN_PER_PRODUCT and product is not None:
            standing = Alert.objects.filter(store=store, kind=kind, product=product, acknowledged_at__isnull=True)
            existing = standing.exclude(event_key=event_key).first()
            if existing is not None:
                return existing, False
        alert, created = Alert.objects.get_or_create(
            store=store, kind=kind, event_key=event_key[:200],
            defaults={"facts": facts, "product": product, "created_at": now or timezone.now()},
        )
        if created:
            from alerts.delivery import push_after_commit

            push_after_commit(alert)
    return alert, created


# ---------------------------------------------------------------------------------------------
# Stock: raised from the journal entry that crossed the line


def stock_crossing(*, before: int, after: int, reorder_point: int) -> str | None:
    """The kind a stock change raises: sold out at 0, low when it crossed the reorder point going down."""
    if after >= before:
        return None
    if after == 0:
        return Kind.SOLD_OUT
    if after <= reorder_point < before:
        return Kind.LOW_STOCK
    return None


def stock_alert_for_entry(*, store: Store, entry_id: int) -> Alert | None:
    """Raise the stock alert a journal entry calls for (if any); the entry's id is the event."""
    with store_context(store):
        entry = StockEntry.objects.select_related("product").filter(store=store, pk=entry_id).first()
        if entry is None:
            return None
        product = entry.product
        kind = stock_crossing(before=entry.before, after=entry.after, reorder_point=product.reorder_point)
        if kind is None:
            return None
        facts = {
            "product": product.name, "stock": entry.after, "before": entry.before,
            "reorder_point": product.reorder_point, "reason": entry.reason, "note": entry.note,
            "at": entry.created_at.isoformat(),
        }
        alert, _created = alert_raise(store=store, kind=kind, event_key=f"stock:{entry.pk}", facts=facts,
                                      product=product, now=entry.created_at)
    return alert


# ---------------------------------------------------------------------------------------------
# Reading and acting on alerts


def alerts_visible(*, store: Store, owner: bool) -> QuerySet[Alert]:
    """The store's alerts this role may see, newest first."""
    return Alert.objects.filter(store=store, kind__in=visible_kinds(owner_level=owner)).select_related("product")


def alerts_open(*, store: Store, owner: bool, now: dt.datetime | None = None) -> QuerySet[Alert]:
    """Not acknowledged and not snoozed past ``now``."""
    at = now or timezone.now()
    return alerts_visible(store=store, owner=owner).filter(acknowledged_at__isnull=True).filter(
        Q(snoozed_until__isnull=True) | Q(snoozed_until__lte=at)
    )


def _visible(store: Store, alert_id: object, owner: bool) -> Alert:
    pk = row_id(alert_id, "alert")
    alert = alerts_visible(store=store, owner=owner).select_for_update(of=("self",)).filter(pk=pk).first()
    if alert is None:
        raise NotFound("alert")
    return alert


def alert_acknowledge(*, store: Store, alert_id: object, actor: str, owner: bool) -> Alert:
    """Mark an alert seen and dealt with: it leaves the open list, the digest and the spoken preface.

    Acknowledging twice keeps the first time. Raises NotFound: not this store's, or not for this role.
    """
    with store_context(store), transaction.atomic():
        alert = _visible(store, alert_id, owner)
        if alert.acknowledged_at is None:
            alert.acknowledged_at, alert.acknowledged_by = timezone.now(), actor[:120]
            alert.save(update_fields=["acknowledged_at", "acknowledged_by"])
    return alert


def alert_snooze(*, store: Store, alert_id: object, until: dt.datetime, owner: bool,
                 now: dt.datetime | None = None) -> Alert:
    """Hide an open alert until ``until`` (at most 30 days ahead); it comes back by itself then.

    Raises:
        NotFound: not this store's alert, or not for this role.
        InvalidInput: ``until`` is naive, not in the future, more than 30 days ahead, or the alert
            was already acknowledged.
    """
    at = now or timezone.now()
    if not isinstance(until, dt.datetime) or timezone.is_naive(until):
        raise InvalidInput("Snooze until a time with its time zone, e.g. 2026-12-04T09:00:00+05:30.")
    if until <= at or until - at > MAX_SNOOZE:
        raise InvalidInput("Snooze until a time in the next 30 days.")
    with store_context(store), transaction.atomic():
        alert = _visible(store, alert_id, owner)
        if alert.acknowledged_at is not None:
            raise InvalidInput("That alert was already acknowledged.")
        alert.snoozed_until = until
        alert.save(update_fields=["snoozed_until"])
    return alert


def mark_delivered(*, alert_ids: list[int], channel: str) -> None:
    """Record that these alerts went out on ``channel`` (each channel listed once)."""
    with transaction.atomic():
        for alert in Alert.objects.filter(pk__in=alert_ids).select_for_update():
            if channel not in alert.delivered:
                alert.delivered = [*alert.delivered, channel]
                alert.save(update_fields=["delivered"])
