"""The one way a tool runs, for every channel: MCP clients, the assistant and the dashboard.

``execute_tool`` takes a tool name and raw arguments for a store and a ``Caller`` and, in order:
counts the call against the caller's rate limit, finds the tool, validates the arguments with
``jsonschema``, applies the credential-scope policy and then the caller's own ``Policy``,
replays a side-effecting call whose idempotency key was already used, runs the handler inside
the store's context and one transaction under the tool's time budget, and appends one audit
record with every SQL statement the call ran. It never raises for a bad call: every outcome is
a ``ToolResult``, and a failure's message is a sentence naming what to fix.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.models import Record
from audit.services import sql_capture, tool_call_record
from ledger.errors import LedgerError
from mcp_gateway.models import IdempotencyKey
from mcp_gateway.policy import CREDENTIAL_SCOPES, Caller, Policy, ToolCall
from mcp_gateway.registry import REGISTRY, Idempotency, ToolSpec
from mcp_gateway.tools import HANDLERS
from mcp_gateway.validation import validation_message
from tenants.context import use_store
from tenants.models import Store

logger = logging.getLogger(__name__)

Outcome = Record.Outcome
MAX_KEY_LENGTH = 128
_RATE_WINDOW_S = 60


@dataclass(frozen=True)
class ToolResult:
    """What a tool call came to.

    Attributes:
        tool: the tool name as called.
        outcome: an ``audit.models.Record.Outcome`` value (ok, invalid, denied, refused, error...).
        data: the result as JSON-ready data; for a failure ``{"error": code, "message": ...}``.
        message: for a failure, the sentence to show the model or person; for success, an
            optional note (also in ``data["note"]`` when the tool wrote one).
        record_id: the audit record of this call.
        replayed: the result is the stored first result of an earlier call with the same key.
    """

    tool: str
    outcome: str
    data: dict[str, Any]
    message: str = ""
    record_id: int | None = None
    replayed: bool = False
    sql_count: int = field(default=0, compare=False)

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.REPLAYED)

    def as_model_text(self) -> str:
        """The result for a model's context: a delimited data block, or the error sentence.

        Everything inside the block is JSON with ``<`` and ``>`` escaped, so text stored in the
        books (a product name, a note) can neither close the block nor look like a tool call.
        """
        if not self.ok:
            return self.message
        body = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        body = body.replace("<", "\\u003c").replace(">", "\\u003e")
        return f'<tool_result name="{self.tool}">\n{body}\n</tool_result>'


class _Stop(Exception):
    """Ends a call early with an outcome, an error code and the sentence to show."""

    def __init__(self, outcome: str, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.outcome, self.code, self.message, self.details = outcome, code, message, details


@dataclass
class _Attempt:
    """How far a call got: its outcome and data, and its audit record once written."""

    outcome: str
    data: dict[str, Any]
    message: str = ""
    replay_of: int | None = None
    record: Record | None = None


class _Recorder:
    """Writes the call's one audit record, with the SQL statements captured up to that moment."""

    def __init__(
        self, *, name: Any, arguments: Any, store: Store, caller: Caller, key: str, statements: list, started: float
    ) -> None:
        self.name, self.arguments, self.store, self.caller, self.key = name, arguments, store, caller, key
        self.statements, self.started = statements, started

    def write(self, attempt: _Attempt) -> Record:
        # The statements so far are the call's; the audit's own inserts come after and are not.
        statements = list(self.statements)
        data: dict[str, Any] = {"sql_count": len(statements)}
        if attempt.replay_of is not None:
            data["replay_of"] = attempt.replay_of
        return tool_call_record(
            store=self.store,
            channel=self.caller.channel,
            actor=self.caller.actor,
            name=str(self.name),
            arguments=self.arguments,
            result=attempt.data,
            outcome=attempt.outcome,
            error="" if attempt.outcome in (Outcome.OK, Outcome.REPLAYED) else attempt.message,
            duration_ms=(time.perf_counter() - self.started) * 1000,
            statements=statements,
            credential=self.caller.credential,
            conversation=self.caller.conversation,
            mode=self.caller.mode,
            turn_id=self.caller.turn_id,
            idempotency_key=self.key if isinstance(self.key, str) else "",
            data=data,
        )


