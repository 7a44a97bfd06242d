"""Helpers for tests that take a backing service away (the process boundary, never our own code)."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: connecting to it is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_down_caches() -> dict:
    """CACHES for a deployment whose Redis does not answer."""
    return {"default": {"BACKEND": "shelfwise.cache.ResilientRedisCache", "LOCATION": f"redis://127.0.0.1:{closed_port()}/0"}}
