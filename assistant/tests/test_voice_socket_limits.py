"""Limits on the voice socket, through the real ASGI app and consumer: open sockets per user
(``VOICE_SOCKETS_PER_USER``) and the per-user turn rate it shares with ``POST /api/v1/turns``.

The router's language model is a ``FakeBackend`` (its process boundary); the cache is the
configured one (local memory on SQLite runs, Redis on PostgreSQL runs).
"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache

from assistant import socket_slots
from assistant.consumers import VoiceConsumer
from assistant.tests.voice_socket import kinds, open_socket, session_cookie, until_done
from audit.models import Turn
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_S = 10


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test gets an empty cache (SQLite reuses user ids); conftest.py gives it a fresh channel layer."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def cap(settings):
    settings.VOICE_SOCKETS_PER_USER = 2
    return 2


def _run(scenario, *args, **kwargs):
    return async_to_sync(scenario)(*args, **kwargs)


def _turns(store) -> int:
    with use_store(store):
        return Turn.objects.filter(store=store).count()


async def _ready(slug, cookie):
    socket = await open_socket(slug, cookie=cookie)
    first = await socket.receive_json_from(timeout=WAIT_S)
    assert first["type"] == "ready", first
    return socket


async def _refused(slug, cookie) -> tuple[dict, dict]:
    """The error frame and the close a socket past the cap gets."""
    socket = await open_socket(slug, cookie=cookie)
    error = await socket.receive_json_from(timeout=WAIT_S)
    closed = await socket.receive_output(timeout=WAIT_S)
    await socket.disconnect()
    return error, closed


# -- open sockets per user -------------------------------------------------------------------------


def test_the_socket_past_the_cap_is_refused_with_a_sentence_and_4429(owner, demo, cap):
    cookie = session_cookie(owner)

    async def scenario():
        held = [await _ready(demo.slug, cookie) for _ in range(cap)]
        refused = await _refused(demo.slug, cookie)
        for socket in held:
            await socket.disconnect()
        return refused

    error, closed = _run(scenario)
    assert error == {
        "type": "error", "code": "too_many_sockets",
        "message": "Voice is already open in 2 windows or devices. Close one, then try again.",
    }
    assert closed == {"type": "websocket.close", "code": 4429}


def test_closing_a_socket_frees_its_slot(owner, demo, cap):
    cookie = session_cookie(owner)

    async def scenario():
        first, second = await _ready(demo.slug, cookie), await _ready(demo.slug, cookie)
        await first.disconnect()
        third = await _ready(demo.slug, cookie)  # asserts ready
        refused = await _refused(demo.slug, cookie)
        await second.disconnect()
        await third.disconnect()
        return refused

    error, closed = _run(scenario)
    assert error["code"] == "too_many_sockets" and closed["code"] == 4429


def test_the_cap_is_per_user(owner, staff, store, cap):
    owner_cookie, staff_cookie = session_cookie(owner), session_cookie(staff)

    async def scenario():
        held = [await _ready(store.slug, owner_cookie) for _ in range(cap)]
        staff_socket = await _ready(store.slug, staff_cookie)  # the owner's full cap is not the staff's
        for socket in [*held, staff_socket]:
            await socket.disconnect()

    _run(scenario)


def test_a_refused_socket_takes_no_slot(owner, demo, cap):
    cookie = session_cookie(owner)

    async def scenario():
        held = [await _ready(demo.slug, cookie) for _ in range(cap)]
        for _ in range(3):
            await _refused(demo.slug, cookie)
        await held[0].disconnect()
        again = await _ready(demo.slug, cookie)
        for socket in [held[1], again]:
            await socket.disconnect()

    _run(scenario)


def test_a_consumer_that_crashes_frees_its_slot(owner, demo, settings, monkeypatch):
    settings.VOICE_SOCKETS_PER_USER = 1
    cookie = session_cookie(owner)

    async def crash(self, text):
        raise RuntimeError("a bug in the consumer")

    async def scenario():
        socket = await _ready(demo.slug, cookie)
        monkeypatch.setattr(VoiceConsumer, "_control", crash)
        await socket.send_json_to({"type": "cancel"})
        with pytest.raises(RuntimeError):
            await socket.receive_output(timeout=WAIT_S)
        monkeypatch.undo()
        settings.VOICE_SOCKETS_PER_USER = 1
        fresh = await _ready(demo.slug, cookie)
        await fresh.disconnect()

    _run(scenario)


def test_a_slot_left_by_a_dead_process_expires(owner, demo, settings, monkeypatch):
    """A process killed with its sockets open never releases their slots: their expiry does."""
    settings.VOICE_SOCKETS_PER_USER = 1
    monkeypatch.setattr(socket_slots, "SLOT_TTL_S", 1)
    cookie = session_cookie(owner)

    async def scenario():
        assert await socket_slots.slot_take(user_id=owner.pk, holder="a-process-that-died")
        error, _ = await _refused(demo.slug, cookie)
        deadline = time.monotonic() + WAIT_S
        while True:  # bounded: the slot lapses after SLOT_TTL_S
            socket = await open_socket(demo.slug, cookie=cookie)
            first = await socket.receive_json_from(timeout=WAIT_S)
            if first["type"] == "ready" or time.monotonic() > deadline:
                await socket.disconnect()
                return error, first
            await socket.disconnect()
            await asyncio.sleep(0.2)

    error, first = _run(scenario)
    assert error["code"] == "too_many_sockets"
    assert first["type"] == "ready"


def test_an_open_socket_keeps_its_slot_past_the_expiry_by_renewing_it(owner, demo, settings, monkeypatch):
    settings.VOICE_SOCKETS_PER_USER = 1
    monkeypatch.setattr(socket_slots, "SLOT_TTL_S", 1)
    monkeypatch.setattr(socket_slots, "HEARTBEAT_S", 0.2)
    cookie = session_cookie(owner)

    async def scenario():
        held = await _ready(demo.slug, cookie)
        quiet = await held.receive_nothing(timeout=2.5)  # longer than the slot's own lifetime
        refused = await _refused(demo.slug, cookie)
        await held.disconnect()
        return quiet, refused

    quiet, (error, closed) = _run(scenario)
    assert quiet
    assert error["code"] == "too_many_sockets" and closed["code"] == 4429


# -- the turn rate ---------------------------------------------------------------------------------


@pytest.fixture
def two_turns_a_minute(monkeypatch):
    from shelfwise.throttling import CallerRateThrottle

    monkeypatch.setattr(CallerRateThrottle, "THROTTLE_RATES", {"turns": "2/min", "writes": "100/min"})


def _where(router, count):
    for _ in range(count):
        router.add({"action": "find_product", "item": "gur", "ask": "where"})


def test_a_typed_turn_over_the_rate_gets_a_sentence_runs_nothing_and_the_socket_stays_open(
        owner, demo, router, two_turns_a_minute):
    _where(router, 3)
    cookie = session_cookie(owner)

    async def scenario():
        socket = await _ready(demo.slug, cookie)
        answered = []
        for _ in range(3):
            await socket.send_json_to({"type": "text", "text": "where is the gur"})
            answered.append(await until_done(socket))
        await socket.send_to(text_data="not json")  # still open, still answering
        after = await until_done(socket)
        await socket.disconnect()
        return answered, after

    answered, after = _run(scenario)
    assert [frames[-1]["result"] is not None for frames in answered] == [True, True, False]
    refused = answered[2]
    assert kinds(refused) == ["error", "done"]
    assert refused[0]["code"] == "throttled"
    assert refused[0]["message"].startswith("You're asking faster than I can keep up. Please wait ")
    assert refused[0]["message"].endswith(" seconds, then try again.")
    assert kinds(after) == ["error", "done"] and after[0]["code"] == "bad_json"
    assert len(router.requests) == 2 and _turns(demo) == 2


def test_socket_turns_and_rest_turns_share_the_users_budget(owner, demo, router, two_turns_a_minute):
    from rest_framework.test import APIClient

    _where(router, 2)
    client = APIClient()
    client.force_login(owner)
    assert client.post("/api/v1/turns", {"text": ""}, format="json").status_code == 400  # counted
    cookie = session_cookie(owner)

    async def scenario():
        socket = await _ready(demo.slug, cookie)
        frames = []
        for _ in range(2):
            await socket.send_json_to({"type": "text", "text": "where is the gur"})
            frames.append(await until_done(socket))
        await socket.disconnect()
        return frames

    first, second = _run(scenario)
    assert first[-1]["result"] is not None
    assert second[0]["code"] == "throttled"
    assert client.post("/api/v1/turns", {"text": ""}, format="json").status_code == 429
    assert len(router.requests) == 1 and _turns(demo) == 1


def test_an_utterance_over_the_rate_is_refused_at_its_start(owner, demo, router, two_turns_a_minute):
    _where(router, 2)
    cookie = session_cookie(owner)

    async def scenario():
        socket = await _ready(demo.slug, cookie)
        for _ in range(2):
            await socket.send_json_to({"type": "text", "text": "where is the gur"})
            await until_done(socket)
        await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000})
        refused = await until_done(socket)
        await socket.send_to(bytes_data=b"\x00\x01" * 800)  # not listening: dropped
        await socket.send_json_to({"type": "end"})
        after = await until_done(socket)
        await socket.disconnect()
        return refused, after

    refused, after = _run(scenario)
    assert kinds(refused) == ["error", "done"] and refused[0]["code"] == "throttled"
    assert after[0]["code"] == "not_listening"
    assert len(router.requests) == 2 and _turns(demo) == 2


def test_another_users_budget_is_untouched(owner, staff, demo, router, two_turns_a_minute):
    _where(router, 3)
    owner_cookie, staff_cookie = session_cookie(owner), session_cookie(staff)

    async def scenario():
        socket = await _ready(demo.slug, owner_cookie)
        for _ in range(3):
            await socket.send_json_to({"type": "text", "text": "where is the gur"})
            await until_done(socket)
        await socket.disconnect()
        staff_socket = await _ready(demo.slug, staff_cookie)
        await staff_socket.send_json_to({"type": "text", "text": "where is the gur"})
        frames = await until_done(staff_socket)
        await staff_socket.disconnect()
        return frames

    frames = _run(scenario)
    assert frames[-1]["result"] is not None
    assert len(router.requests) == 3
