"""The owner's voice socket: ``/ws/stores/<slug>/voice`` (protocol in ``VoiceConsumer``'s docstring).

The consumer is thin: it checks who is connected, buffers audio, runs the streaming VAD on PCM
and hands each utterance (or typed text) to a worker as a turn job (``worker.turns.turn_submit``;
the web process never runs Whisper or a language model); the job's events come back as they
happen (``worker.watch.turn_events``: pushed through the channel layer, or read from the job) and
are relayed in order.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import Any

import numpy as np
from asgiref.sync import sync_to_async
from channels.db import DatabaseSyncToAsync, database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from assistant import socket_slots
from assistant.sentences import say
from assistant.socket_slots import slot_limit, slot_release, slot_renew, slot_take
from assistant.tasks import TURN_FAILED, failure_events
from assistant.types import Mode
from shelfwise.throttling import turn_charge, user_ident
from speech.config import SAMPLE_RATE, speech_settings
from speech.decode import EMPTY, MAX_RATE, MIN_RATE, AudioFormat, resample
from speech.vad import UtteranceDetector, VadEvent
from tenants.errors import StoreNotFound
from tenants.members import member_group
from worker.turns import TurnUnavailable, interrupted_message, push_reaches_web, turn_submit
from worker.watch import turn_events

logger = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_TOO_MANY = 4429
# uvicorn's --ws-max-size in every launch (Procfile, compose, Dockerfile): a bigger frame is closed
# with 1009 before it reaches the consumer; smaller ones past the limits below get a clean error.
SERVER_MAX_FRAME = 1024 * 1024
MAX_TEXT_FRAME = 4_096  # bytes of one JSON control frame
MAX_AUDIO_FRAME = 256 * 1024  # bytes of one binary frame (100 ms of PCM16 is 3.2 KB)
MAX_ENCODED_BYTES = 4 * 1024 * 1024  # a whole webm/ogg/wav utterance
MAX_TEXT = 500
MAX_CONVERSATION = 64
# A turn that never reports back (a worker lost) frees the socket after this long.
TURN_TIMEOUT_S = 180
PARTIAL_EXPIRES_S = 10  # a partial no worker took by then is stale
CANDIDATE_WAIT_S = 5  # at the end of speech, how long to wait for the pause's transcript in flight

BAD_JSON = "That message was not valid JSON."
NOT_AN_OBJECT = "That message was not a JSON object."
UNREADABLE = "That text has characters I can't read."
BAD_REQUEST = "That request is not part of the voice protocol."
BUSY = "Still answering your last request. Please wait a moment."
NOT_LISTENING = "Say start before sending audio or ending an utterance."
NO_SPEECH = "I didn't hear anything. Please try again."
TOO_LARGE = "That message was too large."
THROTTLED = "You're asking faster than I can keep up. Please wait {wait}, then try again."
TOO_MANY_SOCKETS = "Voice is already open in {limit} windows or devices. Close one, then try again."


class ProtocolError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@database_sync_to_async
def _resolve_store(user: Any, slug: str):
    from tenants.selectors import store_for_user

    return store_for_user(user=user, slug=slug)


AUDIO_KEYS = ("audio_b64", "audio_format", "sample_rate")


def _submit(store, **job: Any) -> str:
    """Hand the turn to a worker; returns the job id (eager, with no broker: it has already run)."""
    audio = {key: job.pop(key) for key in AUDIO_KEYS if key in job}
    submitted = turn_submit(store=store, channel="voice", text=job.pop("text", "") or "", audio=audio or None, **job)
    return str(submitted.pk)


_submit_async = DatabaseSyncToAsync(_submit, thread_sensitive=False)


def _partial(store, **kwargs: Any) -> None:
    """Hand the utterance so far to a worker for a partial transcript (eager: it runs here, now)."""
    from worker.tasks import speech_partial_task

    try:
        speech_partial_task.apply_async(kwargs={"store_id": store.pk, **kwargs}, expires=PARTIAL_EXPIRES_S)
    except Exception as exc:  # noqa: BLE001 - a preview only: the turn itself transcribes again if needed
        logger.warning("Partial transcript for store %s not requested: %s", store.pk, exc)


_partial_async = DatabaseSyncToAsync(_partial, thread_sensitive=False)


def _voice(value: Any) -> bool:
    if value in (None, "", "browser"):
        return False
    if value == "server":
        return True
    raise ProtocolError("bad_request", "Voice must be browser or server.")


def _conversation(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or len(value) > MAX_CONVERSATION or not all(c.isalnum() or c in "-_" for c in value):
        raise ProtocolError("bad_request", "The conversation id must be letters, digits, '-' or '_'.")
    return value


def _readable(text: str) -> bool:
    """No NUL and no lone surrogate (what ``POST /api/v1/turns`` refuses too; the database cannot store them)."""
    return "\x00" not in text and not any("\ud800" <= char <= "\udfff" for char in text)


def _mode(value: Any) -> str:
    if value in (None, ""):
        return Mode.ROUTER.value
    try:
        return Mode(value).value
    except ValueError:
        raise ProtocolError("bad_request", "Mode must be router, native or small.") from None


class VoiceConsumer(AsyncWebsocketConsumer):
    """One owner's voice and text turns for one store.

    Client → server (JSON text frames, then binary audio frames):
        ``{"type":"start","mode":..,"conversation":..,"format":"pcm16"|"webm"|"ogg"|"wav","sample_rate":16000,
        "voice":"browser"|"server"}``
        ``{"type":"end"}`` · ``{"type":"cancel"}`` · ``{"type":"text","text":..,"mode":..,"conversation":..,"voice":..}``
    Server → client:
        ``ready`` on connect; ``listening`` after start; ``vad`` (speech true/false); ``partial``
        (``text``, ``final``: what was heard so far, PCM16 only);
        ``end_of_utterance`` (by client or vad); then the turn's events as ``Event.as_dict()``
        (transcript, guard, action, tool_call, reply, media, error; with ``voice: server`` also
        ``speech``: ``index``, ``count``, ``format: ogg``, ``audio_b64`` per sentence of the reply, or
        ``speech_error``) and ``done`` with ``result``.
        A refused request gets ``error`` (code, message) and ``done`` with ``result: null``.
    Not signed in closes with 4401, not a member of the store with 4403, before anything is read; a
    user who already has ``VOICE_SOCKETS_PER_USER`` sockets open gets ``error`` (``too_many_sockets``)
    and a close with 4429.
    """

    async def __call__(self, scope, receive, send) -> None:
        self.slot: str | None = None
        self.heartbeat: asyncio.Task | None = None
        try:
            await super().__call__(scope, receive, send)
        finally:  # however the socket ends (closed, dropped, the consumer crashed), its slot is freed
            await self._slot_free()

    async def connect(self) -> None:
        self.store = None
        self.listening = False
        self.busy = False
        self.strays_quiet = False
        self.turn_task: asyncio.Task | None = None
        self.turn_done: asyncio.Event | None = None
        self.awaited: dict[str, Any] | None = None  # the pause pass the running turn waits for
        self._reset_audio()
        user = self.scope.get("user")
        slug = self.scope["url_route"]["kwargs"]["store_slug"]
        # Accept first, then close: browsers only see a close code on an accepted socket.
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        try:
            self.store = await _resolve_store(user, slug)
        except StoreNotFound:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if not await self._slot_hold(user):
            return
        self.actor = f"user:{user.pk}"
        self.budget = user_ident(user)  # the same turn budget as the user's POST /api/v1/turns
        # Removing this member from the store closes this socket at once (tenants.members.member_remove).
        self.member_group = member_group(user_id=user.pk, store_id=self.store.pk)
        await self.channel_layer.group_add(self.member_group, self.channel_name)
        await self._send({"type": "ready", "store": self.store.slug})

    async def _slot_hold(self, user: Any) -> bool:
        self.slot = await slot_take(user_id=user.pk, holder=self.channel_name)
        if self.slot is None:
            self.store = None
            message = TOO_MANY_SOCKETS.format(limit=slot_limit())
            await self._send({"type": "error", "code": "too_many_sockets", "message": message})
            await self.close(code=CLOSE_TOO_MANY)
            return False
        self.heartbeat = asyncio.ensure_future(self._heartbeat(self.slot))
        return True

    async def _heartbeat(self, slot: str) -> None:
        while True:
            await asyncio.sleep(socket_slots.HEARTBEAT_S)
            try:
                await slot_renew(slot, holder=self.channel_name)
            except Exception:  # noqa: BLE001 - a cache hiccup: the next beat tries again
                logger.warning("Voice socket slot %s not renewed", slot, exc_info=True)

    async def _slot_free(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
        slot, self.slot = self.slot, None
        if slot is not None:
            try:
                await slot_release(slot, holder=self.channel_name)
            except Exception:  # noqa: BLE001 - the slot's expiry frees it instead
                logger.warning("Voice socket slot %s not released", slot, exc_info=True)

    async def access_revoked(self, event: dict[str, Any]) -> None:
        self.store = None
        await self.close(code=CLOSE_FORBIDDEN)

    async def alert_raised(self, event: dict[str, Any]) -> None:
        """An alert this member's role sees, pushed as it commits (``alerts.delivery.push``): ``alert``."""
        await self._send({"type": "alert", "alert": event["alert"]})

    async def disconnect(self, code: int) -> None:
        if getattr(self, "member_group", None):
            await self.channel_layer.group_discard(self.member_group, self.channel_name)
        self.listening = False
        if self.turn_task is not None and not self.turn_task.done():
            self.turn_task.cancel()  # stops the wait; a turn already running finishes and is audited
        self._reset_audio()

    # -- client frames ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.store is None:
            return
        try:
            if bytes_data is not None:
                await self._audio(bytes_data)
            elif text_data is not None:
                await self._control(text_data)
        except ProtocolError as exc:
            self.listening = False
            self._reset_audio()
            await self._fail(exc.code, exc.message)

    async def _control(self, text: str) -> None:
        if len(text) > MAX_TEXT_FRAME or len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_FRAME:
            raise ProtocolError("too_large", TOO_LARGE)
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: arrays nested a few thousand deep
            raise ProtocolError("bad_json", BAD_JSON) from None
        if not isinstance(message, dict):
            raise ProtocolError("bad_json", NOT_AN_OBJECT)
        kind = message.get("type")
        if kind == "start":
            self.strays_quiet = True  # audio sent with this start is dropped, not refused, if it is refused
        if kind == "cancel":
            self.listening = False
            self._reset_audio()
            return
        if kind == "start":
            await self._start(message)
        elif kind == "end":
            if not self.listening:
                raise ProtocolError("not_listening", NOT_LISTENING)
            await self._end_of_utterance(by="client")
        elif kind == "text":
            await self._text(message)
        else:
            raise ProtocolError("bad_request", BAD_REQUEST)

    async def _start(self, message: dict[str, Any]) -> None:
        self._check_idle()
        try:
            audio_format = AudioFormat(message.get("format") or AudioFormat.PCM16)
        except ValueError:
            raise ProtocolError("unsupported", "Audio format must be pcm16, webm, ogg or wav.") from None
        rate = message.get("sample_rate", SAMPLE_RATE)
        if isinstance(rate, bool) or not isinstance(rate, int) or not MIN_RATE <= rate <= MAX_RATE:
            raise ProtocolError("unsupported", f"Sample rate must be a whole number from {MIN_RATE} to {MAX_RATE}.")
        self.turn_mode = _mode(message.get("mode"))
        self.turn_conversation = _conversation(message.get("conversation"))
        self.server_voice = _voice(message.get("voice"))
        await self._charge_turn()
        settings = speech_settings()
        self._reset_audio()
        self.audio_format, self.sample_rate = audio_format, rate
        self.max_seconds = settings.max_seconds
        if audio_format is AudioFormat.PCM16:
            self.detector = UtteranceDetector(silence_ms=settings.vad_silence_ms, threshold=settings.vad_threshold)
        self.listening = True
        await self._send({"type": "listening"})

    async def _audio(self, data: bytes) -> None:
        if not self.listening:
            if self.strays_quiet or self.busy:
                return  # frames still in flight after the utterance ended (or its start was refused)
            self.strays_quiet = True  # the first frame before any start is answered, the rest dropped
            raise ProtocolError("not_listening", NOT_LISTENING)
        if len(data) > MAX_AUDIO_FRAME:
            raise ProtocolError("too_large", TOO_LARGE)
        self.audio.extend(data)
        if self.audio_format is not AudioFormat.PCM16:
            if len(self.audio) > MAX_ENCODED_BYTES:
                raise ProtocolError("too_long", f"That was longer than {self.max_seconds:g} seconds.")
            return
        if len(self.audio) / 2 / self.sample_rate > self.max_seconds:
            raise ProtocolError("too_long", f"That was longer than {self.max_seconds:g} seconds. Please ask one thing at a time.")
        # Whole samples only: a frame may end in the middle of one.
        usable = (len(self.audio) // 2) * 2
        fresh = bytes(self.audio[self.vad_offset:usable])
        self.vad_offset = usable
        samples = resample(np.frombuffer(fresh, dtype="<i2").astype(np.float32) / 32768.0, sample_rate=self.sample_rate)
        for event in self.detector.feed(samples):
            if event is VadEvent.END:
                await self._end_of_utterance(by="vad")
                return
            await self._send({"type": "vad", "speech": event is VadEvent.SPEECH_START})
            if event is VadEvent.SPEECH_START:
                self.candidate = None  # the owner went on: the pause's transcript is not the request
            else:
                await self._request_partial(final=True)
        if self.detector.state.speaking:
            await self._request_partial(final=False)

    async def _end_of_utterance(self, *, by: str) -> None:
        self.listening = False
        await self._send({"type": "end_of_utterance", "by": by})
        audio = bytes(self.audio[: (len(self.audio) // 2) * 2] if self.audio_format is AudioFormat.PCM16 else self.audio)
        heard = self.detector.heard_speech if self.detector is not None else True
        audio_format, sample_rate = str(self.audio_format), self.sample_rate
        pause = self.candidate if self.detector is not None and self.detector.ended else None
        self._reset_audio()
        if not audio:
            await self._fail("empty", EMPTY)
            return
        if not heard:  # the VAD heard no speech: Whisper would only invent some
            await self._fail("no_speech", NO_SPEECH)
            return
        self.awaited = pause  # its pass may still be running: ``speech_partial`` settles it
        await self._run(pause=pause, mode=self.turn_mode, conversation=self.turn_conversation,
                        voice=self.server_voice, audio_b64=base64.b64encode(audio).decode("ascii"),
                        audio_format=audio_format, sample_rate=sample_rate)

    async def _text(self, message: dict[str, Any]) -> None:
        self._check_idle()
        text = message.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ProtocolError("bad_request", "Say or type something first.")
        if not _readable(text):
            raise ProtocolError("bad_request", UNREADABLE)
        if len(text) > MAX_TEXT:
            raise ProtocolError("too_large", f"Please keep a request under {MAX_TEXT} characters.")
        mode, voice = _mode(message.get("mode")), _voice(message.get("voice"))
        conversation = _conversation(message.get("conversation"))
        await self._charge_turn()
        self.listening = False
        self._reset_audio()
        await self._run(text=text, mode=mode, conversation=conversation, voice=voice)

    async def _charge_turn(self) -> None:
        """Count a turn (typed, or an utterance at its start) against the user's turn rate."""
        wait = await sync_to_async(turn_charge, thread_sensitive=False)(self.budget)
        if wait is not None:
            raise ProtocolError("throttled", THROTTLED.format(wait=f"{wait} second{'' if wait == 1 else 's'}"))

    def _check_idle(self) -> None:
        if self.busy:
            raise ProtocolError("busy", BUSY)

    def _reset_audio(self) -> None:
        self.audio = bytearray()
        self.vad_offset = 0
        self.partial_seq = getattr(self, "partial_seq", 0) + 1  # answers for an older utterance are dropped
        self.partial_req = 0
        self.partials_in_flight = 0
        self.partial_bytes = 0  # audio the last request covered
        self.candidate: dict[str, Any] | None = None  # the final pass requested on the last pause
        self.server_voice = getattr(self, "server_voice", False)
        self.detector: UtteranceDetector | None = None
        self.audio_format = AudioFormat.PCM16
        self.sample_rate = SAMPLE_RATE

    # -- speech while the owner talks --------------------------------------------------------------

    async def _request_partial(self, *, final: bool) -> None:
        """Ask a worker for the utterance so far: quick partials while speaking (one at a time, every
        ``SHELFWISE_STT_PARTIAL_MS`` of new audio), the full pass on a pause."""
        interval = speech_settings().partial_interval_ms
        if not interval or self.audio_format is not AudioFormat.PCM16 or not push_reaches_web():
            return
        size = (len(self.audio) // 2) * 2
        step = interval * self.sample_rate * 2 // 1000
        if not final and (self.partials_in_flight or size - self.partial_bytes < step):
            return
        if final and self.candidate is not None and self.candidate["bytes"] == size:
            return
        self.partial_bytes, self.partial_req = size, self.partial_req + 1
        if final:
            self.candidate = {"bytes": size, "req": self.partial_req, "seq": self.partial_seq,
                              "future": asyncio.get_running_loop().create_future()}
        else:
            self.partials_in_flight += 1
        audio_b64 = base64.b64encode(bytes(self.audio[:size])).decode("ascii")
        asyncio.ensure_future(_partial_async(self.store, audio_b64=audio_b64, sample_rate=self.sample_rate,
                                             notify=self.channel_name, seq=self.partial_seq, req=self.partial_req,
                                             final=final))

    async def speech_partial(self, event: dict[str, Any]) -> None:
        """A worker's transcript of the utterance so far (``worker.speech``)."""
        if event.get("final"):  # the pause's pass, awaited by this utterance or by the turn it ended in
            for candidate in (self.candidate, self.awaited):
                if (candidate is not None and (candidate["seq"], candidate["req"]) == (event.get("seq"), event.get("req"))
                        and not candidate["future"].done()):
                    candidate["future"].set_result(event)
        if event.get("seq") != self.partial_seq:
            return  # an earlier utterance's
        if not event.get("final"):
            self.partials_in_flight = max(self.partials_in_flight - 1, 0)
        if event.get("text"):  # this utterance's, until its turn starts (then the seq moves on)
            await self._send({"type": "partial", "text": event["text"], "final": bool(event.get("final"))})

    async def _pause_transcript(self, candidate: dict[str, Any] | None) -> dict[str, Any] | None:
        """The full transcript of the pause that became the end (nothing was said after it).

        Awaited in the turn's task, never in a frame's handler: the consumer takes the worker's
        answer (``speech_partial``) only between handlers, so a handler that waited for it would
        wait out the whole bound whenever the pass ended after the utterance did."""
        if candidate is None:
            return None
        try:
            heard = await asyncio.wait_for(asyncio.shield(candidate["future"]), timeout=CANDIDATE_WAIT_S)
        except TimeoutError:
            return None
        if not heard.get("text") or not heard.get("transcript"):
            return None
        return {"text": heard["text"], "transcript": heard["transcript"]}

    # -- the turn -------------------------------------------------------------------------------

    async def _run(self, pause: dict[str, Any] | None = None, **job: Any) -> None:
        """Hand the turn to the task without waiting here, so its events are relayed as they come."""
        self.busy = True
        self.turn_done = asyncio.Event()
        self.turn_task = asyncio.ensure_future(self._turn(job, self.turn_done, pause=pause))

    async def _turn(self, job: dict[str, Any], done: asyncio.Event, *, pause: dict[str, Any] | None = None) -> None:
        from channels.layers import get_channel_layer

        job_id = None
        try:
            heard = await self._pause_transcript(pause)
            if heard is not None:  # heard during the pause: nothing left to transcribe
                job = {key: value for key, value in job.items() if key not in AUDIO_KEYS} | heard
            notify = await get_channel_layer().new_channel() if push_reaches_web() else None
            job_id = await asyncio.wait_for(
                _submit_async(self.store, notify=notify, actor=self.actor, **job), timeout=TURN_TIMEOUT_S
            )
            async for event in turn_events(store=self.store, job_id=job_id, notify=notify, timeout=TURN_TIMEOUT_S):
                if event.get("type") == "done":
                    self.busy = False
                    done.set()
                await self._send(event)
        except asyncio.CancelledError:
            raise
        except TurnUnavailable as exc:
            await self._finish_failed("assistant_unavailable", exc.message, done)
        except Exception:
            logger.exception("Voice turn did not finish for store %s", self.store.pk)
        if not done.is_set():  # the bound passed (a worker lost) or it failed: free the socket
            if job_id is None:  # never handed over: nothing ran
                await self._finish_failed("turn_failed", say(TURN_FAILED), done)
            else:  # handed over: its worker may have written, so no "nothing was changed"
                await self._finish_failed("interrupted", interrupted_message(), done)

    async def _finish_failed(self, code: str, message: str, done: asyncio.Event) -> None:
        if not done.is_set():
            done.set()
            self.busy = False
            await self._fail(code, message)

    # -- sending ---------------------------------------------------------------------------------

    async def _fail(self, code: str, message: str) -> None:
        for event in failure_events(code, message):
            await self._send(event)

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, separators=(",", ":"), default=str))
