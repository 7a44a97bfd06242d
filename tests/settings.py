"""The test suite's settings: the project's own, with each parallel worker on its own Redis database.

``make test`` runs the suite in several processes (pytest-xdist). Tests empty the cache between
them (``cache.clear()``, which is FLUSHDB on Redis) and keep throttle windows, socket slots and
channel-layer messages there; two workers on one database would wipe each other's mid-test.
Worker ``gwN`` therefore uses database ``base + N`` of the same server (modulo 16, Redis's default
number of databases), where ``base`` is the one ``REDIS_URL`` names: CI's ``/15`` gives 15 and 0.
The URL is rewritten in the environment before the project's settings read it, so the cache, the
channel layer, the Celery broker and any subprocess a test starts all agree. A serial run
(no worker id) keeps ``REDIS_URL`` as it is. PostgreSQL needs nothing here: pytest-django gives
each worker its own test database (``test_<name>_gw0``, ``..._gw1``).
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

_REDIS_DATABASES = 16


def worker_redis_url(url: str | None, worker: str | None) -> str | None:
    """``url`` moved to the database of xdist worker ``worker`` (``gw0``, ``gw1`` ...); unchanged outside xdist."""
    match = re.fullmatch(r"gw(\d+)", worker or "")
    if not url or not match:
        return url
    parts = urlsplit(url)
    if parts.scheme not in {"redis", "rediss"}:
        return url  # unix sockets name their database in the query; left alone
    base = int(parts.path.strip("/") or 0)
    database = (base + int(match.group(1))) % _REDIS_DATABASES
    return urlunsplit(parts._replace(path=f"/{database}"))


_given_redis_url = os.environ.get("REDIS_URL")
_worker_redis_url = worker_redis_url(_given_redis_url, os.environ.get("PYTEST_XDIST_WORKER"))
if _worker_redis_url:
    os.environ["REDIS_URL"] = _worker_redis_url

from shelfwise.settings import *  # noqa: E402, F403
