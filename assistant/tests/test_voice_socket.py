"""The voice socket (/ws/stores/<slug>/voice) on the real ASGI app, as a signed-in browser uses it.

The router's language model is replaced at its process boundary by a ``FakeBackend`` (scripted
decisions, recorded prompts); the session auth, the consumer, the channel layer, the Celery task
(eager), the pipeline, the guard's local layers, the MCP tools and the ledger run for real, and so
do the Silero VAD and the bundled Whisper model where a test sends speech (espeak-ng).
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from asgiref.sync import async_to_sync

from assistant.tests.voice_socket import (
    closed_with,
    kinds,
    open_socket,
    session_cookie,
    spoken_turn,
    stream_pcm,
    typed_turn,
    until_done,
)
from audit.models import Turn
from ledger.models import Product, StockEntry
from speech.decode import decode_audio
from speech.espeak import ESPEAK, encode, espeak_samples, silence, trim
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True)
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)")


def _journal(store) -> int:
    with use_store(store):
        return StockEntry.objects.filter(store=store).count()


def _stock(store, name: str) -> int:
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def _turns(store) -> list[Turn]:
    with use_store(store):
        return list(Turn.objects.filter(store=store).order_by("pk"))


PARTIAL_TIMEOUT_S = 180  # a partial on two busy cores; bounded


def _run(scenario, *args, **kwargs):
    return async_to_sync(scenario)(*args, **kwargs)


# -- who may connect -------------------------------------------------------------------------------


def test_a_visitor_who_is_not_signed_in_is_closed_with_4401(store):
    assert _run(closed_with, store.slug) == {"type": "websocket.close", "code": 4401}


def test_the_owner_of_another_store_is_closed_with_4403_and_sees_nothing(store, other_owner, demo):
    cookie = session_cookie(other_owner)

    assert _run(closed_with, store.slug, cookie=cookie) == {"type": "websocket.close", "code": 4403}


def test_a_store_that_does_not_exist_answers_like_one_that_is_not_yours(owner):
    cookie = session_cookie(owner)

    assert _run(closed_with, "no-such-shop", cookie=cookie) == {"type": "websocket.close", "code": 4403}


def test_a_page_on_another_origin_cannot_open_the_socket(owner, store):
    from channels.testing import WebsocketCommunicator

    from shelfwise.asgi import application

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/stores/{store.slug}/voice",
                                       headers=[(b"origin", b"http://evil.example"), (b"host", b"testserver")])
        connected, _ = await socket.connect(timeout=10)
        await socket.disconnect()
        return connected

    assert _run(scenario) is False


# -- typed turns -------------------------------------------------------------------------------------


def test_a_typed_turn_streams_its_events_in_order_and_done_carries_the_result(owner, demo, router):
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    cookie = session_cookie(owner)
    before = _journal(demo)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        ready = await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "text", "text": "um where did we put the gur", "mode": "router", "conversation": None})
        frames = await until_done(socket)
        await socket.disconnect()
        return ready, frames

    ready, frames = _run(scenario)
    assert ready == {"type": "ready", "store": "corner-shop"}
    assert kinds(frames) == ["transcript", "guard", "action", "tool_call", "reply", "media", "done"]
    transcript, guard, action, tool_call, reply, media, done = frames
    assert transcript["text"] == "um where did we put the gur"
    assert guard["verdict"] == "safe"
    assert action["action"] == "find_product"
    assert tool_call["tool"] == "get_inventory" and tool_call["arguments"] == {"item": "Jaggery"}
    assert "Aisle 1, oil shelf, upper right" in reply["text"]
    assert media["kind"] == "photo"
    result = done["result"]
    assert result["conversation"] and result["action"] == "find_product" and result["reply"] == reply["text"]
    assert [e["at_ms"] for e in frames] == sorted(e["at_ms"] for e in frames)
    assert _journal(demo) == before
    turns = _turns(demo)
    assert [(t.channel, t.mode, t.conversation) for t in turns] == [("voice", "router", result["conversation"])]


def test_a_second_typed_turn_continues_the_conversation_the_client_kept(owner, demo, router):
    router.add({"action": "find_product", "item": "haldi", "ask": "where"},
               {"action": "find_product", "ask": "price"})
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "text", "text": "where is the haldi"})
        first = await until_done(socket)
        key = first[-1]["result"]["conversation"]
        await socket.send_json_to({"type": "text", "text": "and how much is it", "conversation": key})
        second = await until_done(socket)
        await socket.disconnect()
        return first, second

    first, second = _run(scenario)
    assert second[-1]["result"]["conversation"] == first[-1]["result"]["conversation"]
    assert second[-1]["result"]["turn"] == 2
    calls = [e for e in second if e["type"] == "tool_call"]
    assert calls and calls[0]["arguments"] == {"item": "Turmeric powder"}


def test_a_turn_whose_wait_breaks_after_the_hand_over_says_interrupted_not_nothing_changed(owner, demo, router,
                                                                                          monkeypatch):
    """Once the job is handed over its worker may write, so a wait that breaks (the database gone,
    a lost worker) may not say "Nothing was changed"."""
    from assistant import consumers

    def broken_wait(**kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(consumers, "turn_events", broken_wait)
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    frames = _run(typed_turn, demo.slug, cookie=session_cookie(owner), text="where is the haldi")
    assert kinds(frames)[-2:] == ["error", "done"]
    assert frames[-2]["code"] == "interrupted" and "Nothing was changed" not in frames[-2]["message"]
    assert "check your approvals and counts" in frames[-2]["message"]


def test_a_turn_that_fails_midway_reports_an_error_and_leaves_the_ledger_unchanged(owner, demo, router):
    def crash(request):
        raise RuntimeError("the model server fell over")

    router.add(crash)
    cookie = session_cookie(owner)
    before, stock = _journal(demo), _stock(demo, "Turmeric powder")

    frames = _run(typed_turn, demo.slug, cookie=cookie, text="we have 30 packets of haldi now")
    assert kinds(frames) == ["transcript", "guard", "error", "reply", "done"]
    assert "Nothing was changed" in frames[2]["message"]
    assert "Traceback" not in json.dumps(frames) and "fell over" not in json.dumps(frames)
    assert frames[-1]["result"]["tool_calls"] == []
    assert _journal(demo) == before and _stock(demo, "Turmeric powder") == stock


# -- refusals: nothing runs, the ledger is untouched ---------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (json.dumps({"type": "dance"}), "bad_request"),
        (json.dumps({"type": "text", "text": "   "}), "bad_request"),
        (json.dumps({"type": "text", "text": "where is the gur", "mode": "psychic"}), "bad_request"),
        (json.dumps({"type": "text", "text": "where is the gur", "conversation": "../../etc"}), "bad_request"),
        (json.dumps({"type": "text", "text": "x" * 600}), "too_large"),
        (json.dumps({"type": "text", "text": "x" * 5000}), "too_large"),
        (json.dumps({"type": "start", "format": "mp3"}), "unsupported"),
        (json.dumps({"type": "start", "format": "pcm16", "sample_rate": 1}), "unsupported"),
        (json.dumps({"type": "end"}), "not_listening"),
    ],
)
def test_a_bad_frame_gets_an_error_and_a_done_without_a_result(owner, demo, router, frame, code):
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_to(text_data=frame)
        frames = await until_done(socket)
        nothing_more = await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()
        return frames, nothing_more

    frames, nothing_more = _run(scenario)
    assert kinds(frames) == ["error", "done"]
    assert frames[0]["code"] == code and frames[0]["message"]
    assert frames[1] == {"type": "done", "result": None}
    assert nothing_more
    assert _turns(demo) == [] and router.requests == []


@pytest.mark.parametrize(
    ("audio_format", "data", "code"),
    [
        ("webm", b"this is not a recording at all" * 20, "not_audio"),
        ("wav", b"RIFF\x00\x00\x00\x00WAVEfmt " + b"\x00" * 40, "not_audio"),
        ("ogg", b"", "empty"),
    ],
)
def test_bad_audio_gets_an_error_and_nothing_else_runs(owner, demo, router, audio_format, data, code):
    cookie = session_cookie(owner)
    before = _journal(demo)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "start", "mode": "router", "format": audio_format})
        listening = await socket.receive_json_from(timeout=10)
        if data:
            await socket.send_to(bytes_data=data)
        await socket.send_json_to({"type": "end"})
        frames = await until_done(socket)
        await socket.disconnect()
        return listening, frames

    listening, frames = _run(scenario)
    assert listening == {"type": "listening"}
    assert kinds(frames) == ["end_of_utterance", "error", "done"]
    assert frames[0]["by"] == "client" and frames[1]["code"] == code and frames[2]["result"] is None
    assert _turns(demo) == [] and router.requests == [] and _journal(demo) == before


def test_an_oversized_audio_frame_is_refused(owner, demo, router):
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000})
        await socket.receive_json_from(timeout=10)
        await socket.send_to(bytes_data=b"\x00" * (512 * 1024))
        frames = await until_done(socket)
        await socket.disconnect()
        return frames

    frames = _run(scenario)
    assert kinds(frames) == ["error", "done"] and frames[0]["code"] == "too_large"
    assert _turns(demo) == []


def test_a_stream_longer_than_the_limit_is_refused(owner, demo, router, monkeypatch):
    monkeypatch.setenv("SHELFWISE_STT_MAX_SECONDS", "2")
    cookie = session_cookie(owner)
    noise = (np.random.default_rng(1).standard_normal(16000 * 3) * 0.001).astype(np.float32)

    frames = _run(spoken_turn, demo.slug, noise, cookie=cookie)
    assert kinds(frames) == ["error", "done"] and frames[0]["code"] == "too_long"
    assert _turns(demo) == []


def test_silence_ended_by_the_client_is_not_sent_to_the_model(owner, demo, router):
    cookie = session_cookie(owner)

    frames = _run(spoken_turn, demo.slug, silence(1500), cookie=cookie, end=True)
    assert kinds(frames) == ["end_of_utterance", "error", "done"] and frames[1]["code"] == "no_speech"
    assert _turns(demo) == []


# -- speech: the real VAD and the bundled Whisper model ----------------------------------------------


@needs_espeak
def test_a_pause_inside_a_sentence_does_not_split_it_and_the_vad_ends_the_utterance(owner, demo, router):
    router.add({"action": "draft_restock", "item": "sarson ka tel"})
    first, second = trim(espeak_samples("order twelve bottles")), trim(espeak_samples("of sarson ka tel"))
    # 400 ms pause mid-sentence (under the 800 ms threshold), then 1.5 s of silence: the owner is done.
    utterance = np.concatenate([silence(300), first, silence(400), second, silence(1500)])
    cookie = session_cookie(owner)

    frames = _run(spoken_turn, demo.slug, utterance, cookie=cookie, mode="router", conversation=None)
    names = kinds(frames)
    assert names.count("end_of_utterance") == 1
    eou = names.index("end_of_utterance")
    assert frames[eou]["by"] == "vad"
    assert names[:eou][0] == "vad" and frames[0]["speech"] is True
    assert set(names[:eou]) <= {"vad", "partial"}
    assert names[eou + 1] == "transcript"
    transcript = frames[eou + 1]
    text = transcript["text"].lower()
    assert ("12" in text or "twelve" in text) and "bottle" in text and "tel" in text  # both halves, one turn
    assert transcript["source"] == "speech" and transcript["heard"] and 0 < transcript["confidence"] <= 1
    assert transcript["duration_s"] > 2
    assert len(_turns(demo)) == 1
    assert frames[-1]["result"]["transcript"] == transcript["text"]


@needs_espeak
def test_a_lower_silence_threshold_ends_the_utterance_at_the_pause(owner, demo, router, monkeypatch):
    monkeypatch.setenv("SHELFWISE_VAD_SILENCE_MS", "250")
    router.add({"action": "general"})
    first, second = trim(espeak_samples("order twelve bottles")), trim(espeak_samples("of sarson ka tel"))
    utterance = np.concatenate([silence(300), first, silence(600), second, silence(1500)])
    cookie = session_cookie(owner)

    frames = _run(spoken_turn, demo.slug, utterance, cookie=cookie)
    transcript = next(f for f in frames if f["type"] == "transcript")
    assert "tel" not in transcript["text"].lower()  # the first half went on its own
    assert [f["by"] for f in frames if f["type"] == "end_of_utterance"] == ["vad"]


@needs_espeak
def test_cancel_drops_the_audio_and_nothing_runs(owner, demo, router):
    speech = trim(espeak_samples("order twelve bottles of sarson ka tel"))
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000})
        await socket.receive_json_from(timeout=10)
        await stream_pcm(socket, speech[: len(speech) // 2])
        await socket.send_json_to({"type": "cancel"})
        await stream_pcm(socket, np.concatenate([speech[len(speech) // 2 :], silence(1500)]))  # frames in flight
        frames = []
        while not await socket.receive_nothing(timeout=0.5):
            frames.append(await socket.receive_json_from(timeout=1))
        await socket.send_json_to({"type": "end"})
        after = await until_done(socket)
        await socket.disconnect()
        return frames, after

    frames, after = _run(scenario)
    assert set(kinds(frames)) <= {"vad"}
    assert kinds(after) == ["error", "done"] and after[0]["code"] == "not_listening"
    assert _turns(demo) == [] and router.requests == []


@needs_espeak
@pytest.mark.parametrize("container", ["webm", "ogg"])
def test_a_recording_ended_by_the_client_is_decoded_and_transcribed(owner, demo, router, container):
    router.add({"action": "find_product", "item": "sarson ka tel", "ask": "where"})
    recording = encode(np.concatenate([silence(200), espeak_samples("where is the sarson ka tel"), silence(200)]),
                       container=container)
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "start", "mode": "router", "format": container})
        await socket.receive_json_from(timeout=10)
        for start in range(0, len(recording), 4096):  # MediaRecorder's timeslices
            await socket.send_to(bytes_data=recording[start : start + 4096])
        await socket.send_json_to({"type": "end"})
        frames = await until_done(socket)
        await socket.disconnect()
        return frames

    frames = _run(scenario)
    assert kinds(frames)[:2] == ["end_of_utterance", "transcript"] and frames[0]["by"] == "client"
    assert "sarson" in frames[1]["text"].lower()
    assert "vad" not in kinds(frames)
    call = next(f for f in frames if f["type"] == "tool_call")
    assert call["tool"] == "get_inventory" and call["arguments"] == {"item": "Mustard oil"}
    assert frames[-1]["result"]["action"] == "find_product"
    assert [t.channel for t in _turns(demo)] == ["voice"]


def _offer_then_yes_on_the_socket(slug: str, cookie: str) -> tuple[list, list]:
    async def scenario():
        socket = await open_socket(slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "text", "text": "restock all the low stuff", "mode": "router"})
        offer = await until_done(socket)
        key = offer[-1]["result"]["conversation"]
        await socket.send_json_to({"type": "text", "text": "yes, place the order", "mode": "router", "conversation": key})
        yes = await until_done(socket)
        await socket.disconnect()
        return offer, yes

    return _run(scenario)


def test_a_staff_members_yes_on_the_socket_places_nothing_and_the_owners_does(demo, owner, staff, router):
    from audit.models import Record
    from ledger.models import Order, ReorderDraft

    router.add({"action": "draft_restock"}, {"action": "draft_restock"})
    _offer, yes = _offer_then_yes_on_the_socket(demo.slug, session_cookie(staff))
    assert yes[-1]["result"]["action"] == "confirm"
    assert "Only the store's owner can place orders" in yes[-1]["result"]["reply"]
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert ReorderDraft.objects.get(store=demo).status == "pending"
        refused = list(Record.objects.filter(store=demo, name="confirm_refused", outcome="denied").values_list("actor", flat=True))
    assert refused == [f"user:{staff.pk}"]

    _offer, yes = _offer_then_yes_on_the_socket(demo.slug, session_cookie(owner))
    assert yes[-1]["result"]["action"] == "confirm" and "placed" in yes[-1]["result"]["reply"]
    with use_store(demo):
        assert Order.objects.filter(store=demo).count() == 1


def test_a_member_removed_from_the_store_has_their_open_socket_closed_at_once(store, owner, staff):
    from channels.db import database_sync_to_async

    from tenants.members import member_remove
    from tenants.models import Membership

    cookie = session_cookie(staff)
    membership = Membership.objects.get(store=store, user=staff)

    async def scenario():
        socket = await open_socket(store.slug, cookie=cookie)
        assert (await socket.receive_json_from(timeout=10))["type"] == "ready"
        await database_sync_to_async(member_remove)(store=store, membership_id=membership.pk, actor=f"user:{owner.pk}")
        closed = await socket.receive_output(timeout=10)
        await socket.disconnect()
        return closed

    assert _run(scenario) == {"type": "websocket.close", "code": 4403}


@needs_espeak
def test_partial_transcripts_arrive_while_speaking_and_the_pause_pass_becomes_the_turn(owner, demo, router):
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    speech = trim(espeak_samples("where did we put the haldi"))
    cookie = session_cookie(owner)

    async def talk() -> list[dict]:
        socket = await open_socket(demo.slug, cookie=cookie)
        await socket.receive_json_from(timeout=10)  # ready
        await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000})
        await socket.receive_json_from(timeout=10)  # listening
        # The words and a 400 ms pause: the owner has not finished (the VAD ends at 800 ms).
        await stream_pcm(socket, np.concatenate([silence(300), speech, silence(400)]))
        frames = []
        while not any(f["type"] == "partial" and f["final"] for f in frames):  # the pause's full pass
            frames.append(await socket.receive_json_from(timeout=PARTIAL_TIMEOUT_S))
        assert not any(f["type"] == "end_of_utterance" for f in frames)
        await stream_pcm(socket, silence(1200))  # the pause goes on: that was the request
        frames += await until_done(socket)
        await socket.disconnect()
        return frames

    frames = _run(talk)
    names = kinds(frames)
    partials = [f for f in frames if f["type"] == "partial"]
    assert all(f["text"] for f in partials) and names.index("partial") < names.index("end_of_utterance")
    transcript = next(f for f in frames if f["type"] == "transcript")
    pause = [f for f in partials if f["final"]][-1]
    assert transcript["text"] == pause["text"]  # the turn ran on it: nothing transcribed after the end
    assert frames[-1]["result"]["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}
    assert len(_turns(demo)) == 1


@needs_espeak
def test_a_pause_pass_that_ends_after_the_utterance_still_becomes_the_turn(owner, demo, router, monkeypatch):
    """The pause's full pass may finish after the VAD has ended the utterance (a slow pass, a busy
    worker). Its answer must still reach the turn: the socket used to wait for it inside the frame's
    handler, where the answer cannot be taken, and after its 5 s bound transcribed the audio again."""
    import time

    import assistant.tasks
    import worker.speech

    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    speech = trim(espeak_samples("where did we put the haldi"))
    heard_in_pause, transcribed_in_turn = [], []
    real_heard, real_transcribe = worker.speech._heard, assistant.tasks._transcribe

    def slow_heard(store, data, sample_rate, final):
        heard = real_heard(store, data, sample_rate, final)
        if final:
            time.sleep(1.5)  # ends after the utterance does (800 ms of silence)
            heard_in_pause.append(heard.text)
        return heard

    def counted_transcribe(*args, **kwargs):
        transcribed_in_turn.append(True)
        return real_transcribe(*args, **kwargs)

    monkeypatch.setattr(worker.speech, "_heard", slow_heard)
    monkeypatch.setattr(assistant.tasks, "_transcribe", counted_transcribe)

    frames = _run(spoken_turn, demo.slug, np.concatenate([silence(300), speech, silence(1500)]),
                  cookie=session_cookie(owner))
    transcript = next(f for f in frames if f["type"] == "transcript")
    assert heard_in_pause and transcript["text"] == heard_in_pause[-1]
    assert not transcribed_in_turn  # the turn ran on the pause's words: nothing transcribed again
    assert frames[-1]["result"]["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}


@needs_espeak
def test_a_turn_asked_with_the_server_voice_gets_its_reply_as_speech(owner, demo, router, monkeypatch):
    monkeypatch.setenv("SHELFWISE_TTS", "espeak")
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    frames = _run(typed_turn, demo.slug, cookie=session_cookie(owner), text="where is the haldi", voice="server")
    names = kinds(frames)
    speech = [f for f in frames if f["type"] == "speech"]
    assert speech and names.index("reply") < names.index("speech") < names.index("done")
    assert [f["index"] for f in speech] == list(range(speech[0]["count"]))
    audio = decode_audio(base64.b64decode(speech[0]["audio_b64"]), audio_format="ogg", max_seconds=30)
    assert len(audio) > 16_000 * 0.5  # half a second or more of the reply, spoken


def test_an_unknown_voice_is_refused(owner, demo, router):
    frames = _run(typed_turn, demo.slug, cookie=session_cookie(owner), text="where is the haldi", voice="robot")
    assert [f["type"] for f in frames] == ["error", "done"] and frames[0]["code"] == "bad_request"
