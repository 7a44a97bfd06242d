"""Malformed input on the voice socket, through the real ASGI app and consumer: each probe gets a
clean ``error`` (and ``done`` without a result) or is dropped by design, nothing reaches the model
or the books, and the same socket then serves a valid typed turn.

The router's language model is a ``FakeBackend`` (its process boundary, scripted for the one valid
turn); the session auth, the consumer, the channel layer, the eager Celery task, the pipeline and
the ledger are real.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.cache import cache

from assistant.consumers import MAX_AUDIO_FRAME, MAX_ENCODED_BYTES, SERVER_MAX_FRAME
from assistant.tests.voice_socket import open_socket, session_cookie, until_done
from audit.models import Turn
from ledger.models import StockEntry
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_S = 30
VALID = {"type": "text", "text": "where is the gur"}


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test gets an empty cache (SQLite reuses user ids); conftest.py gives it a fresh channel layer."""
    cache.clear()
    yield
    cache.clear()


def _text(message: Any) -> tuple[str, str]:
    return ("text", message if isinstance(message, str) else json.dumps(message))


def _bytes(data: bytes) -> tuple[str, bytes]:
    return ("bytes", data)


def _refused(code: str) -> list[str]:
    return [f"error:{code}", "done"]


START_PCM = _text({"type": "start", "format": "pcm16", "sample_rate": 16000})
START_WEBM = _text({"type": "start", "format": "webm"})
END = _text({"type": "end"})

