"""The typed payload of each ``EventKind``, and the fold that reads a turn's answer from its events.

Each payload is frozen and says one thing that happened. ``data()`` is its public wire form (what
the websocket sends and clients read: keep it stable); fields it leaves out are the record's, for
the answer (``fold``) and the audit (``assistant.turn_record``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from assistant.types import Event, EventKind, GuardCheck, GuardVerdict, Outcome, ToolCallView

if TYPE_CHECKING:
    from assistant.media.library import MediaItem


class Payload(Protocol):
    KIND: ClassVar[EventKind]

    def data(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Heard:
    """The words the turn reads: as said, as normalised, and what the hearing added (speech only)."""

    KIND: ClassVar[EventKind] = EventKind.TRANSCRIPT
    text: str
    normalized: str
    speech: Mapping[str, Any] = field(default_factory=dict)  # source, confidence, doubt... (speech.transcribe)

    def data(self) -> dict[str, Any]:
        return {"text": self.text, "normalized": self.normalized, **self.speech}


@dataclass(frozen=True)
class GuardChecked:
    """A guard's verdict on the request, a reply, or data a model would read.

    Attributes:
        check: which check (the key in the answer's ``guard``).
        verdict: the verdict; None for a store-facts replacement, which has none.
        source: the data guard's: where the text came from (``catalog``, ``tool:get_inventory``).
        claims: the store facts a model-written reply stated unsupported (it was replaced).
        judged: the reply judged (output, store facts), for the audit; not sent.
    """

    KIND: ClassVar[EventKind] = EventKind.GUARD
    check: GuardCheck
    verdict: GuardVerdict | None = None
    source: str = ""
    claims: tuple[str, ...] = ()
    judged: str = ""

    @property
    def stage(self) -> str:
        return self.source if self.check == GuardCheck.DATA else str(self.check)

    def answer(self) -> dict[str, Any]:
        """This check's entry in the answer's ``guard``."""
        if self.verdict is None:
            return {"verdict": "replaced", "claims": list(self.claims)}
        if self.check == GuardCheck.DATA:
            return {"stage": self.stage, **self.verdict.as_dict()}
        return self.verdict.as_dict()

    def data(self) -> dict[str, Any]:
        return {"stage": self.stage, **self.answer()}


@dataclass(frozen=True)
class ActionChosen:
    """The router's decision: the action and the owner's words for it, and who decided (``route``)."""

    KIND: ClassVar[EventKind] = EventKind.ACTION
    action: str
    item: str | None = None
    ask: str | None = None
    topic: str | None = None
    kind: str | None = None
    route: Mapping[str, Any] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        return {"action": self.action, "item": self.item, "ask": self.ask, "topic": self.topic, "kind": self.kind,
                **self.route}


@dataclass(frozen=True)
class ToolsShortlisted:
    """The hardened native mode's start: the tools its first step may call."""

    KIND: ClassVar[EventKind] = EventKind.ACTION
    shortlist: tuple[str, ...]
    variant: str = "hardened"

    def data(self) -> dict[str, Any]:
        return {"variant": self.variant, "shortlist": list(self.shortlist)}


@dataclass(frozen=True)
class ToolCalled:
    """One tool call and its result; ``repairs`` names what the arguments layer filled in."""

    KIND: ClassVar[EventKind] = EventKind.TOOL_CALL
    call: ToolCallView
    outcome: str
    ms: float = 0.0
    repairs: tuple[str, ...] = ()

    def data(self) -> dict[str, Any]:
        return {**self.call.as_dict(), "outcome": self.outcome, "ms": round(self.ms, 1),
                **({"repairs": list(self.repairs)} if self.repairs else {})}


@dataclass(frozen=True)
class Replied:
    """What the turn said and decided; only the sentence and its outcome are sent as the event.

    Attributes:
        action: the action the turn took (None when none ran: blocked, failed).
        offered_draft_id: the draft this turn put on offer (a fresh yes next turn places it).
        pending_draft: the draft waiting for approval after the turn, as the answer shows it.
    """

    KIND: ClassVar[EventKind] = EventKind.REPLY
    text: str
    outcome: Outcome
    action: str | None = None
    offered_draft_id: int | None = None
    pending_draft: dict[str, Any] | None = None

    def data(self) -> dict[str, Any]:
        return {"text": self.text, "outcome": str(self.outcome)}


@dataclass(frozen=True)
class MediaShown:
    """A photo, film or audio guide the client shows or plays after the reply."""

    KIND: ClassVar[EventKind] = EventKind.MEDIA
    item: MediaItem

    def data(self) -> dict[str, Any]:
        return self.item.as_dict()


@dataclass(frozen=True)
class Failed:
    """A stage failed: the owner hears ``message``; the audit keeps what failed (never sent)."""

    KIND: ClassVar[EventKind] = EventKind.ERROR
    message: str
    error_type: str = ""
    detail: str = ""

    def data(self) -> dict[str, Any]:
        return {"message": self.message}


@dataclass(frozen=True)
class Done:
    """The turn is over: its latency and the milliseconds of each stage."""

    KIND: ClassVar[EventKind] = EventKind.DONE
    latency_ms: float
    stages: Mapping[str, float] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        return {"latency_ms": round(self.latency_ms, 1), "stages": dict(self.stages)}


def fold(events: Iterable[Event], *, normalized: str) -> dict[str, Any]:
    """The answer's fields that the events tell, in order (``TurnResult.from_events`` adds the identity).

    Each tool call was its own transaction, so a turn that failed or that the data guard stopped
    lists the calls made before the stop: those that succeeded stayed.
    """
    guard: dict[str, Any] = {GuardCheck.INPUT.value: None, GuardCheck.OUTPUT.value: None}
    tool_calls: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    replied: Replied | None = None
    stages: dict[str, float] = {}
    for event in events:
        payload = event.payload
        if isinstance(payload, Heard):
            normalized = payload.normalized
        elif isinstance(payload, GuardChecked):
            guard[str(payload.check)] = payload.answer()
        elif isinstance(payload, ToolCalled):
            tool_calls.append(payload.call.as_dict())
        elif isinstance(payload, Replied):
            replied = payload
        elif isinstance(payload, MediaShown):
            media.append(payload.item.as_dict())
        elif isinstance(payload, Done):
            stages = dict(payload.stages)
    said = replied or Replied(text="", outcome=Outcome.ERROR)
    return {
        "normalized": normalized, "guard": guard, "action": said.action, "tool_calls": tuple(tool_calls),
        "reply": said.text, "media": tuple(media), "pending_draft": said.pending_draft,
        "offered_draft_id": said.offered_draft_id, "outcome": str(said.outcome), "stages": stages,
    }
