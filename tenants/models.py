"""Stores (the tenants), who belongs to them, and the credentials that act for them."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a known time zone (for example America/Chicago).")


class BusinessType(models.Model):
    """A vendor's pack for one kind of store (grocery, hardware...): its actions and lexicon live in data."""

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=100)
    # The vendor who created it, who alone may upload and publish its versions (None: the platform's).
    vendor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="business_types")

    class Meta:
        ordering = ["position", "name"]

    def __str__(self) -> str:
        return self.name


class PackVersion(models.Model):
    """One version of a business type's pack: its files as text (``packs``), a draft or published.

    A published version never changes: the database refuses any update of its row (a trigger,
    migration 0008), so a store pinned to it runs the same words, actions and prompt until it moves.
    A change is a new version.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"

    business_type = models.ForeignKey(BusinessType, on_delete=models.PROTECT, related_name="versions")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True)
    files = models.JSONField(help_text="The pack's files: path inside the pack -> text.")
    digest = models.CharField(max_length=64, db_index=True, help_text="sha256 of the files (packs.source.digest_of).")
    created_by = models.CharField(max_length=120, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["business_type", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["business_type", "version"], name="pack_version_unique"),
            models.CheckConstraint(
                condition=models.Q(status="draft", published_at__isnull=True)
                | models.Q(status="published", published_at__isnull=False),
                name="pack_version_published_has_a_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.business_type.slug} {self.version} ({self.status})"


class Store(models.Model):
    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=120)
    business_type = models.ForeignKey(BusinessType, on_delete=models.PROTECT, related_name="stores")
    # The published pack version the store runs (its prompt, lexicon, actions, matcher examples) until it moves.
    pack_version = models.ForeignKey(PackVersion, on_delete=models.PROTECT, null=True, blank=True,
                                     related_name="stores")
    timezone = models.CharField(max_length=64, default="America/Chicago", validators=[validate_timezone])
    currency = models.CharField(
        max_length=3, default="USD", validators=[RegexValidator(r"^[A-Z]{3}$", "Use a three-letter ISO currency code.")]
    )
    owner_name = models.CharField(max_length=80, blank=True, help_text="How the assistant addresses the owner.")
    opening_hours = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per weekday ("mon".."sun") the opening and closing time as ["09:00", "21:00"]; a missing day is closed.',
    )
    report_time = models.TimeField(
        default=dt.time(21, 0), help_text="When the daily sales and inventory reports go out, in the store's time zone."
    )
    version = models.PositiveIntegerField(default=1, help_text="Raised by every settings change, so concurrent edits conflict.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        STAFF = "staff", "Staff"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.STAFF)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "store"], name="membership_unique_user_store")]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.store}"


TOKEN_NAME_MAX = 80


class StoreToken(models.Model):
    """A bearer credential for one store. Only a hash of the secret is stored; the token is shown once."""

    class Scope(models.TextChoices):
        API = "api", "REST API"
        MCP = "mcp", "MCP tools"
        ORDERS_CONFIRM = "orders:confirm", "Confirm orders over MCP"

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=TOKEN_NAME_MAX)
    prefix = models.CharField(max_length=16, unique=True, help_text="Public part used to find the token.")
    secret_hash = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Refused from this moment on; never if empty.")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        from django.utils import timezone

        return self.revoked_at is None and (self.expires_at is None or self.expires_at > timezone.now())

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class Invitation(models.Model):
    """An owner's invitation to join a store, sent by email; the link carries a secret kept only as a hash."""

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Membership.Role.choices, default=Membership.Role.STAFF)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["store", "created_at"], name="invitation_store_time")]

    def __str__(self) -> str:
        return f"{self.email} to {self.store} as {self.role}"


class ReportRecipient(models.Model):
    """An address the store's reports go to, once its owner confirmed it by the emailed link."""

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="report_recipients")
    email = models.EmailField()
    token_hash = models.CharField(max_length=64, unique=True)
    added_by = models.CharField(max_length=120)
    created_at = models.DateTimeField()
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["email", "pk"]
        constraints = [models.UniqueConstraint(fields=["store", "email"], name="recipient_unique_store_email")]

    def __str__(self) -> str:
        return self.email

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None
