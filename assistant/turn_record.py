"""The audit rows a turn's events leave, written as each event is emitted.

Guard verdicts and a failed stage are recorded from their events (``event_audit``), so the audit
says what the websocket and the answer say. Tool calls are recorded by the gateway
(``mcp_gateway.execution``, for every caller alike) and model calls by ``assistant.model_log``;
the turn row is opened by ``audit.turns.turn_start`` and closed with the answer.
"""

from __future__ import annotations

from assistant.events import Failed, GuardChecked
from assistant.types import Event, GuardCheck
from audit.models import Record, Turn
from audit.turns import event_record

_GUARD_RECORD = {
    GuardCheck.INPUT: "input_guard",
    GuardCheck.OUTPUT: "output_guard",
    GuardCheck.STORE_FACTS: "store_facts",
    GuardCheck.DATA: "data_guard",
}


def event_audit(turn: Turn, event: Event) -> Record | None:
    """The audit record of one event of ``turn``, if its kind leaves one."""
    payload = event.payload
    if isinstance(payload, GuardChecked):
        return _guard_record(turn, payload)
    if isinstance(payload, Failed):
        return event_record(turn=turn, kind=Record.Kind.EVENT, name="error", data={"error": payload.error_type},
                            outcome=Record.Outcome.ERROR, error=payload.detail[:500])
    return None


def _guard_record(turn: Turn, checked: GuardChecked) -> Record:
    data = checked.answer()
    if checked.check in (GuardCheck.OUTPUT, GuardCheck.STORE_FACTS):  # the reply judged, or the one replaced
        data = {**data, "reply": checked.judged}
    refused = checked.check == GuardCheck.DATA
    return event_record(
        turn=turn, kind=Record.Kind.GUARD, name=_GUARD_RECORD[checked.check], data=data,
        outcome=Record.Outcome.REFUSED if refused else Record.Outcome.OK,
        duration_ms=checked.verdict.duration_ms if checked.verdict is not None else 0.0,
    )
