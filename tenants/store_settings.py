"""A store's settings (name, time zone, currency, opening hours, report time, business type) and
the addresses its reports go to, each confirmed by a link before any report goes there.

Settings are saved over the ``version`` the page showed, so two owners editing at once get a
conflict instead of a silent overwrite.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from tenants.context import store_context, use_store
from tenants.errors import TenantError
from tenants.lookups import recipient_for_link
from tenants.models import BusinessType, PackVersion, ReportRecipient, Store
from tenants.selectors import store_can_email

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
MAX_RECIPIENTS = 10


class SettingsError(TenantError):
    code = "invalid_settings"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


class SettingsConflict(TenantError):
    code = "edit_conflict"
    default_message = "The settings were changed by someone else since you opened them. Nothing was saved; look and try again."


def opening_hours_clean(hours: dict[str, Any]) -> dict[str, list[str]]:
    """``{"mon": ["09:00", "21:00"], ...}`` with valid times, closing after opening; missing days are closed.

    Raises:
        SettingsError: an unknown day, a malformed time, or closing before opening (named by day).
    """
    if not isinstance(hours, dict):
        raise SettingsError("opening_hours", "give opening and closing times per day.")
    cleaned: dict[str, list[str]] = {}
    for day, span in hours.items():
        if day not in DAYS:
            raise SettingsError("opening_hours", f"unknown day {str(day)[:10]!r}.")
        if not span:
            continue
        if not isinstance(span, (list, tuple)) or len(span) != 2 or not all(isinstance(t, str) and _HHMM.match(t) for t in span):
            raise SettingsError(f"opening_hours.{day}", "give opening and closing times as HH:MM.")
        if span[1] <= span[0]:
            raise SettingsError(f"opening_hours.{day}", "closing time must be after opening time.")
        cleaned[day] = [span[0], span[1]]
    return cleaned


def store_settings_update(*, store: Store, version: int, actor: str, **fields: Any) -> Store:
    """Save the store's settings over ``version``.

    ``fields``: name, timezone, currency, owner_name, opening_hours, report_time (a ``time``),
    business_type (a slug of an available type).

    Raises:
        SettingsConflict: the settings changed since ``version``.
        SettingsError: a value cannot be used (named by field).
    """
    with transaction.atomic():
        locked = Store.objects.select_for_update().get(pk=store.pk)
        if locked.version != version:
            raise SettingsConflict()
        for field, value in fields.items():
            if field == "business_type":
                kind = BusinessType.objects.filter(slug=value).first()
                newest = (PackVersion.objects.filter(business_type=kind, status=PackVersion.Status.PUBLISHED)
                          .order_by("-version").first() if kind is not None else None)
                if kind is None or newest is None:
                    raise SettingsError("business_type", "choose one of the available business types.")
                if kind.pk != locked.business_type_id:
                    # Another type: the store runs that type's newest published pack version from now on.
                    locked.business_type, locked.pack_version = kind, newest
            elif field == "opening_hours":
                locked.opening_hours = opening_hours_clean(value)
            elif field == "report_time":
                if not isinstance(value, dt.time):
                    raise SettingsError("report_time", "give a time as HH:MM.")
                locked.report_time = value
            elif field in ("name", "timezone", "currency", "owner_name"):
                setattr(locked, field, value.strip() if isinstance(value, str) else value)
            else:
                raise SettingsError(field, "is not a store setting.")
        try:
            locked.full_clean(exclude=["slug"])
        except ValidationError as exc:
            field, messages = next(iter(exc.message_dict.items()))
            raise SettingsError(field, " ".join(messages)) from None
        locked.version += 1
        locked.save()
    for field in ("name", "timezone", "currency", "owner_name", "opening_hours", "report_time", "business_type_id",
                  "pack_version_id", "version"):
        setattr(store, field, getattr(locked, field))
    return locked


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def recipient_add(*, store: Store, email: str, actor: str) -> ReportRecipient:
    """Add a report address and email it a confirmation link; reports go there only once it is confirmed.

    Raises:
        SettingsError: not an address, already listed, too many, or the store cannot email yet.
    """
    email = (email or "").strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise SettingsError("email", "that is not an email address.") from None
    if not store_can_email(store=store):
        raise SettingsError("email", "confirm your own email address first; until then the store sends no email.")
    secret = secrets.token_urlsafe(32)
    with store_context(store):
        if ReportRecipient.objects.filter(store=store).count() >= MAX_RECIPIENTS:
            raise SettingsError("email", f"at most {MAX_RECIPIENTS} report recipients.")
        try:
            with transaction.atomic():
                recipient = ReportRecipient.objects.create(store=store, email=email, token_hash=_hash(secret),
                                                           added_by=actor, created_at=timezone.now())
        except IntegrityError:
            raise SettingsError("email", f"{email} is already a report recipient.") from None
    link = f"{settings.PUBLIC_URL}/app/reports/confirm/{secret}/"
    transaction.on_commit(lambda: send_mail(
        subject=f"Confirm reports from {store.name}",
        message=f"{store.name} wants to send its daily reports to this address.\n\nConfirm here:\n{link}\n\n"
                "If you did not expect this, ignore this email and nothing will be sent.",
        from_email=settings.DEFAULT_FROM_EMAIL, recipient_list=[email], fail_silently=False,
    ))
    return recipient


def recipient_confirm(*, secret: str) -> ReportRecipient:
    """Confirm the address this link was sent to.

    Raises:
        SettingsError: the link is unknown.
    """
    if not secret or len(secret) > 100:
        raise SettingsError("link", "this confirmation link is not valid.")
    recipient = recipient_for_link(token_hash=_hash(secret))  # past the fence: the link names no store
    if recipient is None:
        raise SettingsError("link", "this confirmation link is not valid.")
    if recipient.confirmed_at is None:
        with use_store(recipient.store):  # the store is known now: the write is fenced
            recipient.confirmed_at = timezone.now()
            recipient.save(update_fields=["confirmed_at"])
    return recipient


def recipient_remove(*, store: Store, recipient_id: object) -> None:
    """Stop sending reports to one of the store's addresses (another store's is not found)."""
    if not isinstance(recipient_id, (int, str)):
        raise SettingsError("recipient", "that address was not found in this store.")
    try:
        with store_context(store):
            deleted, _ = ReportRecipient.objects.filter(store=store, pk=int(recipient_id)).delete()
    except (TypeError, ValueError):
        deleted = 0
    if not deleted:
        raise SettingsError("recipient", "that address was not found in this store.")
