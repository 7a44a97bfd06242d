"""A turn, end to end: normalise → input guard → code-handled phrases → mode → policy → reply
→ output guard → media → audit (DESIGN.md, "A turn, end to end").

``run_turn`` is the one entry point for the REST API, the websocket, Alexa, the ``turn``
command and the benchmark. It emits typed events as it goes and returns the public answer; a
failure in any stage becomes an error event and a short reply, never a stack trace, and a mode
that fails midway leaves the ledger as it was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import transaction

from alerts.delivery import spoken_preface
from assistant import heard, model_log, phrases, replies, sentences
from assistant.catalogs import catalog_data_check, catalog_for
from assistant.conversations import conversation_for
from assistant.events import Done, Failed, GuardChecked, Heard, MediaShown, Payload, Replied, ToolCalled
from assistant.guard import UNAVAILABLE
from assistant.guard.data import DataBlocked
from assistant.guard.store_facts import reply_supported, store_fact_claims
from assistant.lexicon import lexicon_for
from assistant.modes.base import ModeOutcome, TurnContext, TurnMode, stopped_reply
from assistant.modes.router.prompt import router_pack
from assistant.normalize import normalize
from assistant.policy import OwnerWords, OwnerWordsPolicy
from assistant.sentences import say
from assistant.turn_record import event_audit
from assistant.types import Event, GuardCheck, Mode, Outcome, Stage, TurnIdentity, TurnInput, TurnResult
from audit.models import Record, Turn
from audit.turns import event_record, model_call_record, turn_finish, turn_start
from ledger import selectors
from ledger.errors import LedgerError
from ledger.services import draft_decline
from mcp_gateway.policy import Caller
from packs.source import store_pack_key
from tenants.context import use_store
from tenants.models import Store
from tenants.permissions import may_confirm_orders

logger = logging.getLogger(__name__)

MAX_TEXT = 500
TURN_FAILED = sentences.TURN_FAILED
ASSISTANT_SCOPES = frozenset({"mcp"})
# Only code, on the owner's fresh yes, confirms a draft: this grant never reaches a model's calls.
CONFIRM_SCOPES = frozenset({"mcp", "orders:confirm"})


def _mode(name: str) -> TurnMode:
    if name == Mode.ROUTER:
        from assistant.modes.router.mode import RouterMode

        return RouterMode()
    if name == Mode.NATIVE:
        from assistant.modes.native import NativeMode

        return NativeMode()
    if name == Mode.SMALL:
        from assistant.modes.small import SmallMode

        return SmallMode()
    raise ValueError(f"Unknown mode {name!r}.")


class _Turn:
    """The running turn: its clock, its events (the record: the answer and the audit are read from
    them) and its stage timings."""

    def __init__(self, on_event: Callable[[Event], None] | None) -> None:
        self.started = time.perf_counter()
        self.events: list[Event] = []
        self.stages: dict[str, float] = {}
        self.on_event = on_event
        self.audit_turn: Turn | None = None  # once the turn's row is open, each event leaves its audit record

    def emit(self, payload: Payload) -> None:
        event = Event(payload=payload, at_ms=(time.perf_counter() - self.started) * 1000)
        self.events.append(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a listener (a closed websocket) must not break the turn
                logger.exception("Turn event listener failed")
        if self.audit_turn is not None:
            event_audit(self.audit_turn, event)

    @contextmanager
    def stage(self, stage: Stage) -> Iterator[None]:
        began = time.perf_counter()
        try:
            yield
        finally:
            self.stages[str(stage)] = round(self.stages.get(str(stage), 0.0) + (time.perf_counter() - began) * 1000, 1)

    @property
    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def run_turn(*, store: Store, turn: TurnInput, on_event: Callable[[Event], None] | None = None) -> TurnResult:
    """Run one owner request for ``store`` and return the public answer (see ``TurnResult``)."""
    clock = _Turn(on_event)
    text = " ".join(turn.text.split())[:MAX_TEXT]
    mode_name = str(turn.mode)
    with use_store(store), transaction.atomic():
        conversation = conversation_for(store=store, key=turn.conversation, mode=mode_name)
        index = conversation.turns + 1
        if conversation.pending_hearing:  # a yes to "Did you mean atta?" runs the words it offered
            text = heard.pending_words(conversation, text, lexicon_for(store_pack_key(store)))
            conversation.save(update_fields=["pending_hearing", "hearing_offered_turn"])
        audit_turn = turn_start(
            store=store, conversation=conversation.key, index=index, mode=mode_name, channel=turn.channel,
            actor=turn.actor, text=text,
        )
    clock.audit_turn = audit_turn
    identity = TurnIdentity(conversation=conversation.key, turn=index, mode=mode_name, transcript=text)
    outcome: ModeOutcome | None = None
    # No transaction is open from here on: the guard and the models think outside any, and each
    # write is its own short transaction (a tool call commits with its audit record and re-checks
    # what it read: an expected count, a draft still pending). A failure keeps what committed before it.
    with use_store(store), model_log.collect(on_record=lambda exchange: model_call_record(turn=audit_turn, exchange=exchange)):
        try:
            outcome = _run(store, turn, text=text, conversation=conversation, audit_turn=audit_turn, clock=clock)
            _remember(conversation, index, outcome, offered=heard.offered_words(turn.transcript, outcome))
        except DataBlocked as exc:  # fail closed: the model never reads the data, the owner told what to check
            clock.emit(GuardChecked(check=GuardCheck.DATA, verdict=exc.verdict, source=exc.source))
            reply = _stopped_reply(clock, sentences.DATA_BLOCKED, sentences.DATA_BLOCKED_AFTER_CHANGES)
            outcome = ModeOutcome(action=None, reply=reply, outcome=Outcome.BLOCKED)
        except Exception as exc:  # any stage: an error event and a short reply that says what stands
            logger.exception("Turn %s/%s failed", conversation.key, index)
            failed = _stopped_reply(clock, sentences.TURN_FAILED, sentences.TURN_FAILED_AFTER_CHANGES)
            clock.emit(Failed(message=failed, error_type=type(exc).__name__, detail=str(exc)))
            outcome = ModeOutcome(action=None, reply=failed, outcome=Outcome.ERROR)
        # Open alerts first (alerts.delivery), unless the answer is the alerts themselves ("any alerts?").
        if index == 1 and outcome.action != "alerts" and outcome.outcome not in (Outcome.ERROR, Outcome.BLOCKED):
            outcome.reply = spoken_preface(store=store, actor=turn.actor, channel=turn.channel, reply=outcome.reply)
        clock.emit(Replied(text=outcome.reply, outcome=outcome.outcome, action=outcome.action,
                           offered_draft_id=outcome.offered_draft_id,
                           pending_draft=_pending_draft(store, conversation.key)))
        for item in outcome.media:
            clock.emit(MediaShown(item))
        return _finish(clock, identity, audit_turn)


def _stopped_reply(clock: _Turn, nothing_changed: str, after_changes: str) -> str:
    calls = [event.payload.call for event in clock.events if isinstance(event.payload, ToolCalled)]
    return stopped_reply(calls, nothing_changed, after_changes)


def _finish(clock: _Turn, identity: TurnIdentity, audit_turn: Turn) -> TurnResult:
    """Close the turn's audit row with the answer its events tell, then say it is done."""
    with clock.stage(Stage.AUDIT):
        latency_ms = clock.elapsed_ms
        answer = TurnResult.from_events(identity, clock.events, latency_ms=latency_ms)
        turn_finish(
            turn=audit_turn, normalized=answer.normalized, action=answer.action, reply=answer.reply,
            outcome=answer.outcome, latency_ms=latency_ms, stages=dict(clock.stages), result=answer.as_dict(),
        )
    clock.emit(Done(latency_ms=latency_ms, stages=dict(clock.stages)))
    return TurnResult.from_events(identity, clock.events, latency_ms=latency_ms)


