"""Assistant turns as jobs: the web submits them, a worker that holds the models runs them.

Every channel (REST, the voice socket, Alexa, the ``turn`` command) calls ``turn_submit``, which
records a ``TurnJob`` and enqueues ``worker.tasks.turn_task`` on the ``turns`` queue; the web
process never loads a model. The worker's ``turn_job_run`` claims the job, runs the pipeline,
and reports each event twice: pushed to the submitter's channel (live, when the channel layer
reaches the web process) and kept on the job (``events``), which is also where the answer lands.
The web side waits with ``worker.watch.turn_events``.

Safe to deliver twice: only a ``queued`` job is claimed; a job found ``running`` belonged to a
worker that died mid-turn and is reported failed instead of being run again; a finished job
is left as it is. A job that waited longer than ``TURN_MAX_QUEUE_S`` is not run at all: an owner's
"order twelve bottles" must not happen an hour after it was said.
"""

from __future__ import annotations

import base64
import datetime as dt
import logging
import socket
import time
import uuid
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, close_old_connections, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tenants.models import Store
from worker.models import TurnJob

logger = logging.getLogger(__name__)

EVENT_MESSAGE = "turn.event"  # channel-layer message type; consumers handle it as ``turn_event``
TURN_MAX_QUEUE_S = 300  # a turn not started this long after it was asked is not run
TURN_MAX_RUN_S = 600  # a running turn silent this long lost its worker (the reaper fails it)
EVENTS_SAVE_EVERY_S = 1.0  # a running turn's events reach its job row at most this often


class TurnUnavailable(Exception):
    """The turn could not be handed to a worker (the broker did not take it)."""

    code = "assistant_unavailable"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def unavailable_message() -> str:
    return _("The assistant can't take requests right now. Nothing was changed; please try again in a minute.")


def interrupted_message() -> str:
    return _("That request was interrupted before I could answer. Please check your approvals and counts before asking again.")


def expired_message() -> str:
    return _("That request waited too long and was not run. Nothing was changed; please ask again.")


def failed_message() -> str:
    return _("Sorry, something went wrong on my side. Nothing was changed; please try again.")


# -- the web side ---------------------------------------------------------------------------------


def turn_submit(
    *, store: Store, channel: str, mode: str, actor: str, text: str = "", conversation: str | None = None,
    idempotency_key: str = "", notify: str | None = None, audio: dict[str, Any] | None = None,
    voice: bool = False, transcript: dict[str, Any] | None = None,
) -> TurnJob:
    """Record a turn and hand it to a worker; returns its job (an earlier one for a repeated key).

    ``notify`` is a channel-layer name that gets each event as it happens; ``audio`` is
    ``{"audio_b64", "audio_format", "sample_rate"}`` for a recording the worker transcribes;
    ``voice`` asks for the reply spoken by the server (``speech`` events); ``transcript`` is what the
    socket's own speech pass already heard for ``text`` (it comes from the server, never a client).

    Raises:
        TurnUnavailable: the broker did not take it (the job is recorded as failed).
    """
    from tenants.context import use_store

    with use_store(store):  # the job is the store's row: row-level security needs its context
        extra = {key: value for key, value in (("voice", voice), ("transcript", transcript)) if value}
        return _submit(store=store, channel=channel, mode=mode, actor=actor, text=text, conversation=conversation,
                       idempotency_key=idempotency_key, notify=notify, audio={**(audio or {}), **extra} or None)


def _submit(*, store: Store, channel: str, mode: str, actor: str, text: str, conversation: str | None,
            idempotency_key: str, notify: str | None, audio: dict[str, Any] | None) -> TurnJob:
    if idempotency_key:
        earlier = TurnJob.objects.filter(store=store, idempotency_key=idempotency_key).first()
        if earlier is not None and earlier.error_code == "assistant_unavailable":
            return _resubmit(earlier, notify=notify, audio=audio)  # it never ran: a retry may hand it over
        if earlier is not None:
            return earlier
    try:
        job = TurnJob.objects.create(
            store=store, channel=channel, mode=mode, actor=actor[:80], text=text, conversation=conversation or "",
            idempotency_key=idempotency_key,
        )
    except IntegrityError:  # the same key, submitted at the same moment
        return TurnJob.objects.get(store=store, idempotency_key=idempotency_key)
    _enqueue(job, notify=notify, audio=audio)
    return job


