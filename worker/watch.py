"""The web side of a turn job: its events, in order, as they come, without holding a thread.

Events arrive two ways (``worker.turns``): pushed through the channel layer to the submitter's
channel, numbered, and kept on the job. ``turn_events`` takes the pushed ones when the layer
reaches this process (Redis, or an eager worker in this process) and reads the job otherwise:
every ``POLL_S`` when nothing is pushed here (the in-memory layer beside a worker process, as
under ``make run``), and every ``CHECK_S`` as a safety net when pushes stop (Redis went down
mid-turn, a message was lost). A gap in the numbers is filled from the job, so the caller sees
each event once, in order, ending with ``done``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections, connection

from tenants.context import use_store
from tenants.models import Store
from worker.models import TurnJob
from worker.turns import failed_message, push_reaches_web, turn_status

logger = logging.getLogger(__name__)

POLL_S = 0.2
CHECK_S = 2.0


@sync_to_async
def _job_state(store: Store, job_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The job's stored events and, once it has finished, its status (None while it runs).

    A wait lasts up to a turn's bound: the connection is closed after each read, so waiting
    owners hold no database session between reads (twenty waiting turns held twenty).
    """
    own = not connection.in_atomic_block  # else a test's (or caller's) transaction: left alone
    if own:  # a connection broken by a database restart is replaced
        close_old_connections()
    try:
        with use_store(store):
            job = TurnJob.objects.filter(store=store, pk=job_id).first()
    finally:
        if own:
            connection.close()
    if job is None:
        return [], {"job": job_id, "status": TurnJob.Status.FAILED, "result": None,
                    "error": {"code": "turn_failed", "message": failed_message()}}
    return list(job.events or []), (turn_status(job) if job.finished else None)


def _ending(status: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of a job that finished without recording them (failed by the reaper)."""
    error = status.get("error") or {}
    return [{"type": "error", "code": error.get("code", "turn_failed"), "message": error.get("message", failed_message())},
            {"type": "done", "result": status.get("result")}]


async def turn_events(
    *, store: Store, job_id: str, notify: str | None, timeout: float,
) -> AsyncIterator[dict[str, Any]]:
    """Yield the job's events in order up to and including ``done``; stop quietly at ``timeout``."""
    from channels.layers import get_channel_layer

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    layer = get_channel_layer() if notify and push_reaches_web() else None
    pushed: dict[int, dict[str, Any]] = {}
    sent = 0
    while (remaining := deadline - loop.time()) > 0:
        got_push = False
        if layer is not None:
            try:
                message = await asyncio.wait_for(layer.receive(notify), timeout=min(remaining, CHECK_S))
                pushed[int(message["seq"])] = message["event"]
                got_push = True
            except TimeoutError:
                pass
            except Exception as exc:  # noqa: BLE001 - Redis went away: read the job from here on
                logger.warning("Turn events: channel layer failed (%s); reading the job instead", exc)
                layer = None
        else:
            await asyncio.sleep(min(remaining, POLL_S))
        while sent in pushed:
            event = pushed.pop(sent)
            sent += 1
            yield event
            if event.get("type") == "done":
                return
        if got_push and not pushed:
            continue  # in order, nothing missing: no need to read the job
        events, finished = await _job_state(store, job_id)
        tail = events[sent:]
        if finished and not (events and events[-1].get("type") == "done"):
            tail += _ending(finished)
        for event in tail:
            sent += 1
            yield event
            if event.get("type") == "done":
                return
        pushed = {seq: event for seq, event in pushed.items() if seq >= sent}


async def turn_wait(*, store: Store, job_id: str, notify: str | None, timeout: float) -> dict[str, Any] | None:
    """The finished job's status (``worker.turns.turn_status``), or None if it did not finish in time."""
    async for event in turn_events(store=store, job_id=job_id, notify=notify, timeout=timeout):
        if event.get("type") == "done":
            _, status = await _job_state(store, job_id)
            return status
    return None