def _run(store: Store, turn: TurnInput, *, text: str, conversation, audit_turn, clock: _Turn) -> ModeOutcome:
    """The turn's stages, outside any transaction: normalise, guard, code phrases or the mode, output guard.

    Every step it takes is an event on ``clock``; the caller says the reply and closes the turn.
    """
    from assistant.guard import get_guard  # loaded on the first turn, not at import

    with clock.stage(Stage.NORMALIZE):
        lexicon = lexicon_for(store_pack_key(store))
        words = normalize(text, lexicon)
        clock.emit(Heard(text=text, normalized=words.text, speech=turn.transcript or {}))

    catalog = catalog_for(store=store, lexicon=lexicon)
    with clock.stage(Stage.INPUT_GUARD):
        verdict = get_guard().check_input(words.text, business_type=store_pack_key(store),
                                          catalog_names=catalog.guard_names)
        clock.emit(GuardChecked(check=GuardCheck.INPUT, verdict=verdict))
        if not verdict.safe:
            unavailable = verdict.category == UNAVAILABLE
            refusal = (sentences.GUARD_UNAVAILABLE if unavailable else
                       sentences.SELF_HARM_REFUSAL if verdict.category == "self_harm" else sentences.REFUSAL)
            return ModeOutcome(action=None, reply=say(refusal), outcome=Outcome.BLOCKED)

    with clock.stage(Stage.INPUT_GUARD):  # every mode's prompt reads the catalog
        catalog_data_check(store=store, catalog=catalog)
    draft_fresh = bool(conversation.pending_draft_id) and conversation.draft_offered_turn == conversation.turns
    owner_words = OwnerWords(text=words.text, numbers=words.numbers, draft_just_offered=draft_fresh)
    ctx = TurnContext(
        store=store, state=conversation, words=words, catalog=catalog, lexicon=lexicon, mode=str(turn.mode),
        turn_index=conversation.turns + 1,
        caller=Caller(channel="assistant", actor=f"assistant:{turn.mode}", scopes=ASSISTANT_SCOPES,
                      conversation=conversation.key, mode=str(turn.mode), turn_id=audit_turn.pk,
                      speaker=turn.actor, speaker_channel=str(turn.channel)),
        policy=OwnerWordsPolicy(owner_words), emit=clock.emit,
    )

    with clock.stage(Stage.CODE_PHRASES):
        handled = _code_phrases(ctx, draft_fresh, turn=turn, audit_turn=audit_turn)
    handled = handled or heard.ask_number(turn.transcript)
    if handled is not None:
        outcome = handled
    else:
        with clock.stage(Stage.MODE):
            outcome = _mode(str(turn.mode)).handle(ctx)
    if turn.transcript:  # heard words that only sound like a product: asked, not "we don't carry"
        named = bool(ctx.ground().products)
        outcome = heard.ask_product(turn.transcript, outcome, named_product=named,
                                    tool_calls=ctx.tool_calls) or outcome
    if outcome.route:  # who decided the router's action: the fast-path matcher or the model
        event_record(turn=audit_turn, kind=Record.Kind.EVENT, name="route",
                     data={**outcome.route, "action": outcome.action})

    if outcome.model_written:
        with clock.stage(Stage.OUTPUT_GUARD):
            _store_facts_check(ctx, outcome)
            verdict = get_guard().check_output(words.text, outcome.reply, business_type=store_pack_key(ctx.store))
            clock.emit(GuardChecked(check=GuardCheck.OUTPUT, verdict=verdict, judged=outcome.reply))
            if not verdict.safe:
                unavailable = verdict.category == UNAVAILABLE
                outcome.reply = say(sentences.GUARD_UNAVAILABLE if unavailable else sentences.OUTPUT_BLOCKED)
    return outcome