# What each probe sends and what comes back ("error:<code>" for an error, else the frame's type),
# by kind. Each probe runs on a fresh socket, and a valid typed turn follows it on the same socket.
Probe = tuple[str, list[tuple[str, Any]], list[str]]
PROBES: dict[str, list[Probe]] = {
    "not_json": [
        ("garbage", [_text("not json at all")], _refused("bad_json")),
        ("truncated", [_text('{"type": "text", "text": "where is')], _refused("bad_json")),
        ("empty_text_frame", [_text("")], _refused("bad_json")),
        ("nan", [_text("NaN")], _refused("bad_json")),
        ("array", [_text("[1, 2]")], _refused("bad_json")),
        ("string", [_text('"text"')], _refused("bad_json")),
        ("number", [_text("42")], _refused("bad_json")),
        ("null", [_text("null")], _refused("bad_json")),
        ("nested_2000_deep", [_text("[" * 2000 + "]" * 2000)], _refused("bad_json")),
        ("nested_inside_text", [_text('{"type": "text", "text": ' + "[" * 1900 + "]" * 1900 + "}")],
         _refused("bad_json")),
    ],
    "not_protocol": [
        ("no_type", [_text({})], _refused("bad_request")),
        ("type_null", [_text({"type": None})], _refused("bad_request")),
        ("type_number", [_text({"type": 7})], _refused("bad_request")),
        ("type_list", [_text({"type": ["text"]})], _refused("bad_request")),
        ("type_object", [_text({"type": {"text": "hi"}})], _refused("bad_request")),
        ("type_upper_case", [_text({"type": "TEXT", "text": "where is the gur"})], _refused("bad_request")),
        ("unknown_type", [_text({"type": "order_everything"})], _refused("bad_request")),
    ],
    "bad_text": [
        ("text_missing", [_text({"type": "text"})], _refused("bad_request")),
        ("text_number", [_text({"type": "text", "text": 42})], _refused("bad_request")),
        ("text_list", [_text({"type": "text", "text": ["where", "gur"]})], _refused("bad_request")),
        ("text_object", [_text({"type": "text", "text": {"q": "gur"}})], _refused("bad_request")),
        ("text_null", [_text({"type": "text", "text": None})], _refused("bad_request")),
        ("text_nul_char", [_text({"type": "text", "text": "where is the gur\u0000"})], _refused("bad_request")),
        ("text_lone_surrogate", [_text('{"type": "text", "text": "where is the \\ud800 gur"}')], _refused("bad_request")),
        ("text_501_chars", [_text({"type": "text", "text": "x" * 501})], _refused("too_large")),
        ("text_frame_over_4kb", [_text({"type": "text", "text": "y" * 100_000})], _refused("too_large")),
        ("raw_frame_1mb", [_text("z" * 1_000_000)], _refused("too_large")),
        ("multibyte_over_4kb", [_text(json.dumps({"type": "text", "text": "é" * 2100}, ensure_ascii=False))],
         _refused("too_large")),
        ("mode_list", [_text({**VALID, "mode": ["router"]})], _refused("bad_request")),
        ("mode_object", [_text({**VALID, "mode": {}})], _refused("bad_request")),
        ("conversation_number", [_text({**VALID, "conversation": 42})], _refused("bad_request")),
        ("conversation_too_long", [_text({**VALID, "conversation": "c" * 65})], _refused("bad_request")),
        ("conversation_spaces", [_text({**VALID, "conversation": "a b"})], _refused("bad_request")),
        ("voice_unknown", [_text({**VALID, "voice": "loud"})], _refused("bad_request")),
        ("voice_list", [_text({**VALID, "voice": []})], _refused("bad_request")),
    ],
    "bad_start": [
        ("format_list", [_text({"type": "start", "format": ["pcm16"]})], _refused("unsupported")),
        ("format_unknown", [_text({"type": "start", "format": "flac"})], _refused("unsupported")),
        ("rate_string", [_text({"type": "start", "sample_rate": "16000"})], _refused("unsupported")),
        ("rate_bool", [_text({"type": "start", "sample_rate": True})], _refused("unsupported")),
        ("rate_float", [_text({"type": "start", "sample_rate": 16000.5})], _refused("unsupported")),
        ("rate_huge", [_text({"type": "start", "sample_rate": 10**30})], _refused("unsupported")),
        ("rate_negative", [_text({"type": "start", "sample_rate": -16000})], _refused("unsupported")),
    ],
    "out_of_order": [
        ("end_before_start", [END], _refused("not_listening")),
        ("cancel_when_idle", [_text({"type": "cancel"})], []),
        ("audio_before_start", [_bytes(b"\xde\xad\xbe\xef" * 100), _bytes(b"\x00" * 3200)], _refused("not_listening")),
        ("json_sent_as_binary", [_bytes(json.dumps(VALID).encode())], _refused("not_listening")),
        ("empty_binary_frame", [_bytes(b"")], _refused("not_listening")),
        ("audio_after_cancel", [START_PCM, _text({"type": "cancel"}), _bytes(b"\x01\x02" * 1600)], ["listening"]),
    ],
    "bad_audio": [
        ("oversized_audio_frame", [START_PCM, _bytes(b"\x00" * (MAX_AUDIO_FRAME + 1))],
         ["listening", *_refused("too_large")]),
        ("odd_byte_pcm_then_cancel", [START_PCM, _bytes(b"\x01"), _bytes(b"\x02\x03\x04"), _text({"type": "cancel"})],
         ["listening"]),
        ("garbage_recording", [START_WEBM, _bytes(b"\x1a\x45\xdf\xa3 not matroska" * 50), END],
         ["listening", "end_of_utterance", *_refused("not_audio")]),
        ("recording_past_the_limit",
         [START_WEBM, *[_bytes(b"\x00" * MAX_AUDIO_FRAME)] * (MAX_ENCODED_BYTES // MAX_AUDIO_FRAME + 1), END],
         ["listening", *_refused("too_long"), *_refused("not_listening")]),
    ],
    "burst": [
        ("burst_of_50", [_text("{bad")] * 50, _refused("bad_json") * 50),
    ],
}


def _label(frame: dict[str, Any]) -> str:
    return f"error:{frame['code']}" if frame["type"] == "error" else frame["type"]


def _turns(store) -> int:
    with use_store(store):
        return Turn.objects.filter(store=store).count()


def _journal(store) -> int:
    with use_store(store):
        return StockEntry.objects.filter(store=store).count()


async def _probe(slug: str, cookie: str, frames: list[tuple[str, Any]], answers: int):
    socket = await open_socket(slug, cookie=cookie)
    assert (await socket.receive_json_from(timeout=WAIT_S))["type"] == "ready"
    for kind, data in frames:  # send_input: send_to cannot send an empty text frame
        await socket.send_input({"type": "websocket.receive", kind: data})
    got = [await socket.receive_json_from(timeout=WAIT_S) for _ in range(answers)]
    await socket.send_json_to(VALID)
    turn = await until_done(socket)
    await socket.disconnect()
    return got, turn


@pytest.mark.parametrize("kind", PROBES)
def test_malformed_frames_get_a_clean_answer_and_the_socket_serves_the_next_turn(owner, demo, router, kind):
    cookie = session_cookie(owner)
    before = _journal(demo)
    for served, (probe, frames, expected) in enumerate(PROBES[kind], start=1):
        router.add({"action": "find_product", "item": "gur", "ask": "where"})

        got, turn = async_to_sync(_probe)(demo.slug, cookie, frames, len(expected))

        assert [_label(frame) for frame in got] == expected, probe
        assert all(frame["message"] and "Traceback" not in frame["message"]
                   for frame in got if frame["type"] == "error"), probe
        assert all(frame == {"type": "done", "result": None} for frame in got if frame["type"] == "done"), probe
        # Nothing else was queued by the probe: the next frames are the valid turn's, from its transcript.
        assert turn[0] == {**turn[0], "type": "transcript", "text": "where is the gur"}, probe
        assert turn[-1]["result"] is not None and "Aisle 1" in turn[-1]["result"]["reply"], probe
        assert len(router.requests) == served and _turns(demo) == served, probe
    assert _journal(demo) == before


def test_the_refusals_say_what_went_wrong(owner, demo, router):
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    cookie = session_cookie(owner)
    frames = [_text("[1]"), _text("{bad"), _text({"type": "text", "text": "gur\u0000"}), _bytes(b"\x00")]

    got, _ = async_to_sync(_probe)(demo.slug, cookie, frames, 8)

    assert [frame["message"] for frame in got if frame["type"] == "error"] == [
        "That message was not a JSON object.",
        "That message was not valid JSON.",
        "That text has characters I can't read.",
        "Say start before sending audio or ending an utterance.",
    ]


def test_a_request_while_a_turn_runs_is_refused_as_busy_and_the_turn_still_answers(owner, demo, router):
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=WAIT_S)
        await socket.send_json_to(VALID)
        await socket.send_json_to({"type": "text", "text": "restock everything"})
        frames = []
        while not any(frame["type"] == "done" and frame["result"] for frame in frames):
            frames.append(await socket.receive_json_from(timeout=WAIT_S))
        await socket.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    assert [frame["code"] for frame in frames if frame["type"] == "error"] == ["busy"]
    assert "Aisle 1" in frames[-1]["result"]["reply"]
    assert len(router.requests) == 1 and _turns(demo) == 1


def test_a_frame_over_the_servers_limit_is_closed_with_1009_and_the_server_keeps_serving(owner, demo, router):
    """Under uvicorn with the deployment's --ws-max-size (tests/test_deploy_files.py checks every launch)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from tests.live_server import asgi_server

    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    cookie = f"{settings.SESSION_COOKIE_NAME}={session_cookie(owner)}"
    with asgi_server(extra_args={"ws_max_size": SERVER_MAX_FRAME}) as base:
        url = base.replace("http://", "ws://") + f"/ws/stores/{demo.slug}/voice"
        options = {"origin": base, "additional_headers": {"Cookie": cookie}, "open_timeout": WAIT_S}
        with connect(url, **options) as socket:
            assert json.loads(socket.recv(timeout=WAIT_S))["type"] == "ready"
            socket.send(b"\x00" * (SERVER_MAX_FRAME + 1))
            with pytest.raises(ConnectionClosed) as closed:
                socket.recv(timeout=WAIT_S)
        with connect(url, **options) as socket:
            assert json.loads(socket.recv(timeout=WAIT_S))["type"] == "ready"
            socket.send(json.dumps(VALID))
            frames = [json.loads(socket.recv(timeout=WAIT_S))]
            while frames[-1]["type"] != "done":
                frames.append(json.loads(socket.recv(timeout=WAIT_S)))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert "Aisle 1" in frames[-1]["result"]["reply"]
    assert len(router.requests) == 1 and _turns(demo) == 1
