"""Writing the audit: tool-call records and the SQL statements each call executed.

Records are append-only. ``sql_capture`` collects every statement run on the default database
connection inside its block (with ``connection.execute_wrapper``), so a tool call's record
carries exactly what it did to the database; the audit's own inserts are written after the
block and are not part of it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from audit.models import Record, SqlStatement
from tenants.context import store_context
from tenants.models import Store, StoreToken


@dataclass(frozen=True)
class CapturedStatement:
    sql: str
    duration_ms: float


@contextmanager
def sql_capture() -> Iterator[list[CapturedStatement]]:
    """Collect the statements executed on this thread's default connection inside the block."""
    captured: list[CapturedStatement] = []

    def wrapper(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            captured.append(CapturedStatement(_statement_text(sql, params, many, context), elapsed))

    with connection.execute_wrapper(wrapper):
        yield captured


def _statement_text(sql: str, params: Any, many: bool, context: Mapping[str, Any]) -> str:
    """The statement as the database ran it (parameters filled in), when the backend can say."""
    if many or not params:
        return sql
    try:
        return str(connection.ops.last_executed_query(context["cursor"], sql, params))
    except Exception:  # noqa: BLE001 - the audit never breaks a call; the template is still useful
        return sql


def _json_safe(value: Any) -> Any:
    """JSON round trip: Decimals, dates and other oddities of in-process callers become strings."""
    return json.loads(json.dumps(value, default=str))


def tool_call_record(
    *,
    store: Store,
    channel: str,
    actor: str,
    name: str,
    arguments: Any,
    result: Mapping[str, Any],
    outcome: str,
    duration_ms: float,
    statements: Sequence[CapturedStatement] = (),
    error: str = "",
    credential: StoreToken | None = None,
    conversation: str = "",
    mode: str = "",
    turn_id: int | None = None,
    idempotency_key: str = "",
    data: Mapping[str, Any] | None = None,
) -> Record:
    """Append one tool-call record with its SQL statements, in the order they ran (one commit)."""
    with store_context(store), transaction.atomic():
        record = Record.objects.create(
            store=store,
            turn_id=turn_id,
            conversation=conversation[:64],
            kind=Record.Kind.TOOL_CALL,
            channel=channel,
            mode=mode[:20],
            credential=credential,
            actor=actor[:120],
            name=name[:80],
            arguments=_json_safe(arguments if isinstance(arguments, Mapping) else {"_raw": arguments}),
            result=_json_safe(dict(result)),
            outcome=outcome,
            error=error,
            idempotency_key=idempotency_key[:128],
            duration_ms=round(duration_ms, 3),
            data=_json_safe(dict(data or {})),
        )
        if statements:
            SqlStatement.objects.bulk_create(
                SqlStatement(record=record, seq=seq, sql=statement.sql, duration_ms=round(statement.duration_ms, 3))
                for seq, statement in enumerate(statements, start=1)
            )
        return record


def refusal_record(
    *, store: Store, channel: str, actor: str, name: str, message: str, data: Mapping[str, Any] | None = None
) -> Record:
    """Append the record of a write someone asked for and was refused (a staff member approving an order)."""
    return Record.objects.create(
        store=store, kind=Record.Kind.EVENT, channel=channel, actor=actor[:120], name=name[:80],
        arguments=_json_safe(dict(data or {})), outcome=Record.Outcome.DENIED, error=message,
    )