def _store_facts_check(ctx: TurnContext, outcome: ModeOutcome) -> None:
    """A model-written reply states store facts only after a ledger tool answered this turn."""
    answered = [view.tool for view in ctx.tool_calls if view.ok]
    if reply_supported(outcome.reply, answered):
        return
    claims = tuple(store_fact_claims(outcome.reply))
    ctx.emit(GuardChecked(check=GuardCheck.STORE_FACTS, claims=claims, judged=outcome.reply))
    outcome.reply = say(sentences.STORE_FACTS_NEUTRAL)


def _code_phrases(ctx: TurnContext, draft_fresh: bool, *, turn: TurnInput, audit_turn) -> ModeOutcome | None:
    """The launch phrase, and a yes or no to the draft on offer: no model involved."""
    if phrases.is_launch(ctx.words.text):
        pack = router_pack(store_pack_key(ctx.store))
        reply = pack.launch_reply.format(owner=ctx.store.owner_name or "there", store=ctx.store.name)
        return ModeOutcome(action="launch", reply=reply)
    names_products = bool(ctx.ground().products)
    answer = phrases.yes_or_no(ctx.words.text, names_products=names_products)
    if answer == phrases.Reply.OTHER:
        return None
    draft_id = ctx.state.pending_draft_id
    pending = selectors.draft_pending(store=ctx.store) if draft_id else None
    if answer == phrases.Reply.UNSURE:
        if pending is None or pending.pk != draft_id or not draft_fresh:
            return None  # not an answer to a live offer: the mode reads it
        # Hedged, conditional or long: nothing is placed; the offer stands for the next answer.
        return ModeOutcome(action="confirm", reply=say(sentences.ASK_AGAIN), offered_draft_id=draft_id)
    if pending is None or pending.pk != draft_id:
        if answer == phrases.Reply.YES:
            return ModeOutcome(action="confirm", reply=say(sentences.NO_ORDER_WAITING))
        return ModeOutcome(action="decline", reply=say(sentences.NO_PROBLEM))
    if answer == phrases.Reply.NO:
        try:
            draft_decline(store=ctx.store, draft_id=draft_id, actor=ctx.caller.actor)
        except LedgerError as exc:
            event_record(turn=audit_turn, kind=Record.Kind.EVENT, name="draft_decline", data={"draft": draft_id},
                         outcome=Record.Outcome.ERROR, error=exc.message)
            return ModeOutcome(action="decline", reply=exc.message, outcome=Outcome.ERROR)
        event_record(turn=audit_turn, kind=Record.Kind.EVENT, name="draft_decline",
                     data={"draft": draft_id, "actor": ctx.caller.actor})
        return ModeOutcome(action="decline", reply=say(sentences.DRAFT_DROPPED))
    if not draft_fresh:
        return ModeOutcome(action="confirm", reply=say(sentences.DRAFT_IN_APPROVALS))
    if not may_confirm_orders(store=ctx.store, actor=turn.actor, channel=turn.channel):
        # Staff (or a credential without orders:confirm) said yes: refused in a sentence, and audited.
        event_record(turn=audit_turn, kind=Record.Kind.EVENT, name="confirm_refused",
                     data={"draft": draft_id, "actor": turn.actor}, outcome=Record.Outcome.DENIED,
                     error="Only the store's owner can place orders.")
        return ModeOutcome(action="confirm", outcome=Outcome.REFUSED, reply=say(sentences.OWNER_ONLY_CONFIRMS))
    confirm_caller = Caller(channel="assistant", actor=ctx.caller.actor.replace("assistant:", "owner-yes:"),
                            scopes=CONFIRM_SCOPES, conversation=ctx.caller.conversation, mode=ctx.caller.mode,
                            turn_id=ctx.caller.turn_id, speaker=ctx.caller.speaker,
                            speaker_channel=ctx.caller.speaker_channel)
    result = ctx.call_tool("place_reorder", {"confirmed": True, "draftId": draft_id}, caller=confirm_caller,
                           policy=None, idempotency_key=f"confirm-{draft_id}")
    if not result.ok or not result.data.get("confirmed"):
        reason = result.message or say(sentences.DRAFT_GONE)
        return ModeOutcome(action="confirm", reply=say(sentences.COULD_NOT_PLACE, reason=reason), outcome=Outcome.ERROR)
    return ModeOutcome(action="confirm", reply=replies.order_placed(result.data))


