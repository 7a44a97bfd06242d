"""Where an alert goes, each channel at most once per alert (``Alert.delivered``):

* **workspace**: pushed the moment it commits to every member's open socket for the store
  (``tenants.members.member_group``; the talk page shows it), to the members whose role sees it;
* **email**: the day's digest of open alerts, once per store and day at its report time, to the
  store's report recipients (the report rules: confirmed recipients, else verified owners);
* **spoken**: said before the reply on the first turn of the next conversation
  ("Before you ask: mustard oil is down to 2."), with the product's count as it is then.

A channel the store switched off for a kind (``AlertPreference.channels``) is skipped.
"""

from __future__ import annotations

import datetime as dt
import logging
import smtplib

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from alerts.kinds import Channel, Kind, visible_kinds
from alerts.messages import alert_message, spoken_item
from alerts.models import Alert, AlertDigest
from alerts.services import alerts_open, mark_delivered, owner_level, preferences
from ledger.models import Product
from ledger.selectors import store_tz
from tenants.context import store_context
from tenants.models import Membership, Store
from tenants.selectors import report_addresses, store_can_email

logger = logging.getLogger(__name__)

SPOKEN_MAX = 3


def alert_payload(alert: Alert) -> dict:
    return {"id": alert.pk, "kind": alert.kind, "message": alert_message(alert.kind, alert.facts),
            "product_id": alert.product_id, "created_at": alert.created_at.isoformat()}


def _channel_on(store: Store, kind: str, channel: str) -> bool:
    pref = preferences(store=store)[kind]
    return pref.enabled and channel in pref.channels


# ---------------------------------------------------------------------------------------------
# Workspace: the members' open sockets


def push_after_commit(alert: Alert) -> None:
    store_id, alert_id = alert.store_id, alert.pk
    transaction.on_commit(lambda: push(store_id=store_id, alert_id=alert_id), robust=True)


def push(*, store_id: int, alert_id: int) -> int:
    """Send the alert to the open sockets of the members who see its kind; returns how many members."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from tenants.members import member_group

    store = Store.objects.get(pk=store_id)
    with store_context(store):
        alert = Alert.objects.filter(store=store, pk=alert_id).first()
        if alert is None or not _channel_on(store, alert.kind, Channel.WORKSPACE):
            return 0
        layer = get_channel_layer()
        if layer is None:
            return 0
        members = Membership.objects.filter(store=store).values_list("user_id", "role")
        sent = 0
        for user_id, role in members:
            if alert.kind in visible_kinds(owner_level=role == Membership.Role.OWNER):
                async_to_sync(layer.group_send)(member_group(user_id=user_id, store_id=store.pk),
                                                {"type": "alert.raised", "alert": alert_payload(alert)})
                sent += 1
        if sent:
            mark_delivered(alert_ids=[alert.pk], channel=Channel.WORKSPACE)
    return sent


# ---------------------------------------------------------------------------------------------
# Email: the daily digest


def _digest_due(store: Store, now: dt.datetime) -> dt.date | None:
    local = now.astimezone(store_tz(store))
    return local.date() if local.time() >= store.report_time else None


def _digest_alerts(store: Store, now: dt.datetime) -> list[Alert]:
    return [alert for alert in alerts_open(store=store, owner=True, now=now).order_by("created_at", "id")
            if Channel.EMAIL not in alert.delivered and _channel_on(store, alert.kind, Channel.EMAIL)]


def _digest_text(store: Store, alerts: list[Alert]) -> str:
    lines = [f"{store.name}: {len(alerts)} open alert{'s' if len(alerts) != 1 else ''}.", ""]
    lines += [f"- {alert_message(alert.kind, alert.facts)}" for alert in alerts]
    lines += ["", f"Acknowledge, snooze or switch them off: {settings.PUBLIC_URL}/app/alerts/"]
    return "\n".join(lines) + "\n"


def digest_send(*, store: Store, now: dt.datetime | None = None) -> AlertDigest | None:
    """Email today's digest once it is due (the store's report time); None before then.

    Claimed before it is sent (one row per store and day), so a repeated check never sends twice.
    An alert goes in one digest only; one that did not go (no address, mail refused) waits for
    the next day's.
    """
    at = now or timezone.now()
    day = _digest_due(store, at)
    if day is None:
        return None
    with store_context(store):
        digest, created = AlertDigest.objects.get_or_create(store=store, day=day)
        if not created:
            return digest
        alerts = _digest_alerts(store, at)
        if not alerts:
            return _settle(digest, AlertDigest.Status.EMPTY)
        recipients = report_addresses(store=store) if store_can_email(store=store) else []
        if not recipients:
            return _settle(digest, AlertDigest.Status.SKIPPED, alerts=len(alerts), error="No verified address.")
        plural = "s" if len(alerts) != 1 else ""
        subject = " ".join(f"{store.name}: {len(alerts)} open alert{plural}".split())[:200]
        try:
            send_mail(subject=subject, message=_digest_text(store, alerts), from_email=settings.DEFAULT_FROM_EMAIL,
                      recipient_list=recipients, fail_silently=False)
        except (smtplib.SMTPException, OSError) as exc:
            logger.warning("Alert digest for store %s failed: %s", store.pk, exc)
            return _settle(digest, AlertDigest.Status.FAILED, alerts=len(alerts), error=str(exc)[:300])
        mark_delivered(alert_ids=[alert.pk for alert in alerts], channel=Channel.EMAIL)
        return _settle(digest, AlertDigest.Status.SENT, alerts=len(alerts), recipients=", ".join(recipients)[:500])


def _settle(digest: AlertDigest, status: str, **fields: object) -> AlertDigest:
    for name, value in {"status": status, **fields}.items():
        setattr(digest, name, value)
    digest.save(update_fields=["status", *fields])
    return digest


# ---------------------------------------------------------------------------------------------
# Spoken: the first turn of a conversation


def still_true(alert: Alert, products: dict[int, Product]) -> tuple[bool, int | None]:
    """Whether the alert still holds (a stock alert only while its product is still low or sold out), with
    the product's count now for a stock alert; ``products`` by id."""
    if alert.kind not in (Kind.LOW_STOCK, Kind.SOLD_OUT):
        return True, None
    product = products.get(alert.product_id or 0)
    if product is None or not product.active:
        return False, None
    if alert.kind == Kind.SOLD_OUT:
        return product.stock == 0, 0
    return product.stock <= product.reorder_point and product.stock > 0, product.stock


