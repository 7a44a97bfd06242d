"""``GET /healthz`` answered at the ASGI edge, before Django's middleware (shelfwise.health.HealthCheck)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from shelfwise import health


class _Inner:
    def __init__(self) -> None:
        self.paths: list[tuple[str, str]] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append((scope["method"], scope["path"]))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"django"})


async def _call(app, method: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        return await client.request(method, path)


@pytest.mark.parametrize(("answers", "status", "body"), [(True, 200, health.UP), (False, 503, health.DOWN)])
def test_the_edge_says_whether_the_database_answers(monkeypatch, answers, status, body):
    monkeypatch.setattr(health, "database_answers", lambda: answers)
    inner = _Inner()

    response = asyncio.run(_call(health.HealthCheck(inner), "GET", "/healthz"))

    assert (response.status_code, response.json()) == (status, body)
    assert response.headers["cache-control"] == "no-store" and inner.paths == []


def test_everything_else_goes_to_the_app(monkeypatch):
    monkeypatch.setattr(health, "database_answers", lambda: pytest.fail("no check for other requests"))
    inner = _Inner()
    app = health.HealthCheck(inner)

    assert asyncio.run(_call(app, "GET", "/healthz/")).text == "django"
    assert asyncio.run(_call(app, "POST", "/healthz")).text == "django"
    assert asyncio.run(_call(app, "GET", "/s/shop/find")).text == "django"
    assert inner.paths == [("GET", "/healthz/"), ("POST", "/healthz"), ("GET", "/s/shop/find")]


def test_head_gets_the_status_without_a_body(monkeypatch):
    monkeypatch.setattr(health, "database_answers", lambda: True)

    response = asyncio.run(_call(health.HealthCheck(_Inner()), "HEAD", "/healthz"))

    assert response.status_code == 200 and response.content == b""


def test_the_served_application_answers_healthz_at_the_edge():
    from shelfwise.asgi import http_app

    assert isinstance(http_app, health.HealthCheck)
