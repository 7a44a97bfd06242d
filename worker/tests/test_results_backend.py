"""The task-state backend rides out a database that refuses for a moment (worker/results.py)."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from worker.results import ResilientDatabaseBackend


def test_a_state_write_refused_by_the_database_is_retried_not_failed(monkeypatch):
    from shelfwise.celery import app

    backend = app.backend
    assert isinstance(backend, ResilientDatabaseBackend) and backend.always_retry
    monkeypatch.setattr(backend, "_sleep", lambda seconds: None)
    calls = []

    def refused_twice():
        calls.append(1)
        if len(calls) < 3:
            raise OperationalError('database "shelfwise" is not currently accepting connections')
        return "stored"

    assert backend._ensure_retryable(refused_twice) == "stored" and len(calls) == 3


def test_the_retries_are_bounded(monkeypatch):
    from shelfwise.celery import app

    backend = app.backend
    monkeypatch.setattr(backend, "_sleep", lambda seconds: None)

    def refused():
        raise OperationalError("the database is down")

    with pytest.raises(OperationalError):
        backend._ensure_retryable(refused)
    assert backend.max_retries == 10
