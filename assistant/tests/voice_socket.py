"""Helpers for the voice socket tests: a signed-in browser's websocket on the real ASGI app."""

from __future__ import annotations

from typing import Any

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from speech.espeak import pcm16_frames

ORIGIN = b"http://testserver"
EVENT_TIMEOUT_S = 60  # the whole turn, model included, must answer within this


def session_cookie(user) -> str:
    """The session cookie a browser holds after signing in as ``user``."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def open_socket(slug: str, *, cookie: str | None = None, origin: bytes = ORIGIN) -> WebsocketCommunicator:
    """Connect as a browser on the store's talk page would (same origin, session cookie)."""
    from shelfwise.asgi import application

    headers = [(b"origin", origin), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    socket = WebsocketCommunicator(application, f"/ws/stores/{slug}/voice", headers=headers)
    connected, _ = await socket.connect(timeout=10)
    assert connected, "the socket should accept before saying anything else"
    return socket


async def until_done(socket: WebsocketCommunicator, *, timeout: float = EVENT_TIMEOUT_S) -> list[dict[str, Any]]:
    """Every frame up to and including ``done``."""
    frames: list[dict[str, Any]] = []
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        frames.append(frame)
        if frame["type"] == "done":
            return frames


async def stream_pcm(socket: WebsocketCommunicator, samples, *, frame_ms: int = 100) -> None:
    for frame in pcm16_frames(samples, frame_ms=frame_ms):
        await socket.send_to(bytes_data=frame)


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    return [frame["type"] for frame in frames]


async def closed_with(slug: str, *, cookie: str | None = None) -> dict[str, Any]:
    """What the server sends first on a socket it refuses: the close message."""
    socket = await open_socket(slug, cookie=cookie)
    closed = await socket.receive_output(timeout=10)
    await socket.disconnect()
    return closed


async def typed_turn(slug: str, *, cookie: str, **message: Any) -> list[dict[str, Any]]:
    """One typed turn on a fresh socket (``message`` is the text frame's fields): the frames up to ``done``."""
    socket = await open_socket(slug, cookie=cookie)
    await socket.receive_json_from(timeout=10)  # ready
    await socket.send_json_to({"type": "text", **message})
    frames = await until_done(socket)
    await socket.disconnect()
    return frames


async def spoken_turn(slug: str, samples, *, cookie: str, end: bool = False, **start: Any) -> list[dict[str, Any]]:
    """One PCM16 utterance on a fresh socket: start (16 kHz, plus ``start``'s fields), ``samples`` in
    100 ms frames, the client's end if ``end``; the frames after ``listening`` up to ``done``."""
    socket = await open_socket(slug, cookie=cookie)
    await socket.receive_json_from(timeout=10)  # ready
    await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000, **start})
    await socket.receive_json_from(timeout=10)  # listening
    await stream_pcm(socket, samples)
    if end:
        await socket.send_json_to({"type": "end"})
    frames = await until_done(socket)
    await socket.disconnect()
    return frames
