"""The project's ASGI application (HTTP, websockets, MCP) under uvicorn in a thread, for live tests.

Tests that talk to it use ``django_db(transaction=True)``: their rows are committed, so the
server's own connection sees them (SQLite's shared in-memory test database, PostgreSQL alike).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

STARTUP_TIMEOUT_S = 15


@contextmanager
def asgi_server(*, extra_args: dict | None = None) -> Iterator[str]:
    """Serve ``shelfwise.asgi.application`` on a free port of 127.0.0.1 and yield its base URL."""
    from shelfwise.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(application, lifespan="on", log_level="warning", access_log=False, **(extra_args or {}))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="asgi-live-server", daemon=True)
    thread.start()
    waiter = threading.Event()
    for _ in range(STARTUP_TIMEOUT_S * 100):
        if server.started or not thread.is_alive():
            break
        waiter.wait(0.01)
    if not server.started:
        raise RuntimeError("The live test server did not start.")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT_S)
        sock.close()
