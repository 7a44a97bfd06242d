"""Alerts and each store's alert preferences and digests. Every row carries its store (fenced by RLS)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from alerts.kinds import Channel, Kind
from tenants.models import Store


class Alert(models.Model):
    """One event the store spoke up about, raised once: (store, kind, event_key) is unique.

    ``facts`` are the ledger's figures at the time (product, stock, reorder point, revenue...);
    the sentence is built from them in code (``alerts.messages``). ``delivered`` lists the
    channels it went out on, each at most once.
    """

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    event_key = models.CharField(max_length=200, help_text="What happened, e.g. stock:<journal entry id>, day:<date>.")
    product = models.ForeignKey("ledger.Product", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    facts = models.JSONField(default=dict)
    created_at = models.DateTimeField()
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.CharField(max_length=120, blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    delivered = models.JSONField(default=list, blank=True, help_text="Channels it went out on.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["store", "kind", "event_key"], name="alert_unique_event"),
        ]
        indexes = [
            models.Index(fields=["store", "acknowledged_at", "created_at"], name="alert_store_open"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.event_key})"

    @property
    def message(self) -> str:
        from alerts.messages import alert_message

        return alert_message(self.kind, self.facts)


class AlertPreference(models.Model):
    """A store's choice for one kind: on or off, and where it goes. No row: on, every channel."""

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    enabled = models.BooleanField(default=True)
    channels = models.JSONField(default=list, help_text=f"Any of: {', '.join(Channel.values)}.")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["kind"]
        constraints = [models.UniqueConstraint(fields=["store", "kind"], name="alertpref_unique_kind")]

    def __str__(self) -> str:
        return f"{self.kind}: {'on' if self.enabled else 'off'}"


class AlertDigest(models.Model):
    """The daily email of open alerts: one per store and day, claimed before it is sent."""

    class Status(models.TextChoices):
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        EMPTY = "empty", "Nothing to send"
        SKIPPED = "skipped", "Nowhere to send"
        FAILED = "failed", "Mail server refused"

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENDING)
    alerts = models.PositiveIntegerField(default=0)
    recipients = models.CharField(max_length=500, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["store", "day"], name="alertdigest_unique_day")]

    def __str__(self) -> str:
        return f"Alert digest {self.day} ({self.status})"


OPEN = Q(acknowledged_at__isnull=True)
