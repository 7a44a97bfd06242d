"""DATABASE_URL parsing: persistent connections everywhere but the ASGI web process."""

from __future__ import annotations

from pathlib import Path

from shelfwise.env import env_database

URL = "postgres://app@127.0.0.1:5432/shelfwise"


def test_postgres_connections_persist_by_default(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.delenv("DATABASE_CONN_MAX_AGE", raising=False)

    assert env_database("DATABASE_URL", Path("unused.sqlite3"))["CONN_MAX_AGE"] == 60


def test_the_web_process_closes_each_request_s_connection(monkeypatch):
    # shelfwise/asgi.py sets it: under ASGI a kept connection outlives its request's thread.
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "0")

    config = env_database("DATABASE_URL", Path("unused.sqlite3"))

    assert config["CONN_MAX_AGE"] == 0 and config["CONN_HEALTH_CHECKS"] is True


def test_the_asgi_entry_point_asks_for_no_persistent_connections():
    source = (Path(__file__).resolve().parent.parent / "asgi.py").read_text()

    assert source.index('setdefault("DATABASE_CONN_MAX_AGE", "0")') < source.index("get_asgi_application()")


def test_the_web_process_pools_the_sessions_it_closes(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "0")
    monkeypatch.setenv("DATABASE_POOL_MAX", "6")

    assert env_database("DATABASE_URL", Path("unused.sqlite3"))["OPTIONS"]["pool"] == {
        "min_size": 2, "max_size": 6, "timeout": 3}


def test_no_pool_where_connections_persist_or_it_is_turned_off(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.delenv("DATABASE_CONN_MAX_AGE", raising=False)
    assert "pool" not in env_database("DATABASE_URL", Path("unused.sqlite3")).get("OPTIONS", {})

    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "0")
    monkeypatch.setenv("DATABASE_POOL_MAX", "0")
    assert "pool" not in env_database("DATABASE_URL", Path("unused.sqlite3")).get("OPTIONS", {})
    monkeypatch.setenv("DATABASE_URL", "sqlite:///x.sqlite3")
    monkeypatch.delenv("DATABASE_POOL_MAX")
    assert "pool" not in env_database("DATABASE_URL", Path("unused.sqlite3"))["OPTIONS"]
