"""Idempotency keys: one row per (store, credential, key) for side-effecting calls that carried a key."""

from __future__ import annotations

from django.db import models

from tenants.models import Store


class IdempotencyKey(models.Model):
    """The first successful result of a side-effecting call made with this key.

    The row is inserted in the same transaction as the call's writes, so a concurrent call with
    the same key waits on the unique index and then replays instead of running twice; a call
    that fails leaves no row, so a retry runs again.

    Keys are scoped per credential (``credential``: ``token:<prefix>``, or the in-process caller):
    one client cannot replay, or block, another client's key. They expire after
    ``IDEMPOTENCY_KEY_TTL_HOURS``: an expired key runs the call again, and
    ``manage.py purge_idempotency_keys`` deletes expired rows.
    """

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    credential = models.CharField(max_length=160, default="", help_text="Whose key: the caller's credential.")
    key = models.CharField(max_length=128)
    tool = models.CharField(max_length=80)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the tool name and its arguments.")
    result = models.JSONField(default=dict, blank=True)
    message = models.TextField(blank=True)
    record = models.ForeignKey("audit.Record", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["store", "credential", "key"], name="idempotency_unique_store_cred_key")
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.key}"
