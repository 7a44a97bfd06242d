"""What the workers keep: turns handed to them, and report emails sent once.

Celery's own record of every task (state, worker, result) is django-celery-results' ``TaskResult``;
these rows add what a task needs to be safe to run twice: a turn's claim and its answer, an
email's idempotency key and whether it went.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from tenants.models import Store


class TurnJob(models.Model):
    """One assistant turn handed to a worker: what was asked, where it stands, what came of it.

    A job runs at most once: the worker claims it (queued → running) before the turn starts, and a
    redelivered message that finds it already running (its worker died mid-turn) reports it failed
    instead of running the owner's words a second time.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=20, help_text="api, voice, alexa or system (the turn command).")
    mode = models.CharField(max_length=10)
    conversation = models.CharField(max_length=64, blank=True, help_text="The conversation asked for; empty: a new one.")
    actor = models.CharField(max_length=80)
    text = models.TextField(blank=True, help_text="Typed text; empty for audio until it is transcribed.")
    idempotency_key = models.CharField(max_length=128, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    events = models.JSONField(default=list, blank=True, help_text="The turn's events so far, in order.")
    result = models.JSONField(null=True, blank=True, help_text="The answer (the shape of POST /api/v1/turns).")
    error_code = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True, help_text="What the owner was told when the turn did not finish.")
    attempts = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "created_at"], name="turnjob_status_created")]
        constraints = [
            models.UniqueConstraint(
                fields=["store", "idempotency_key"], condition=~Q(idempotency_key=""), name="turnjob_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"turn {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)


class ReportDispatch(models.Model):
    """One report email under an idempotency key: sent at most once, however often its task runs.

    ``sending`` is written (and committed) before the mail server is asked, so a task that dies
    after the send but before ``sent`` is recorded is not sent again: the row says ``unknown``.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Skipped"
        FAILED = "failed", "Failed"
        UNKNOWN = "unknown", "Interrupted while sending: may have gone"

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20)
    recipient = models.CharField(max_length=254, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    delivery = models.ForeignKey("ledger.ReportDelivery", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"
