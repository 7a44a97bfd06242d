"""Liveness for load balancers: 200 when the database answers, 503 when it does not.

Two doors to the same check. ``HealthCheck`` answers ``GET /healthz`` at the ASGI edge, before
Django's middleware: a probe that read every 200 ms went through the whole stack (sessions,
authentication, the store, CSRF, CSP) and waited behind the pages for a thread, so under load its
p95 said more about the pages than about the process (README "Load"). The Django view serves the
same answer to the test client and WSGI.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections, connection
from django.http import HttpRequest, JsonResponse

logger = logging.getLogger(__name__)

UP = {"status": "ok", "database": "ok"}
DOWN = {"status": "unavailable", "database": "down"}


def database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:  # the database is down or unreachable: say so, never a stack trace
        logger.exception("Health check: database did not answer")
        return False
    return True


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse(UP) if database_answers() else JsonResponse(DOWN, status=503)


def _edge_check() -> bool:
    """The check in a pool thread of its own: its connection goes back (to the pool) when done."""
    close_old_connections()
    try:
        return database_answers()
    finally:
        connection.close()


class HealthCheck:
    """ASGI middleware: ``GET``/``HEAD /healthz`` answered here; everything else goes to ``app``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # the wrapped app's ``lifespan`` stays reachable

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != "/healthz" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        up = await sync_to_async(_edge_check, thread_sensitive=False)()
        body = json.dumps(UP if up else DOWN).encode()
        await send({"type": "http.response.start", "status": 200 if up else 503, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
        ]})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