def execute_tool(
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    store: Store,
    caller: Caller,
    policy: Policy | None = None,
    idempotency_key: str = "",
    refusal: str = "",
) -> ToolResult:
    """Run one tool call for ``store`` as ``caller`` and audit it; never raises for a bad call.

    ``policy`` is an extra rule applied after the credential-scope policy (the assistant's
    intent rules); MCP clients pass none. ``idempotency_key`` makes a side-effecting call safe to
    retry: a repeat with the same key and arguments returns the first result and changes nothing
    (reads ignore it). ``refusal``: the caller's own layer already refused the call (the assistant's
    arguments layer): it is recorded as refused with that sentence, before schema checks, and nothing
    runs. Must be called from synchronous code (the MCP server uses a worker thread).
    """
    started = time.perf_counter()
    raw_arguments: Any = {} if arguments is None else arguments
    with use_store(store), sql_capture() as statements:
        recorder = _Recorder(
            name=name, arguments=raw_arguments, store=store, caller=caller, key=idempotency_key,
            statements=statements, started=started,
        )
        if refusal:
            attempt = _Attempt(Outcome.REFUSED, {"error": "refused", "message": refusal}, refusal)
        else:
            attempt = _attempt(name, raw_arguments, store=store, caller=caller, policy=policy, key=idempotency_key,
                               recorder=recorder)
        if attempt.record is None:
            # Refused, failed, rolled back or replayed: recorded on its own.
            attempt.record = recorder.write(attempt)
    return ToolResult(
        tool=str(name),
        outcome=attempt.outcome,
        data=attempt.data,
        message=attempt.message,
        record_id=attempt.record.pk,
        replayed=attempt.outcome == Outcome.REPLAYED,
        sql_count=attempt.record.data.get("sql_count", 0),
    )


def _attempt(
    name: Any, arguments: Any, *, store: Store, caller: Caller, policy: Policy | None, key: str, recorder: _Recorder
) -> _Attempt:
    """Every step of a call up to its result; failures become an outcome and a sentence."""
    try:
        if caller.credential is not None and caller.credential.store_id != store.pk:
            raise _Stop(Outcome.DENIED, "denied", _("This credential does not belong to this store."))
        _rate_limit(caller, store)
        spec = REGISTRY.get(name) if isinstance(name, str) else None
        if spec is None:
            raise _Stop(
                Outcome.INVALID,
                "unknown_tool",
                _("There is no tool called '%(name)s'. The tools are: %(tools)s.")
                % {"name": str(name)[:80], "tools": ", ".join(REGISTRY)},
            )
        problem = validation_message(spec.input_schema, arguments)
        if problem is not None:
            raise _Stop(Outcome.INVALID, "invalid_arguments", problem)
        call = ToolCall(spec=spec, arguments=_frozen_copy(arguments), store=store, caller=caller)
        refusal = CREDENTIAL_SCOPES.check(call)
        if refusal is not None:
            raise _Stop(Outcome.DENIED, "denied", refusal.reason)
        refusal = policy.check(call) if policy is not None else None
        if refusal is not None:
            raise _Stop(Outcome.REFUSED, "refused", refusal.reason)
        keyed = spec.idempotency == Idempotency.KEY and bool(key)
        if keyed:
            _check_key(key)
        return _run(call, key if keyed else "", recorder)
    except _Stop as stop:
        return _Attempt(stop.outcome, {"error": stop.code, "message": stop.message, **stop.details}, stop.message)
    except Exception:
        logger.exception("Tool %r failed unexpectedly", name)
        message = _("Something went wrong on our side and nothing was changed. Please try again.")
        return _Attempt(Outcome.ERROR, {"error": "server_error", "message": message}, message)


