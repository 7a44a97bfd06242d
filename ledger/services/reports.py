"""The inventory and sales reports: rendered as text and HTML, and emailed to the store's address."""

from __future__ import annotations

import datetime as dt
import logging
import smtplib
from typing import Any, Literal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.core.validators import validate_email
from django.template.loader import render_to_string
from django.utils import dateformat
from django.utils.translation import gettext as _

from ledger.errors import (
    DeliveryFailed,
    InvalidInput,
    RecipientNotAllowed,
    ReportDisabled,
)
from ledger.models import Product, ReportDelivery
from ledger.money import money_format, to_cents
from ledger.scope import store_scope
from ledger.selectors import (
    local_day_bounds,
    product_sales_between,
    sales_by_day,
    sales_today,
    store_tz,
)
from ledger.services import checks
from ledger.stock_velocity import reorder_suggestions
from tenants.models import Store
from tenants.selectors import report_address_allowed, report_addresses, store_can_email

logger = logging.getLogger(__name__)

ReportKind = Literal["inventory", "sales"]


def _kind(kind: object) -> ReportKind:
    if kind == "inventory" or kind == "sales":
        return kind
    raise InvalidInput(_("The report is either the inventory report or the sales report."))


def _inventory_context(store: Store) -> dict[str, Any]:
    with store_scope(store):
        products = list(Product.objects.filter(store=store, active=True))
    products.sort(key=lambda p: (not p.is_low, p.name.casefold()))
    suggested = reorder_suggestions(store=store, products=products)
    rows = []
    total_value = to_cents(0)
    for product in products:
        value = to_cents(product.unit_cost * product.stock)
        total_value += value
        rows.append(
            {
                "name": product.name,
                "unit": product.unit,
                "location": product.location,
                "stock": product.stock,
                "par": product.par_level,
                "reorder_point": product.reorder_point,
                "low": product.is_low,
                "suggested": suggested[product.pk].qty,
                "why": suggested[product.pk].reason,
                "value": money_format(value, store.currency),
            }
        )
    return {
        "rows": rows,
        "low_count": sum(1 for row in rows if row["low"]),
        "product_count": len(rows),
        "units": sum(product.stock for product in products),
        "total_value": money_format(total_value, store.currency),
    }


def _sales_context(store: Store, at: dt.datetime) -> dict[str, Any]:
    summary = sales_today(store=store, now=at)
    _day, start, end = local_day_bounds(store=store, now=at)
    products = product_sales_between(store=store, start=start, end=end)
    days = sales_by_day(store=store, days=7, now=at)
    return {
        "receipts": summary.receipts,
        "units": summary.units,
        "revenue": money_format(summary.revenue, store.currency),
        "average": money_format(summary.revenue / summary.receipts, store.currency) if summary.receipts else None,
        "products": [
            {"name": row.product, "units": row.units, "revenue": money_format(row.revenue, store.currency)}
            for row in products
        ],
        "days": [
            {
                "label": dateformat.format(day.date, "D j M"),
                "receipts": day.receipts,
                "units": day.units,
                "revenue": money_format(day.revenue, store.currency),
            }
            for day in days
        ],
    }


def report_render(*, store: Store, kind: ReportKind, now: dt.datetime | None = None) -> tuple[str, str, str]:
    """The report as (subject, plain text, HTML), for the store's local today.

    Raises:
        InvalidInput: ``kind`` is neither "inventory" nor "sales".
    """
    kind = _kind(kind)
    at = checks.moment(now).astimezone(store_tz(store))
    title = _("Inventory report") if kind == ReportDelivery.Kind.INVENTORY else _("Sales report")
    context: dict[str, Any] = {
        "store": store.name,
        "title": title,
        "date": dateformat.format(at, "l, j F Y"),
        "generated": dateformat.format(at, "j M Y, H:i T"),
        "public_url": settings.PUBLIC_URL,
    }
    context.update(_inventory_context(store) if kind == ReportDelivery.Kind.INVENTORY else _sales_context(store, at))
    # Header values must be one line; a store name cannot inject headers.
    subject = " ".join(f"{store.name}: {title.lower()} for {dateformat.format(at, 'D j M Y')}".split())[:200]
    text = render_to_string(f"ledger/email/{kind}_report.txt", context)
    html = render_to_string(f"ledger/email/{kind}_report.html", context)
    return subject, text, html