def before_you_ask(*, store: Store, actor: str, channel: str = "", now: dt.datetime | None = None) -> str:
    """"Before you ask: ..." with the open alerts this actor sees that were not spoken yet; "" if none.

    At most three are said (the rest stay for the next conversation); each is marked spoken.
    """
    with store_context(store):
        owner = owner_level(store=store, actor=actor, channel=channel)
        waiting = [alert for alert in alerts_open(store=store, owner=owner, now=now).order_by("created_at", "id")[:50]
                   if Channel.SPOKEN not in alert.delivered and _channel_on(store, alert.kind, Channel.SPOKEN)]
        ids = {alert.product_id for alert in waiting if alert.product_id}
        products = {p.pk: p for p in Product.objects.filter(store=store, pk__in=ids)}
        said: list[int] = []
        clauses: list[str] = []
        for alert in waiting:
            holds, stock = still_true(alert, products)
            if holds and len(clauses) < SPOKEN_MAX:
                clauses.append(spoken_item(alert.kind, alert.facts, stock=stock))
                said.append(alert.pk)
        if not clauses:
            return ""
        mark_delivered(alert_ids=said, channel=Channel.SPOKEN)
    joined = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + ", and " + clauses[-1]
    return f"Before you ask: {joined}."


SPOKEN_CHANNELS = frozenset({"voice", "alexa"})


def spoken_preface(*, store: Store, actor: str, channel: str, reply: str) -> str:
    """The reply with the open alerts said first; the reply alone if there are none or they fail.

    Only where the answer is heard (the talk page's voice socket, Alexa): a typed REST turn may be
    a till or a script, which wants its answer alone and reads the alerts from ``/api/v1/alerts``;
    the ``system`` channel (the ``turn`` command, the benchmarks) has nobody to tell.
    """
    if channel not in SPOKEN_CHANNELS:
        return reply
    try:
        preface = before_you_ask(store=store, actor=actor, channel=channel)
    except Exception:  # an alert must never cost the owner their answer
        logger.exception("Spoken alerts for store %s failed", store.pk)
        return reply
    return f"{preface} {reply}" if preface else reply
