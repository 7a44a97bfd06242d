"""``/mcp`` inside the project's ASGI application: host and origin checks, bearer auth, the SDK.

``McpGateway`` wraps the Django ASGI app. It answers two paths itself and passes every other
request through untouched:

* ``/mcp``: Streamable HTTP, stateless, JSON responses, served by the official SDK's session
  manager. Only POST (GET and DELETE answer 405: a stateless server has no stream to open and
  no session to end). The ``Host`` must be one of ``ALLOWED_HOSTS`` and an ``Origin``, when
  sent, must be too (or be in ``CSRF_TRUSTED_ORIGINS``): browsers on other sites cannot reach
  the tools. The bearer token must be a live store token with the ``mcp`` scope; that scope is
  the token's audience, so a REST-only token is refused here. An OAuth access token from this
  deployment's authorization server (``identity``) is accepted too, only if it was issued for
  this ``/mcp`` (RFC 8707 resource indicator). Otherwise 401 (403 for a token without the
  scope) with ``WWW-Authenticate`` pointing at the metadata below.
* ``/.well-known/oauth-protected-resource/mcp``: RFC 9728 protected-resource metadata, naming
  this deployment as its authorization server.

The SDK's session manager needs a running task group. Under uvicorn with ``--lifespan on`` it
starts at startup and stops at shutdown; servers that do not run the ASGI lifespan (daphne, so
``manage.py runserver``) start it on the first request instead. It is kept per event loop, so
several servers in one process (tests) each get their own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections
from django.http.request import split_domain_port, validate_host
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from identity.credentials import credential_authenticate
from mcp_gateway.policy import Caller
from mcp_gateway.registry import CONFIRM_SCOPE, MCP_SCOPE
from mcp_gateway.server import SCOPE_KEY, UNAVAILABLE, ShelfwiseMCPServer, server_build
from tenants.errors import InvalidToken, MissingScope

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"
_DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]

Scope = dict[str, Any]


class _Runner:
    """The SDK's session manager for one event loop, its task group held by a background task."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None

    async def started(self) -> StreamableHTTPSessionManager:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="mcp-session-manager")
        await self._ready.wait()
        if self._error is not None:
            raise RuntimeError("The MCP session manager could not start.") from self._error
        return self.manager

    async def _run(self) -> None:
        try:
            async with self.manager.run():
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:  # reported to every waiting request
            self._error = error
            self._ready.set()
            if not isinstance(error, Exception):
                raise

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task


