"""Writing a turn's audit: the turn row, its model calls and guard verdicts, in the order they happen."""

from __future__ import annotations

import json
import logging
from typing import Any

from audit.models import Record, Turn
from tenants.context import store_context
from tenants.models import Store

logger = logging.getLogger(__name__)


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def turn_start(*, store: Store, conversation: str, index: int, mode: str, channel: str, actor: str, text: str) -> Turn:
    """Open the turn's row first, so its tool calls can point at it."""
    with store_context(store):
        return Turn.objects.create(
            store=store, conversation=conversation, index=index, mode=mode, channel=channel, actor=actor,
            text=text[:4000], outcome="running",
        )


def turn_finish(
    *, turn: Turn, normalized: str, action: str | None, reply: str, outcome: str, latency_ms: float,
    stages: dict[str, float], result: dict[str, Any],
) -> Turn:
    turn.normalized = normalized
    turn.action = action or ""
    turn.reply = reply
    turn.outcome = outcome
    turn.latency_ms = latency_ms
    turn.stages = stages
    turn.result = _json_safe(result)
    with store_context(turn.store):
        turn.save(update_fields=["normalized", "action", "reply", "outcome", "latency_ms", "stages", "result"])
    return turn


def model_call_record(*, turn: Turn, exchange: Any) -> Record:
    """One model request and response (prompt, parameters, output, duration, tokens)."""
    with store_context(turn.store):
        return _model_call_create(turn, exchange)


def _model_call_create(turn: Turn, exchange: Any) -> Record:
    return Record.objects.create(
        store_id=turn.store_id, turn=turn, conversation=turn.conversation, kind=Record.Kind.MODEL_CALL,
        channel=turn.channel, mode=turn.mode, actor=turn.actor, name=exchange.role,
        arguments=_json_safe(exchange.request), result=_json_safe(exchange.response), outcome=Record.Outcome.OK,
        duration_ms=exchange.duration_ms,
        data={
            "purpose": exchange.purpose, "backend": exchange.backend, "model": exchange.model,
            "prompt_tokens": exchange.prompt_tokens, "completion_tokens": exchange.completion_tokens,
        },
    )


def event_record(*, turn: Turn, kind: str, name: str, data: dict[str, Any], duration_ms: float = 0.0,
                 outcome: str = Record.Outcome.OK, error: str = "") -> Record:
    """A guard verdict or another step of the turn that is not a tool or model call."""
    with store_context(turn.store):
        return Record.objects.create(
            store_id=turn.store_id, turn=turn, conversation=turn.conversation, kind=kind, channel=turn.channel,
            mode=turn.mode, actor=turn.actor, name=name, result=_json_safe(data), outcome=outcome, error=error,
            duration_ms=duration_ms,
        )
