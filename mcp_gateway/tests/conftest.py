"""Fixtures for the gateway: a real uvicorn server on 127.0.0.1, MCP clients, small catalogs.

The server runs the project's ASGI application (``shelfwise.asgi.application``, lifespan on) in
a thread of the test process, one per test module. Tests that talk to it use
``django_db(transaction=True)``: their rows are committed, so the server's own database
connection sees them, on SQLite (the shared in-memory test database) and on PostgreSQL alike.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ledger import services
from tenants.context import use_store
from tenants.models import Store
from tenants.services import token_create

T = TypeVar("T")
STARTUP_TIMEOUT_S = 15


@dataclass(frozen=True)
class McpServerUrl:
    base_url: str

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"


@pytest.fixture(scope="module")
def mcp_server() -> Iterator[McpServerUrl]:
    """``shelfwise.asgi.application`` under uvicorn, lifespan on, on a free port of 127.0.0.1."""
    from shelfwise.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(application, lifespan="on", log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="mcp-live-server", daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(STARTUP_TIMEOUT_S * 100):
        if server.started or not thread.is_alive():
            break
        started.wait(0.01)
    if not server.started:
        raise RuntimeError("The test MCP server did not start.")
    try:
        yield McpServerUrl(base_url=f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT_S)
        sock.close()


def mcp_session(
    url: str, token: str | None, use: Callable[[Client], Awaitable[T]], *, mode: str = "auto", headers: dict[str, str] | None = None
) -> T:
    """Open an official MCP client on ``url`` with the bearer ``token``, run ``use`` with it, close it."""

    async def main() -> T:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        async with (
            httpx2.AsyncClient(headers=sent, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            return await use(client)

    return anyio.run(main)


def call(url: str, token: str, tool: str, arguments: dict[str, Any] | None = None, **options: Any):
    """One ``tools/call`` through the official client."""
    meta = options.pop("meta", None)
    return mcp_session(url, token, lambda client: client.call_tool(tool, arguments or {}, meta=meta), **options)


def catalog_install(store: Store, rows: list[tuple[str, int, int, int, list[str]]]) -> None:
    """Products as (name, stock, reorder point, par level, aliases), through the ledger's services."""
    with use_store(store):
        for name, stock, reorder_point, par, aliases in rows:
            services.product_create(
                store=store,
                name=name,
                unit="1 kg bag",
                category="Staples",
                location="Aisle 2, middle shelf",
                stock=stock,
                par_level=par,
                reorder_point=reorder_point,
                price=Decimal("4.99"),
                unit_cost=Decimal("2.50"),
                aliases=aliases,
                actor="system:test",
            )


CORNER_SHOP = [
    ("Basmati rice", 20, 5, 30, ["basmati"]),
    ("Toor dal", 4, 5, 24, ["turdal", "arhar dal"]),
    ("Chana dal", 12, 4, 20, []),
    ("Moong dal", 9, 4, 20, []),
    ("Jaggery", 2, 3, 12, ["gur"]),
]
OTHER_SHOP = [
    ("Basmati rice", 77, 10, 90, []),
    ("Claw hammer", 3, 2, 8, []),
]


@pytest.fixture
def shop(store, owner) -> Store:
    """The owner's store with a small catalog: two items low (Toor dal, Jaggery)."""
    catalog_install(store, CORNER_SHOP)
    return store


@pytest.fixture
def other_shop(other_store, other_owner) -> Store:
    catalog_install(other_store, OTHER_SHOP)
    return other_store


@pytest.fixture
def mcp_token(shop) -> str:
    return token_create(store=shop, name="Claude Desktop", scopes=["mcp"])[1]


@pytest.fixture
def confirm_token(shop) -> str:
    return token_create(store=shop, name="Owner's agent", scopes=["mcp", "orders:confirm"])[1]


@pytest.fixture
def other_token(other_shop) -> str:
    return token_create(store=other_shop, name="Other client", scopes=["mcp"])[1]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """The cast's passwords are hashed with a fast hasher: these tests are about tools, not logins."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit windows live in the cache (Redis in CI): each test starts with none open."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
