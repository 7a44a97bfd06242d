"""Django's Redis cache, with this process's memory standing in while Redis does not answer.

The cache holds nothing that must survive: rate-limit windows (MCP calls, the shelf finder,
DRF throttles, allauth), benchmark progress, short-lived lookups. When Redis is down or slow,
each operation falls back to a local-memory cache instead of raising, so a page, an MCP tool
call or the shelf finder keeps answering and rate limits keep counting (per process, until
Redis is back) instead of becoming a 500. After a failure Redis is left alone for
``RETRY_AFTER_S`` seconds, so a dead server costs one short connect timeout per process per
interval, not one per request.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis import exceptions as redis_errors

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 5.0
# Seconds; a cache that makes a request wait longer than this is worse than no cache.
CONNECT_TIMEOUT_S = 0.5
READ_TIMEOUT_S = 1.0
REDIS_DOWN = (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError)


# Per Redis location, shared by every thread's cache object in this process: when Redis was last
# found down, so one failure spares the other threads their own connect timeout.
_down_until: dict[str, float] = {}
_down_lock = threading.Lock()


class ResilientRedisCache(RedisCache):
    """``RedisCache`` that degrades to a per-process ``LocMemCache`` instead of raising."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        params = {**params, "OPTIONS": {
            "socket_connect_timeout": CONNECT_TIMEOUT_S, "socket_timeout": READ_TIMEOUT_S, **params.get("OPTIONS", {}),
        }}
        super().__init__(server, params)
        self._location = str(server)
        fallback_params = {key: value for key, value in params.items() if key in ("TIMEOUT", "KEY_PREFIX", "VERSION")}
        # One fallback store per location for the whole process (LocMemCache shares storage by name),
        # so rate-limit windows count across threads while Redis is down.
        self._fallback = LocMemCache(f"shelfwise-fallback:{self._location}", fallback_params)

    @property
    def degraded(self) -> bool:
        """True while Redis is being skipped after a failure."""
        return time.monotonic() < _down_until.get(self._location, 0.0)

    def _trip(self, exc: BaseException) -> None:
        with _down_lock:
            first = not self.degraded
            _down_until[self._location] = time.monotonic() + RETRY_AFTER_S
        if first:
            logger.warning("Redis cache unavailable (%s); using this process's memory for %.0f s", exc, RETRY_AFTER_S)

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not self.degraded:
            try:
                return getattr(super(), name)(*args, **kwargs)
            except REDIS_DOWN as exc:
                self._trip(exc)
        return getattr(self._fallback, name)(*args, **kwargs)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("add", key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._call("get", key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set", key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("touch", key, timeout, version)

    def delete(self, key, version=None):
        return self._call("delete", key, version)

    def get_many(self, keys, version=None):
        return self._call("get_many", keys, version)

    def has_key(self, key, version=None):
        return self._call("has_key", key, version)

    def incr(self, key, delta=1, version=None):
        return self._call("incr", key, delta, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set_many", data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._call("delete_many", keys, version)

    def clear(self):
        self._fallback.clear()
        return self._call("clear")