def _resubmit(job: TurnJob, *, notify: str | None, audio: dict[str, Any] | None) -> TurnJob:
    """A job the broker refused, handed over again (the same row: the key still means one turn)."""
    TurnJob.objects.filter(pk=job.pk, error_code="assistant_unavailable").update(
        status=TurnJob.Status.QUEUED, error_code="", error="", events=[], finished_at=None, created_at=timezone.now(),
    )
    job.refresh_from_db()
    _enqueue(job, notify=notify, audio=audio)
    return job


def _enqueue(job: TurnJob, *, notify: str | None, audio: dict[str, Any] | None) -> None:
    from shelfwise.celery import app
    from tenants.context import use_store
    from worker.tasks import turn_task

    kwargs = {"store_id": job.store_id, "job_id": str(job.pk), "notify": notify, **(audio or {})}

    def send() -> None:
        try:
            turn_task.apply_async(kwargs=kwargs, expires=TURN_MAX_QUEUE_S)
        except Exception as exc:  # the broker is down or refused: the caller answers 503, nothing ran
            if app.conf.task_always_eager:
                raise
            logger.warning("Turn %s could not be enqueued: %s", job.pk, exc)
            with use_store(job.store):  # on commit, maybe after the submitter's context ended
                _finish(job, TurnJob.Status.FAILED, code="assistant_unavailable", message=unavailable_message())
            raise TurnUnavailable(unavailable_message()) from exc

    if app.conf.task_always_eager:
        send()  # runs here, on this connection, so it sees the job even inside a test's transaction
    else:
        transaction.on_commit(send)


def turn_job_get(*, store: Store, job_id: Any) -> TurnJob | None:
    """The store's job with that id, or None (a malformed id and another store's job answer the same)."""
    from tenants.context import use_store

    try:
        key = uuid.UUID(str(job_id))
    except ValueError:
        return None
    with use_store(store):  # row-level security shows the store its own jobs only
        return TurnJob.objects.filter(store=store, pk=key).first()


def turn_status(job: TurnJob) -> dict[str, Any]:
    """The job as the status URL shows it."""
    data: dict[str, Any] = {"job": str(job.pk), "status": job.status, "result": job.result}
    if job.status == TurnJob.Status.FAILED:
        data["error"] = {"code": job.error_code or "turn_failed", "message": job.error or failed_message()}
    return data


# -- the worker side -------------------------------------------------------------------------------


def _finish(job: TurnJob, status: str, *, code: str = "", message: str = "", result: dict | None = None) -> bool:
    """Settle a job that is not finished yet; False when it already was."""
    changed = TurnJob.objects.filter(pk=job.pk).exclude(status__in=[TurnJob.Status.DONE, TurnJob.Status.FAILED]).update(
        status=status, error_code=code, error=message, result=result, finished_at=timezone.now(), events=job.events,
    )
    job.status, job.error_code, job.error, job.result = status, code, message, result
    return bool(changed)


def _claim(job: TurnJob, now: dt.datetime) -> str:
    """queued → running ("claimed"); else "finished", "interrupted" (a dead worker had it) or "expired"."""
    if job.finished:
        return "finished"
    if job.status == TurnJob.Status.RUNNING:
        return "interrupted"
    if now - job.created_at > dt.timedelta(seconds=TURN_MAX_QUEUE_S):
        return "expired"
    claimed = TurnJob.objects.filter(pk=job.pk, status=TurnJob.Status.QUEUED).update(
        status=TurnJob.Status.RUNNING, started_at=now, attempts=job.attempts + 1, worker=socket.gethostname()[:200],
    )
    return "claimed" if claimed else "interrupted"


