"""``manage.py purge_idempotency_keys``: delete expired MCP idempotency keys (run it daily)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from mcp_gateway.execution import idempotency_keys_purge


class Command(BaseCommand):
    help = "Delete MCP idempotency keys older than IDEMPOTENCY_KEY_TTL_HOURS, across stores."

    def handle(self, *args, **options) -> None:
        self.stdout.write(f"Deleted {idempotency_keys_purge()} expired idempotency keys.")
