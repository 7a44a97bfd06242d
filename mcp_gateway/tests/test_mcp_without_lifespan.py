"""Servers without the ASGI lifespan (daphne, so ``manage.py runserver``) still serve /mcp."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
import uvicorn
from asgiref.sync import sync_to_async
from django.db import connections

from mcp_gateway.registry import REGISTRY
from mcp_gateway.tests.conftest import (
    STARTUP_TIMEOUT_S,
    McpServerUrl,
    call,
    mcp_session,
)

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(scope="module")
def server_without_lifespan():
    from shelfwise.asgi import application, http_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    waiting = threading.Event()
    for _ in range(STARTUP_TIMEOUT_S * 100):
        if server.started:
            break
        waiting.wait(0.01)
    try:
        yield McpServerUrl(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}")
    finally:
        # No lifespan shutdown here: close the worker thread's database connections by hand.
        for loop in list(http_app._runners):
            asyncio.run_coroutine_threadsafe(sync_to_async(connections.close_all)(), loop).result(STARTUP_TIMEOUT_S)
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT_S)
        sock.close()


def test_the_gateway_starts_on_the_first_request(server_without_lifespan, shop, mcp_token):
    listing = mcp_session(server_without_lifespan.mcp_url, mcp_token, lambda client: client.list_tools())
    result = call(server_without_lifespan.mcp_url, mcp_token, "get_inventory", {"item": "basmati"}, mode="legacy")

    assert len(listing.tools) == len(REGISTRY)
    assert result.structured_content["product"]["name"] == "Basmati rice"
