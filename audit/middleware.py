"""One audit record for every write a person or a till makes on the owner pages or the REST API.

The assistant's turns and MCP tool calls are audited where they run (``audit.turns``,
``mcp_gateway.execution``); this covers the rest: a POST, PUT, PATCH or DELETE under ``/app/``
(channel ``dashboard``) or ``/api/v1/`` (channel ``api``) that acted for a store. The record
names the page or endpoint (its URL name), who acted, the fields sent (secrets and files left
out, values cut short) and how it ended, so an auditor sees a count set on the inventory page
beside the same change made by voice. What changed is in the books' own journal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse

from audit.models import Channel, Record
from tenants.authentication import TokenUser, request_actor
from tenants.context import store_context

logger = logging.getLogger(__name__)

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CHANNELS = (("/api/v1/", Channel.API), ("/app/", Channel.DASHBOARD))
# Audited where they run: a turn by the pipeline, its audio the same way.
SKIPPED = ("/api/v1/turns", "/app/talk/")
SECRET = ("password", "token", "secret", "csrf")
MAX_FIELDS = 40
MAX_VALUE = 200


def _channel(path: str) -> str | None:
    if path.startswith(SKIPPED):
        return None
    return next((channel for prefix, channel in CHANNELS if path.startswith(prefix)), None)


def _outcome(status: int) -> str:
    if status < 400:
        return Record.Outcome.OK
    if status in (401, 403):
        return Record.Outcome.DENIED
    if status == 429:
        return Record.Outcome.RATE_LIMITED
    return Record.Outcome.INVALID if status < 500 else Record.Outcome.ERROR


def _short(value: Any) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + "…"


def _fields(request: HttpRequest) -> dict[str, Any]:
    """What was sent, without secrets or file contents (a file is its name)."""
    sent: dict[str, Any] = {}
    if request.content_type == "application/json":
        try:
            body = json.loads(request.body or b"{}")
        except Exception:  # noqa: BLE001 - unreadable or already streamed: the record says so
            body = {"_body": "not readable"}
        sent = body if isinstance(body, dict) else {"_body": body}
    else:
        sent = {key: request.POST.getlist(key) for key in request.POST}
        sent = {key: values[0] if len(values) == 1 else values for key, values in sent.items()}
        sent.update({key: f"file {getattr(upload, 'name', '')}" for key, upload in request.FILES.items()})
    return {
        key: _short(value) for key, value in list(sent.items())[:MAX_FIELDS]
        if not any(word in key.lower() for word in SECRET)
    }


class WriteAuditMiddleware:
    """Append the record after the response (it never changes the response, and never fails it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        channel = _channel(request.path) if request.method in WRITES else None
        fields = _fields(request) if channel else {}  # read before the view streams the body away
        response = self.get_response(request)
        store = getattr(request, "store", None)
        if channel and store is not None:
            self._record(request, response, store, channel, fields)
        return response

    @staticmethod
    def _record(request: HttpRequest, response: HttpResponse, store: Any, channel: str, fields: dict[str, Any]) -> None:
        match = request.resolver_match
        name = match.view_name if match else request.path
        user = getattr(request, "user", None)
        try:
            with store_context(store):
                Record.objects.create(
                    store=store, kind=Record.Kind.EVENT, channel=channel, actor=request_actor(request)[:120],
                    credential=user.token if isinstance(user, TokenUser) else None, name=name[:80],
                    arguments=fields, result={"status": response.status_code, "path": request.path[:200]},
                    outcome=_outcome(response.status_code), data={"method": request.method},
                )
        except DatabaseError:  # the write happened; a lost audit line is logged, not turned into a 500
            logger.exception("Could not audit %s %s for store %s", request.method, request.path, store.pk)
