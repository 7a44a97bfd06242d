"""Parallel test workers each get their own Redis database (tests/settings.py)."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from tests import settings as test_settings
from tests.settings import worker_redis_url


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/12", "gw0", "redis://127.0.0.1:6379/12"),
        ("redis://127.0.0.1:6379/12", "gw1", "redis://127.0.0.1:6379/13"),
        ("redis://127.0.0.1:6379/15", "gw1", "redis://127.0.0.1:6379/0"),  # CI's database, wrapped at 16
        ("redis://127.0.0.1:6379", "gw2", "redis://127.0.0.1:6379/2"),
        ("rediss://:secret@cache:6380/4?ssl_cert_reqs=none", "gw3", "rediss://:secret@cache:6380/7?ssl_cert_reqs=none"),
        ("redis://127.0.0.1:6379/3", None, "redis://127.0.0.1:6379/3"),  # a serial run keeps its URL
        ("unix:///run/redis.sock?db=2", "gw1", "unix:///run/redis.sock?db=2"),
        (None, "gw1", None),
    ],
)
def test_each_worker_has_its_own_database(url, worker, expected):
    assert worker_redis_url(url, worker) == expected


@pytest.mark.skipif(not settings.REDIS_URL, reason="REDIS_URL is not set")
def test_this_process_uses_its_workers_database_everywhere():
    """The URL was rewritten before the project's settings read it: cache, channel layer and broker agree."""
    expected = worker_redis_url(test_settings._given_redis_url, os.environ.get("PYTEST_XDIST_WORKER"))
    assert settings.REDIS_URL == expected == os.environ["REDIS_URL"]
    assert settings.CACHES["default"]["LOCATION"] == expected
    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["address"] == expected
    if not os.environ.get("CELERY_BROKER_URL"):
        assert settings.CELERY_BROKER_URL == expected