class _Reporter:
    """Sends a job's events to its channel and keeps them on the job, in order."""

    def __init__(self, job: TurnJob, notify: str | None) -> None:
        self.job = job
        self.send = _sender(notify)
        self.saved = 0
        self.saved_at = time.monotonic()

    def __call__(self, event: dict[str, Any]) -> None:
        seq = len(self.job.events)
        self.job.events.append(event)
        self.send({"seq": seq, "event": event})
        # Kept as the turn goes, for a web side that reads the job (no push), at most once a second:
        # each save rewrites the whole list. Never inside a caller's transaction; the end flushes.
        if not connection.in_atomic_block and time.monotonic() - self.saved_at >= EVENTS_SAVE_EVERY_S:
            self.flush()

    def flush(self) -> None:
        if self.saved < len(self.job.events):
            TurnJob.objects.filter(pk=self.job.pk).update(events=self.job.events)
            self.saved = len(self.job.events)
        self.saved_at = time.monotonic()


def _sender(notify: str | None) -> Callable[[dict[str, Any]], None]:
    if not notify or not push_reaches_web():
        return lambda message: None
    from channels.layers import get_channel_layer

    layer = get_channel_layer()

    def send(message: dict[str, Any]) -> None:
        try:
            async_to_sync(layer.send)(notify, {"type": EVENT_MESSAGE, **message})
        except Exception as exc:  # noqa: BLE001 - Redis down: the web side reads the job's events instead
            logger.warning("Turn event not pushed to %s: %s", notify, exc)

    return send


def push_reaches_web() -> bool:
    """Whether a channel-layer message sent here reaches the web process (else it polls the job)."""
    from shelfwise.celery import app

    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return not backend.endswith("InMemoryChannelLayer") or bool(app.conf.task_always_eager)


def turn_job_run(*, store: Store, job_id: str, notify: str | None = None, audio: dict[str, Any] | None = None,
                 voice: bool = False, transcript: dict[str, Any] | None = None) -> None:
    """Run a submitted turn once (see the module docstring); its answer lands on the job."""
    job = turn_job_get(store=store, job_id=job_id)
    if job is None:  # not this store's, gone, or not a job id: nothing to run
        logger.warning("Turn job %r of store %s does not exist", job_id, store.pk)
        return
    report = _Reporter(job, notify)
    claim = _claim(job, timezone.now())
    if claim != "claimed":
        if claim != "finished":
            _fail(job, report, claim, interrupted_message() if claim == "interrupted" else expired_message())
        return
    try:
        answer, held = _run(store, job, report, audio, transcript)
    except _Refused as refused:
        _fail(job, report, refused.code, refused.message)
        return
    except (OperationalError, InterfaceError):
        # The database went away mid-turn: a write may have committed before it did, so the owner
        # is told to check rather than "nothing was changed". If settling the job fails too, the
        # error reaches the task, which runs again and reports the claimed job interrupted.
        logger.exception("Turn job %s of store %s lost the database", job.pk, store.pk)
        if not connection.in_atomic_block:
            close_old_connections()  # a broken connection is replaced on the next query
        _fail(job, report, "interrupted", interrupted_message())
        return
    except Exception:  # never leave the owner waiting: an error and a done
        logger.exception("Turn job %s failed for store %s", job.pk, store.pk)
        # Each tool call commits on its own: after one, "nothing was changed" may not be true.
        called = any(event.get("type") == "tool_call" for event in job.events)
        _fail(job, report, "turn_failed", interrupted_message() if called else failed_message())
        return
    if voice and answer.get("reply"):
        _speak(report, answer["reply"])
    report.flush()
    done = {**held, "type": "done", "result": answer}
    job.events.append(done)
    _finish(job, TurnJob.Status.DONE, result=answer)
    report.send({"seq": len(job.events) - 1, "event": done})


def _fail(job: TurnJob, report: _Reporter, code: str, message: str) -> None:
    for event in ({"type": "error", "code": code, "message": message}, {"type": "done", "result": None}):
        job.events.append(event)
    if _finish(job, TurnJob.Status.FAILED, code=code, message=message):
        for seq in (len(job.events) - 2, len(job.events) - 1):
            report.send({"seq": seq, "event": job.events[seq]})


