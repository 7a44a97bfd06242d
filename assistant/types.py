"""The typed vocabulary of a turn: stages, events, inputs and results.

A turn runs as a fixed sequence of ``Stage``s and emits ``Event``s as it goes, each with a typed
payload (``assistant.events``). The events are the turn's record: the REST answer
(``TurnResult.from_events``), the websocket (``Event.as_dict``) and the audit
(``assistant.turn_record``) are all read from them, so what the owner sees, what the API returns
and what the auditor reads cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.events import Payload


class Mode(StrEnum):
    ROUTER = "router"
    NATIVE = "native"
    SMALL = "small"


class Stage(StrEnum):
    NORMALIZE = "normalize"
    INPUT_GUARD = "input_guard"
    CODE_PHRASES = "code_phrases"
    MODE = "mode"
    REPLY = "reply"
    OUTPUT_GUARD = "output_guard"
    MEDIA = "media"
    AUDIT = "audit"


class EventKind(StrEnum):
    TRANSCRIPT = "transcript"
    GUARD = "guard"
    ACTION = "action"
    TOOL_CALL = "tool_call"
    REPLY = "reply"
    MEDIA = "media"
    ERROR = "error"
    DONE = "done"


class GuardCheck(StrEnum):
    """Which check a guard event reports, and its key in the answer's ``guard``."""

    INPUT = "input"
    OUTPUT = "output"
    STORE_FACTS = "store_facts"  # a model-written reply stated store facts no tool had answered
    DATA = "data"  # text a model would read (catalog, tool results) looked like instructions


class Outcome(StrEnum):
    ANSWERED = "answered"
    BLOCKED = "blocked"  # the input guard refused the request
    CLARIFIED = "clarified"  # the assistant asked a clarifying question
    REFUSED = "refused"  # policy refused a write the owner did not ask for
    ERROR = "error"


@dataclass(frozen=True)
class GuardVerdict:
    """The guard's judgement of a request (or of a reply together with its question).

    Attributes:
        safe: whether the content may go on.
        category: the unsafe category, when not safe (weapons, injection, health_claim...).
        layer: which layer decided (injection, classifier, llm, rules).
        score: that layer's confidence that the content is unsafe, 0..1.
    """

    safe: bool
    category: str | None = None
    layer: str = ""
    score: float = 0.0
    duration_ms: float = 0.0

    @property
    def label(self) -> str:
        return "safe" if self.safe else "unsafe"

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.label, "category": self.category, "layer": self.layer, "score": round(self.score, 3)}


@dataclass(frozen=True)
class ToolCallView:
    """A tool call as the turn's answer shows it."""

    tool: str
    arguments: dict[str, Any]
    result: Any
    ok: bool
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.error:
            data.pop("error")
        return data


@dataclass(frozen=True)
class TurnInput:
    """What arrives: the owner's text (typed or transcribed) for one store and conversation.

    Attributes:
        text: the request as typed or transcribed.
        mode: router (default), native or small.
        conversation: the conversation id; a new one starts when None.
        channel: an ``audit.models.Channel`` value (api, assistant, alexa...).
        actor: who asks, as the ledger journals it (``user:<id>``, ``token:<prefix>``).
        transcript: the speech-to-text result when the text came from audio.
    """

    text: str
    mode: Mode = Mode.ROUTER
    conversation: str | None = None
    channel: str = "api"
    actor: str = "owner"
    transcript: dict[str, Any] | None = None


@dataclass(frozen=True)
class Event:
    """One thing that happened in a turn, in order, with its typed payload.

    ``as_dict`` is the public wire form (the websocket's message, a contract clients read); the
    payload may hold more than it shows (what the answer and the audit read from it).
    """

    payload: Payload
    at_ms: float = 0.0  # milliseconds since the turn started

    @property
    def kind(self) -> EventKind:
        return self.payload.KIND

    @property
    def data(self) -> dict[str, Any]:
        return self.payload.data()

    def as_dict(self) -> dict[str, Any]:
        return {"type": str(self.kind), "at_ms": round(self.at_ms, 1), **self.data}


@dataclass(frozen=True)
class TurnIdentity:
    """Which turn this is, known before any stage runs: its conversation, index, mode and words."""

    conversation: str
    turn: int
    mode: str
    transcript: str  # the owner's words as the turn read them (typed, transcribed, or the words a yes ran)


@dataclass(frozen=True)
class TurnResult:
    """The public answer of a turn (the shape of ``POST /api/v1/turns``), folded from its events.

    Attributes:
        guard: each check's verdict by ``GuardCheck`` ("input" and "output" always present).
        tool_calls: the calls that stayed (a turn that failed or was stopped by the data guard
            rolled them back: none).
        pending_draft: the draft waiting for approval after the turn, if any.
        offered_draft_id: the draft this very turn put on offer (a yes next turn places it).
        stages: milliseconds per ``Stage`` (the audit's own included once the turn is done).
    """

    conversation: str
    turn: int
    mode: str
    transcript: str
    normalized: str
    guard: Mapping[str, Any] = field(default_factory=lambda: {"input": None, "output": None})
    action: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    reply: str = ""
    media: tuple[dict[str, Any], ...] = ()
    pending_draft: dict[str, Any] | None = None
    offered_draft_id: int | None = None
    latency_ms: float = 0.0
    outcome: str = Outcome.ANSWERED
    stages: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_events(cls, identity: TurnIdentity, events: Iterable[Event], *, latency_ms: float) -> TurnResult:
        """The answer as the events tell it: a fold over the turn's events, in order."""
        from assistant.events import fold

        return cls(conversation=identity.conversation, turn=identity.turn, mode=identity.mode,
                   transcript=identity.transcript, latency_ms=latency_ms,
                   **fold(events, normalized=identity.transcript))

    def as_dict(self) -> dict[str, Any]:
        return {
            "conversation": self.conversation,
            "turn": self.turn,
            "mode": self.mode,
            "transcript": self.transcript,
            "normalized": self.normalized,
            "guard": dict(self.guard),
            "action": self.action,
            "tool_calls": list(self.tool_calls),
            "reply": self.reply,
            "media": list(self.media),
            "pending_draft": self.pending_draft,
            "offered_draft_id": self.offered_draft_id,
            "latency_ms": round(self.latency_ms, 1),
        }