def _recipients(store: Store, to: str | None) -> list[str]:
    """Where this report goes: ``to`` if the store may send there, else its usual addresses.

    Raises:
        RecipientNotAllowed: no owner has verified an address yet, ``to`` is not a confirmed
            recipient or owner, or the store has nowhere to send.
        InvalidInput: ``to`` is not an email address.
    """
    if not store_can_email(store=store):
        raise RecipientNotAllowed(
            _("Confirm the owner's email address first (the link in the sign-up email); until then this store sends no email.")
        )
    if to is None or not str(to).strip():
        addresses = report_addresses(store=store)
        if not addresses:
            raise RecipientNotAllowed(_("This store has no email address for reports yet. Add one in the store settings."))
        return addresses
    address = str(to).strip()
    try:
        validate_email(address)
    except ValidationError:
        raise InvalidInput(_("That is not an email address.")) from None
    if report_address_allowed(store=store, address=address):
        return [address]
    raise RecipientNotAllowed(
        _("Reports go only to the store's confirmed recipients. The owner can add this address in the store settings; "
          "it gets a link to confirm.")
    )


def report_recipients(*, store: Store, kind: ReportKind, to: str | None = None) -> list[str]:
    """Where ``report_send`` would email this report now, without sending it (a caller that sends later asks first).

    Raises:
        ReportDisabled: the sales report is switched off on this deployment.
        RecipientNotAllowed: no verified owner, ``to`` is not allowed, or nowhere to send.
        InvalidInput: unknown kind or a malformed address.
    """
    kind = _kind(kind)
    if kind == ReportDelivery.Kind.SALES and not settings.SALES_REPORT_EMAIL_ENABLED:
        raise ReportDisabled(_("Emailing the sales report is switched off here. The sales figures are still on the dashboard."))
    return _recipients(store, to)


def report_send(
    *, store: Store, kind: ReportKind, actor: str, to: str | None = None, now: dt.datetime | None = None
) -> list[ReportDelivery]:
    """Email the inventory or today's sales report (text with an HTML alternative) and record each delivery.

    By default it goes to the store's confirmed report recipients, else its owners' verified
    addresses; ``to`` may name one of those. Nothing is sent before an owner verified an address.

    Raises:
        ReportDisabled: the sales report is switched off on this deployment.
        RecipientNotAllowed: no verified owner, ``to`` is not allowed, or nowhere to send.
        InvalidInput: unknown kind or a malformed address.
        DeliveryFailed: the mail server did not take the message.
    """
    actor = checks.actor_of(actor)
    kind = _kind(kind)
    at = checks.moment(now)
    recipients = report_recipients(store=store, kind=kind, to=to)
    subject, text, html = report_render(store=store, kind=kind, now=at)
    message = EmailMultiAlternatives(subject=subject, body=text, from_email=settings.DEFAULT_FROM_EMAIL, to=recipients)
    message.attach_alternative(html, "text/html")
    try:
        message.send(fail_silently=False)
    except (smtplib.SMTPException, OSError) as exc:
        logger.warning("Report email for store %s failed: %s", store.pk, exc)
        raise DeliveryFailed(_("The report could not be sent just now. Nothing was lost; try again in a few minutes.")) from exc
    with store_scope(store):
        return [
            ReportDelivery.objects.create(store=store, kind=kind, recipient=recipient, sent_at=at, actor=actor, subject=subject)
            for recipient in recipients
        ]