def _remember(conversation, index: int, outcome: ModeOutcome, *, offered: str = "") -> None:
    conversation.turns = index
    if offered:
        conversation.pending_hearing, conversation.hearing_offered_turn = offered, index
    if outcome.action and outcome.action not in ("confirm", "decline", "launch", heard.ACTION):
        conversation.last_action = outcome.action
    if outcome.last_product:
        conversation.last_product = outcome.last_product
    if outcome.topic:
        conversation.last_topic = outcome.topic
    if outcome.guide:
        conversation.played_guides = [*conversation.played_guides, outcome.guide][-20:]
    if outcome.offered_draft_id:
        conversation.pending_draft_id = outcome.offered_draft_id
        conversation.draft_offered_turn = index
    elif outcome.action in ("confirm", "decline") and outcome.outcome == Outcome.ANSWERED:
        conversation.pending_draft_id = None
        conversation.draft_offered_turn = None
    conversation.save()


def _pending_draft(store: Store, conversation: str) -> dict | None:
    draft = selectors.draft_pending(store=store)
    if draft is None:
        return None
    return {
        "id": draft.pk,
        "status": draft.status,
        "supplier": draft.supplier,
        "est_total": f"{draft.est_total:.2f}",
        "lines": [{"product": line.product.name, "qty": line.qty, "est_cost": f"{line.est_cost:.2f}"}
                  for line in draft.lines.all()],
        "expires_at": draft.expires_at.isoformat(),
    }