def _frozen_copy(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    # A deep copy through JSON: the handler and the policy see the validated values, and nothing
    # they do can change what the audit records as the caller's arguments.
    return json.loads(json.dumps(dict(arguments)))


def _rate_limit(caller: Caller, store: Store) -> None:
    """At most ``TOKEN_RATE_LIMIT_PER_MINUTE`` calls per caller (per credential for MCP clients) in a
    one-minute window that opens with the caller's first call, counted in Django's cache.

    Raises:
        _Stop: the caller is over the limit in this window.
    """
    limit = settings.TOKEN_RATE_LIMIT_PER_MINUTE
    cache_key = f"mcp-gateway:rate:{store.pk}:{caller.rate_key}"
    if cache.add(cache_key, 1, timeout=_RATE_WINDOW_S):
        return
    try:
        count = cache.incr(cache_key)
    except ValueError:  # the window closed between add and incr
        cache.add(cache_key, 1, timeout=_RATE_WINDOW_S)
        return
    if count > limit:
        raise _Stop(
            Outcome.RATE_LIMITED,
            "rate_limited",
            _("Too many tool calls: this credential may make %(limit)s a minute. Wait a moment, then try again.")
            % {"limit": limit},
        )


def _check_key(key: str) -> None:
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not key.isprintable() or not key.strip():
        raise _Stop(
            Outcome.INVALID,
            "invalid_idempotency_key",
            _("The idempotency key must be 1 to %(max)s printable characters.") % {"max": MAX_KEY_LENGTH},
        )


def _fingerprint(call: ToolCall) -> str:
    canonical = json.dumps({"tool": call.spec.name, "arguments": call.arguments}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _run(call: ToolCall, key: str, recorder: _Recorder) -> _Attempt:
    """Run the handler in one transaction within the tool's time budget, and commit its audit
    record in that same transaction; any failure rolls the call back (its record is then
    written by the caller)."""
    spec = call.spec
    fingerprint = _fingerprint(call) if key else ""
    if key:
        replay = _replay(call, key, fingerprint)
        if replay is not None:
            return replay
    deadline = time.perf_counter() + spec.timeout_s
    # Only when this call owns the transaction: a transaction-local setting would outlive the call
    # inside a caller's own transaction.
    db_budget = connection.vendor == "postgresql" and not connection.in_atomic_block
    try:
        with transaction.atomic():
            if db_budget:
                # The database enforces the budget too: a statement running past it is cancelled.
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, true)", [f"{max(1, int(spec.timeout_s * 1000))}ms"]
                    )
            key_row = None
            if key:
                key_row = IdempotencyKey.objects.create(
                    store=call.store, credential=call.caller.credential_key, key=key, tool=spec.name,
                    fingerprint=fingerprint, expires_at=timezone.now() + _key_ttl(),
                )
            data = HANDLERS[spec.name](call)
            # A late finish is rolled back, unless the effect already left the system (an email
            # was sent): then reporting it undone would be a lie.
            if time.perf_counter() > deadline and not spec.annotations.open_world_hint:
                raise _Stop(Outcome.TIMEOUT, "timeout", _timeout_message(spec))
            attempt = _Attempt(Outcome.OK, data, str(data.get("note", "")))
            # The effect and its audit record commit together, or not at all.
            attempt.record = recorder.write(attempt)
            if key_row is not None:
                IdempotencyKey.objects.filter(pk=key_row.pk).update(
                    result=data, message=attempt.message, record=attempt.record
                )
    except IntegrityError:
        if not key:
            raise
        # Another call with this key committed first (it held the unique index): answer with its result.
        replay = _replay(call, key, fingerprint)
        if replay is None:
            raise
        return replay
    except LedgerError as error:
        details = {k: v for k, v in error.details.items() if k not in ("error", "message")}
        raise _Stop(Outcome.ERROR, error.code, error.message, **details) from None
    except DatabaseError as error:
        if time.perf_counter() > deadline or "statement timeout" in str(error).lower():
            raise _Stop(Outcome.TIMEOUT, "timeout", _timeout_message(spec)) from None
        raise
    return attempt


def _key_ttl() -> timedelta:
    return timedelta(hours=settings.IDEMPOTENCY_KEY_TTL_HOURS)


def idempotency_keys_purge() -> int:
    """Delete every store's expired idempotency keys (maintenance, across stores); returns how many."""
    from tenants import rls

    with rls.bypass():
        now = timezone.now()
        expired = Q(expires_at__lte=now) | Q(expires_at__isnull=True, created_at__lte=now - _key_ttl())
        deleted, _ = IdempotencyKey.objects.filter(expired).delete()
    return deleted


def _timeout_message(spec: ToolSpec) -> str:
    return _("%(tool)s took longer than %(seconds)s seconds and was stopped; nothing was changed. Try again.") % {
        "tool": spec.name,
        "seconds": f"{spec.timeout_s:g}",
    }


def _replay(call: ToolCall, key: str, fingerprint: str) -> _Attempt | None:
    """The stored first result for this key, or None when the key is new.

    Raises:
        _Stop: the key was used for a different call.
    """
    row = IdempotencyKey.objects.filter(store=call.store, credential=call.caller.credential_key, key=key).first()
    if row is None:
        return None
    if (row.expires_at or row.created_at + _key_ttl()) <= timezone.now():
        # An expired key is a new key: forget the old result, run the call again.
        IdempotencyKey.objects.filter(pk=row.pk).delete()
        return None
    if row.fingerprint != fingerprint:
        raise _Stop(
            Outcome.INVALID,
            "idempotency_key_reused",
            _("This idempotency key was already used for a different call; use a new key for a new call."),
        )
    return _Attempt(Outcome.REPLAYED, dict(row.result), row.message, replay_of=row.record_id)
