"""Append-only records of what happened to a store: turns, model calls, tool calls and their SQL."""

from __future__ import annotations

from django.db import models

from tenants.models import Store, StoreToken


class Channel(models.TextChoices):
    MCP = "mcp", "MCP client"
    ASSISTANT = "assistant", "Assistant"
    DASHBOARD = "dashboard", "Dashboard"
    API = "api", "REST API"
    ALEXA = "alexa", "Alexa"
    VOICE = "voice", "Voice (talk page)"
    SYSTEM = "system", "System"


class Turn(models.Model):
    """One owner request handled by the assistant, with its mode, latency and outcome."""

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    conversation = models.CharField(max_length=64, db_index=True)
    index = models.PositiveIntegerField(help_text="Position of the turn in its conversation, from 1.")
    mode = models.CharField(max_length=20)
    channel = models.CharField(max_length=10, choices=Channel.choices)
    actor = models.CharField(max_length=120)
    text = models.TextField()
    normalized = models.TextField(blank=True)
    action = models.CharField(max_length=40, blank=True)
    reply = models.TextField(blank=True)
    outcome = models.CharField(max_length=20, help_text="answered, refused, clarified, blocked, error")
    latency_ms = models.FloatField(default=0)
    stages = models.JSONField(default=dict, help_text="Milliseconds spent in each pipeline stage.")
    result = models.JSONField(default=dict, help_text="The turn's public answer, as returned by the API.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["store", "created_at"], name="turn_store_time")]

    def __str__(self) -> str:
        return f"Turn {self.index} of {self.conversation} ({self.outcome})"


class Record(models.Model):
    """One audited step: a tool call, a model call or a guard verdict, in order within its conversation."""

    class Kind(models.TextChoices):
        TOOL_CALL = "tool_call", "Tool call"
        MODEL_CALL = "model_call", "Model call"
        GUARD = "guard", "Guard verdict"
        EVENT = "event", "Event"

    class Outcome(models.TextChoices):
        OK = "ok", "OK"
        ERROR = "error", "Error"
        REFUSED = "refused", "Refused by policy"
        INVALID = "invalid", "Invalid arguments"
        DENIED = "denied", "Not authorised"
        RATE_LIMITED = "rate_limited", "Rate limited"
        REPLAYED = "replayed", "Idempotent replay"
        TIMEOUT = "timeout", "Timed out"

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, null=True, blank=True, on_delete=models.CASCADE, related_name="records")
    conversation = models.CharField(max_length=64, blank=True, db_index=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    channel = models.CharField(max_length=10, choices=Channel.choices)
    mode = models.CharField(max_length=20, blank=True)
    credential = models.ForeignKey(StoreToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    actor = models.CharField(max_length=120)
    name = models.CharField(max_length=80, help_text="The tool's name, or the model role (router, guard...).")
    arguments = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    error = models.TextField(blank=True)
    idempotency_key = models.CharField(max_length=128, blank=True)
    duration_ms = models.FloatField(default=0)
    data = models.JSONField(default=dict, blank=True, help_text="Model request and response, token counts, extra detail.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["store", "kind", "created_at"], name="record_store_kind_time"),
            models.Index(fields=["store", "idempotency_key"], name="record_store_idem"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name} ({self.outcome})"


class SqlStatement(models.Model):
    """A SQL statement executed while a record's step ran, in order, with its duration."""

    record = models.ForeignKey(Record, on_delete=models.CASCADE, related_name="statements")
    seq = models.PositiveIntegerField()
    sql = models.TextField()
    duration_ms = models.FloatField()

    class Meta:
        ordering = ["record", "seq"]

    def __str__(self) -> str:
        return f"Statement {self.seq} of record {self.record_id}"