class McpGateway:
    """ASGI: ``/mcp`` and its metadata here, every other request to ``app``."""

    def __init__(self, app: Any, server: ShelfwiseMCPServer | None = None) -> None:
        self.app = app
        self.server = server or server_build()
        self._runners: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Runner] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(scope, receive, send)
        elif scope["type"] == "http" and scope["path"] in (MCP_PATH, METADATA_PATH):
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # -- lifespan --------------------------------------------------------------------------

    async def lifespan(self, scope: Scope, receive: Any, send: Any) -> None:
        """Start the MCP session manager at startup; at shutdown stop it and close the worker's connections."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._runner().started()
                except Exception as error:
                    logger.exception("MCP gateway failed to start")
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                runner = self._runners.pop(asyncio.get_running_loop(), None)
                if runner is not None:
                    await runner.stop()
                # Requests ran their database work in the thread-sensitive worker: close its
                # connections (kept for CONN_MAX_AGE) so a shutdown leaves no session behind.
                await sync_to_async(connections.close_all)()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _runner(self) -> _Runner:
        loop = asyncio.get_running_loop()
        runner = self._runners.get(loop)
        if runner is None:
            with self._lock:
                # One session manager per loop; streamable_http_app() builds a fresh one each call.
                self.server.streamable_http_app(
                    streamable_http_path=MCP_PATH,
                    json_response=True,
                    stateless_http=True,
                    # Host and Origin are checked here, against ALLOWED_HOSTS, before the SDK runs.
                    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                )
                runner = _Runner(self.server.session_manager)
            self._runners[loop] = runner
        return runner

    # -- HTTP ------------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Any, send: Any) -> None:
        headers = _headers(scope)
        host = headers.get("host", "")
        if not _host_allowed(host):
            await _respond(send, 421, {"error": "invalid_host", "error_description": "This host is not served here."})
            return
        origin = headers.get("origin")
        if origin is not None and not _origin_allowed(origin):
            await _respond(send, 403, {"error": "invalid_origin", "error_description": "Requests from this origin are not allowed."})
            return
        method = scope["method"]
        if scope["path"] == METADATA_PATH:
            if method not in ("GET", "HEAD"):
                await _respond(send, 405, {"error": "method_not_allowed"}, extra=[(b"allow", b"GET, HEAD")])
                return
            await _respond(send, 200, _metadata(scope, host), extra=[(b"access-control-allow-origin", b"*")])
            return
        if method != "POST":
            # Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
            await _respond(
                send,
                405,
                {"error": "method_not_allowed", "error_description": "This MCP server is stateless: POST only."},
                extra=[(b"allow", b"POST")],
            )
            return
        raw = _bearer(headers.get("authorization", ""))
        if raw is None:
            await self._challenge(send, scope, host, 401, None, "Send a store token: Authorization: Bearer <token>.")
            return
        try:
            caller = await sync_to_async(_authenticate)(raw, f"{_base_url(scope, host)}{MCP_PATH}")
        except MissingScope:
            await self._challenge(
                send, scope, host, 403, "insufficient_scope", "This store token is not for MCP: it lacks the 'mcp' scope."
            )
            return
        except InvalidToken as error:
            await self._challenge(send, scope, host, 401, "invalid_token", error.message)
            return
        except Exception:
            logger.exception("MCP authentication could not run")
            await _respond(send, 503, {"error": "unavailable", "error_description": UNAVAILABLE})
            return
        scope = {**scope, SCOPE_KEY: caller}
        try:
            manager = await self._runner().started()
            await manager.handle_request(scope, receive, send)
        finally:
            await sync_to_async(close_old_connections)()

    async def _challenge(self, send: Any, scope: Scope, host: str, status: int, error: str | None, description: str) -> None:
        parts = [f'resource_metadata="{_base_url(scope, host)}{METADATA_PATH}"', f'scope="{MCP_SCOPE}"']
        if error is not None:
            parts = [f'error="{error}"', f'error_description="{description}"', *parts]
        challenge = "Bearer " + ", ".join(parts)
        body = {"error": error or "invalid_request", "error_description": description}
        await _respond(send, status, body, extra=[(b"www-authenticate", challenge.encode("latin-1", "replace"))])


def _authenticate(raw: str, resource: str) -> Caller:
    """The caller behind a bearer token: a store token, or an OAuth access token issued for this
    ``/mcp`` (RFC 8707); run in the worker thread that also runs the tools.

    Raises:
        InvalidToken: unknown, malformed, expired, revoked, or an OAuth token for another resource.
        MissingScope: a valid token without the ``mcp`` scope.
    """
    close_old_connections()
    token = credential_authenticate(raw=raw, scope=MCP_SCOPE, resource=resource, require_resource=True)
    return Caller.for_token(token)


def _headers(scope: Scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return headers


def _bearer(value: str) -> str | None:
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _allowed_hosts() -> list[str]:
    return list(settings.ALLOWED_HOSTS) or (_DEBUG_HOSTS if settings.DEBUG else [])


def _host_allowed(host: str) -> bool:
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


def _origin_allowed(origin: str) -> bool:
    """Same rule as the host (so the site itself may call), or one of CSRF_TRUSTED_ORIGINS."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        wanted = urlsplit(trusted)
        if wanted.scheme == parts.scheme and wanted.netloc.startswith("*.") and parts.netloc.endswith(wanted.netloc[1:]):
            return True
    return _host_allowed(parts.netloc)


def _base_url(scope: Scope, host: str) -> str:
    """This deployment's URL as the client reached it: PUBLIC_URL when it names this host."""
    public = urlsplit(settings.PUBLIC_URL)
    if public.netloc.lower() == host.lower():
        return f"{public.scheme}://{public.netloc}"
    return f"{scope.get('scheme', 'http')}://{host}"


def _metadata(scope: Scope, host: str) -> dict[str, Any]:
    base = _base_url(scope, host)
    # This deployment is its own authorization server (identity: RFC 8414 metadata at the root);
    # the owner's static store tokens keep working alongside.
    return {
        "resource": f"{base}{MCP_PATH}",
        "resource_name": "Shelfwise store tools",
        "authorization_servers": [base],
        "bearer_methods_supported": ["header"],
        "scopes_supported": [MCP_SCOPE, CONFIRM_SCOPE],
    }


async def _respond(send: Any, status: int, body: dict[str, Any], *, extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"cache-control", b"no-store"),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