class _Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _speak(report: _Reporter, reply: str) -> None:
    """The reply in the server's voice: one ``speech`` event (Ogg/Opus, base64) per sentence, as each
    is made; ``speech_error`` when there is no voice (the client speaks the text itself)."""
    from speech import SpeechError
    from speech.voice import ogg_opus, sentences, speak

    count = len(sentences(reply))
    try:
        for index, (samples, rate) in enumerate(speak(reply)):
            report({"type": "speech", "index": index, "count": count, "format": "ogg",
                    "audio_b64": base64.b64encode(ogg_opus(samples, rate)).decode("ascii")})
    except SpeechError as exc:
        report({"type": "speech_error", **exc.as_dict()})


def _run(store: Store, job: TurnJob, report: _Reporter, audio: dict[str, Any] | None,
         heard: dict[str, Any] | None = None) -> tuple[dict, dict]:
    """The turn's answer, and the pipeline's own ``done`` event (sent later, with the answer)."""
    from assistant.pipeline import run_turn
    from assistant.types import EventKind, Mode, TurnInput

    text, transcript = job.text, heard
    if audio:
        heard = _transcribe(store, audio)
        text, transcript = heard.text, heard.as_event_data()
        TurnJob.objects.filter(pk=job.pk).update(text=text)

    held: dict[str, Any] = {}

    def on_event(event) -> None:
        if event.kind == EventKind.DONE:  # it goes out with the answer, once that is stored
            held.update(event.as_dict())
        else:
            report(event.as_dict())

    result = run_turn(
        store=store,
        turn=TurnInput(text=text, mode=Mode(job.mode), conversation=job.conversation or None, channel=job.channel,
                       actor=job.actor, transcript=transcript),
        on_event=on_event,
    )
    return result.as_dict(), held


def _transcribe(store: Store, audio: dict[str, Any]):
    """The recording's transcript, with the store's product words as Whisper's prompt.

    Raises:
        _Refused: empty, not audio, too long or unsupported (nothing else runs).
    """
    from assistant.tasks import _transcribe as transcribe_b64
    from speech import SpeechError

    try:
        return transcribe_b64(store, audio.get("audio_b64") or "", audio.get("audio_format") or "pcm16",
                              int(audio.get("sample_rate") or 16_000))
    except SpeechError as exc:
        raise _Refused(exc.code, exc.message) from exc


def _stale(now: dt.datetime) -> dict[str, Any]:
    """Which jobs the reaper fails: lost (running too long) and waited (queued too long)."""
    return {
        "interrupted": Q(status=TurnJob.Status.RUNNING, started_at__lt=now - dt.timedelta(seconds=TURN_MAX_RUN_S)),
        "expired": Q(status=TurnJob.Status.QUEUED, created_at__lt=now - dt.timedelta(seconds=TURN_MAX_QUEUE_S)),
    }


def turn_jobs_reap(*, now: dt.datetime | None = None) -> int:
    """Fail the jobs whose worker vanished (running too long) or that no worker took in time.

    Platform maintenance across stores: the ids of the stores with a stale job are read past
    row-level security (``bypass``), and each store's jobs are then failed inside its own context.
    """
    from tenants.context import use_store
    from tenants.rls import bypass

    now = now or timezone.now()
    stale = _stale(now)
    messages = {"interrupted": interrupted_message(), "expired": expired_message()}
    with bypass():
        store_ids = sorted(set(TurnJob.objects.filter(stale["interrupted"] | stale["expired"])
                               .order_by().values_list("store_id", flat=True).distinct()))
    failed = 0
    for store in Store.objects.filter(pk__in=store_ids).order_by("pk"):
        with use_store(store):
            for code, which in stale.items():
                failed += TurnJob.objects.filter(which, store=store).update(
                    status=TurnJob.Status.FAILED, error_code=code, error=messages[code], finished_at=now)
    return failed
