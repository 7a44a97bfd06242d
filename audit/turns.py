"""Writing a turn's audit: the turn row, its model calls and guard verdicts, in the order they happen."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, transaction

from audit.models import Record, SqlStatement, Turn
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


@contextmanager
def turn_transaction(turn: Turn) -> Iterator[None]:
    """One transaction for a turn's work whose audit outlives it.

    When the block raises, everything it wrote is rolled back, the ledger's changes and the audit's
    records alike. The turn's records (model calls, tool calls with their SQL, guard verdicts) are
    read just before the rollback and written again after it, marked ``rolled_back``, so the audit
    shows what was tried and that none of it stayed.
    """
    kept: list[tuple[Record, list[SqlStatement]]] = []
    try:
        with transaction.atomic():
            try:
                yield
            except BaseException:
                kept = _records_of(turn)
                raise
    except BaseException:
        _write_again(turn, kept)
        raise


def _records_of(turn: Turn) -> list[tuple[Record, list[SqlStatement]]]:
    try:
        with store_context(turn.store), transaction.atomic():  # a savepoint: a failed read leaves the turn's rollback alone
            records = list(Record.objects.filter(turn=turn).prefetch_related("statements").order_by("created_at", "id"))
            return [(record, list(record.statements.all())) for record in records]
    except DatabaseError:  # the transaction itself broke; only the turn row and its error record survive
        logger.warning("Could not keep the records of turn %s before its rollback", turn.pk, exc_info=True)
        return []


def _write_again(turn: Turn, kept: list[tuple[Record, list[SqlStatement]]]) -> None:
    if not kept:
        return
    try:
        with store_context(turn.store), transaction.atomic():
            for record, statements in kept:
                created_at = record.created_at
                record.pk = None
                record.data = {**record.data, "rolled_back": True}
                record.save(force_insert=True)
                Record.objects.filter(pk=record.pk).update(created_at=created_at)  # auto_now_add set it to now
                for statement in statements:
                    statement.pk = None
                    statement.record = record
                SqlStatement.objects.bulk_create(statements)
    except DatabaseError:  # the audit never breaks the turn's answer
        logger.warning("Could not write again the records of turn %s after its rollback", turn.pk, exc_info=True)
