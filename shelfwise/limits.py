"""Request body limits at the ASGI edge, before Django reads (and spools) a body.

Django's ASGI handler reads a whole request body into a temporary file before any view or
middleware runs, and ``DATA_UPLOAD_MAX_MEMORY_SIZE`` does not cover file uploads. ``BodyLimit``
sits in front of it: a request whose ``Content-Length`` is over the path's limit is answered
413 at once, unread; a body without a length (chunked) is read into memory only up to the limit
and answered 413 the moment it goes over. Nothing over the limit reaches the application or the
disk. The limits are ``REQUEST_BODY_MAX_BYTES`` (pages, REST, Alexa) and ``MCP_BODY_MAX_BYTES``
(``/mcp``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MESSAGE = "The request body is too large: this endpoint takes at most {limit} bytes."


def limit_for(path: str) -> int:
    """The largest body, in bytes, that ``path`` accepts."""
    if path == "/mcp" or path.startswith("/mcp/"):
        return settings.MCP_BODY_MAX_BYTES
    return settings.REQUEST_BODY_MAX_BYTES


class BodyLimit:
    """ASGI middleware: HTTP request bodies over the path's limit get a 413 and never reach ``app``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        # The wrapped app's extras (the MCP gateway's ``lifespan``) stay reachable.
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope.get("path", ""))
        length = _content_length(scope)
        if length is not None:
            if length > limit:
                await _too_large(send, limit)
                return
            # The length is within the limit; the server (h11, httptools) holds the client to it.
            await self.app(scope, receive, send)
            return
        messages, total = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                messages.append(message)  # a disconnect: let the app see it
                break
            total += len(message.get("body", b""))
            if total > limit:
                await _too_large(send, limit)
                return
            messages.append(message)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(messages, receive), send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return max(int(value), 0)
            except ValueError:
                return None
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"error": {"code": "too_large", "message": MESSAGE.format(limit=limit)}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
