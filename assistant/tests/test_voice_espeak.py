"""Spoken owner phrases, end to end over the voice socket, with the real speech and router models.

espeak-ng speaks 20 phrases from the owner session suite and the routing set (haldi, jeera, gur,
sarson ka tel, otta/atta, toor dal, chana dal...). Each goes over ``/ws/stores/<slug>/voice`` as a
browser's AudioWorklet sends it (PCM16, 16 kHz, 100 ms frames, then silence); the server's VAD
ends the utterance, the bundled Whisper tiny.en transcribes it and the bundled router model
(no fakes anywhere) picks the action. The test checks every turn's events in order, the tool calls
against the ledger, and that at least ``THRESHOLD`` phrases resolve to the right product and action.

Measured on this 2-core machine: 10/20. Misses: 9 are transcription (tiny.en hears "otta" as "dada",
"gur blocks" as "gurblocks", "nine" as "high"), 1 is the router ("get us ten bottles of sarson ka
tel" read as a lookup). scripts/bench_speech.py prints the same phrases typed, as a control.
"""

from __future__ import annotations

import numpy as np
import pytest
from asgiref.sync import async_to_sync

from assistant.tests.voice_socket import (
    kinds,
    open_socket,
    session_cookie,
    stream_pcm,
    until_done,
)
from audit.models import Turn
from lab.speech.evaluation import judge, voice_phrases
from ledger.demo import install_demo_catalog
from ledger.models import Order, Product, ReorderDraft
from speech.espeak import ESPEAK, espeak_samples, silence
from tenants.context import use_store

THRESHOLD = 9  # of 20: measured 10/20 (7/20 before the prompt put local names first)
FIRST_TURN_TIMEOUT_S = 300  # the router's static prompt is evaluated once (20-40 s on a laptop)
# A turn on two busy cores (CI beside other jobs) can take minutes; the wait stays bounded.
TURN_TIMEOUT_S = 300

pytestmark = [
    pytest.mark.model,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)"),
]


_ORDER = {"transcript": 1, "guard": 2, "action": 3, "tool_call": 4, "reply": 5, "media": 6, "done": 7}


def _check_order(frames: list[dict]) -> None:
    names = kinds(frames)
    eou = names.index("end_of_utterance")
    # Partial transcripts may come while the owner still speaks (a pass of 700 ms of new speech that
    # ends before the utterance does; how many depends on the machine's load).
    assert set(names[:eou]) <= {"vad", "partial"} and frames[0]["type"] == "vad" and frames[0]["speech"] is True, names
    assert frames[eou]["by"] == "vad" and names.count("end_of_utterance") == 1
    turn = names[eou + 1 :]
    assert turn[0] == "transcript" and turn[1] == "guard" and turn[-1] == "done", turn
    ranks = [_ORDER[name] for name in turn if name != "guard"]  # an output guard may follow the reply
    assert ranks == sorted(ranks), turn
    # What the socket showed is what the turn did.
    shown = [(f["tool"], f["arguments"]) for f in frames if f["type"] == "tool_call"]
    done = frames[-1]["result"]
    assert shown == [(call["tool"], call["arguments"]) for call in done["tool_calls"]]


def test_spoken_owner_phrases_resolve_to_the_right_product_and_action(store, owner, capsys):
    with use_store(store):
        install_demo_catalog(store=store)
    phrases = voice_phrases()
    assert len(phrases) >= 15
    cookie = session_cookie(owner)

    async def scenario():
        socket = await open_socket(store.slug, cookie=cookie)
        assert (await socket.receive_json_from(timeout=10))["type"] == "ready"
        runs = []
        for index, phrase in enumerate(phrases):
            speech = np.concatenate([silence(300), espeak_samples(phrase.say), silence(1200)])
            await socket.send_json_to({"type": "start", "mode": "router", "conversation": None, "format": "pcm16",
                                       "sample_rate": 16000})
            assert await socket.receive_json_from(timeout=10) == {"type": "listening"}
            await stream_pcm(socket, speech)
            frames = await until_done(socket, timeout=FIRST_TURN_TIMEOUT_S if index == 0 else TURN_TIMEOUT_S)
            result = frames[-1]["result"]
            if result["action"] == "confirm_hearing" and result["reply"].startswith("Did you say"):
                # "Did you say 15, not 50?": the owner's yes runs the words (typed here, as the page allows).
                await socket.send_json_to({"type": "text", "text": "yes", "mode": "router",
                                           "conversation": result["conversation"]})
                answered = await until_done(socket, timeout=TURN_TIMEOUT_S)
                runs.append((phrase, frames, answered))
            else:
                runs.append((phrase, frames, None))
        await socket.disconnect()
        return runs

    runs = async_to_sync(scenario)()
    right = 0
    lines = []
    for phrase, frames, answered in runs:
        _check_order(frames)
        result = (answered or frames)[-1]["result"]
        ok = judge(phrase, result)
        right += ok
        heard = next(f["text"] for f in frames if f["type"] == "transcript")
        calls = "; ".join(f"{c['tool']}({c['arguments']})" for c in result["tool_calls"])
        yes = " (after the owner's yes)" if answered else ""
        lines.append(f"{'OK ' if ok else 'MISS'} {phrase.say!r} -> heard {heard!r}{yes} -> {result['action']} {calls}")
        if ok and phrase.action == "update_count":
            call = next(c for c in result["tool_calls"] if c["tool"] == "update_inventory")
            with use_store(store):
                assert Product.objects.get(store=store, name=phrase.product).stock == call["arguments"]["stock"]
    with use_store(store):
        assert Order.objects.filter(store=store).count() == 0  # a model can only draft; nobody said yes
        drafted = ReorderDraft.objects.filter(store=store).count()
        asked = sum(1 for _phrase, _frames, answered in runs if answered)
        assert Turn.objects.filter(store=store, channel="voice").count() == len(phrases) + asked
    with capsys.disabled():
        print(f"\nvoice phrases right (product + action): {right}/{len(phrases)}; drafts made: {drafted}")
        print("\n".join(lines))
    assert right >= THRESHOLD, f"{right}/{len(phrases)} right:\n" + "\n".join(lines)
