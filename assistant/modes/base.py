"""What every mode gets from the pipeline (``TurnContext``) and gives back (``ModeOutcome``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from assistant import tool_args
from assistant.events import Payload, ToolCalled
from assistant.guard.data import data_check, result_texts
from assistant.sentences import say
from assistant.types import Outcome, ToolCallView
from mcp_gateway.execution import ToolResult, execute_tool
from mcp_gateway.policy import Caller
from mcp_gateway.registry import tool_get

if TYPE_CHECKING:
    from assistant.grounding import Catalog, Grounding
    from assistant.lexicon import Lexicon
    from assistant.media.library import MediaItem
    from assistant.models import Conversation
    from assistant.normalize import Normalized
    from assistant.policy import OwnerWordsPolicy
    from tenants.models import Store


_TURN_POLICY: Any = object()  # "use the turn's own policy" (None means no extra policy)


def stopped_reply(calls: Iterable[ToolCallView], nothing_changed: str, after_changes: str) -> str:
    """The reply of a turn that stopped early: "nothing was changed" only when nothing was.

    Each write is its own short transaction, so one that committed before the stop stands: the
    reply names it by its tool's title, so that the owner checks it rather than asks again.
    """
    changes: list[str] = []
    for call in calls:
        spec = tool_get(call.tool) if call.ok else None
        if spec is not None and spec.side_effects and spec.title.lower() not in changes:
            changes.append(spec.title.lower())
    if not changes:
        return say(nothing_changed)
    return say(after_changes, changes=", ".join(changes))


@dataclass
class TurnContext:
    """One turn as a mode sees it. Tool calls go through ``call_tool`` only: the gateway's
    execution path, with the owner-words policy, audited under this turn."""

    store: Store
    state: Conversation
    words: Normalized
    catalog: Catalog
    lexicon: Lexicon
    mode: str
    turn_index: int
    caller: Caller
    policy: OwnerWordsPolicy
    emit: Callable[[Payload], None]
    tool_calls: list[ToolCallView] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    _groundings: dict[tuple[str | None, str | None], Grounding] = field(default_factory=dict, repr=False)

    def ground(self, *, last_product: str | None = None, hint: str | None = None) -> Grounding:
        """What the owner's words name in the catalog (``assistant.grounding.ground``), worked out once
        per turn for each ``last_product`` and ``hint``: the words, catalog and lexicon are the turn's."""
        key = (last_product, hint)
        if key not in self._groundings:
            from assistant.grounding import ground

            self._groundings[key] = ground(self.words.text, catalog=self.catalog, lexicon=self.lexicon,
                                           last_product=last_product, hint=hint)
        return self._groundings[key]

    def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, caller: Caller | None = None,
        policy: Any = _TURN_POLICY, idempotency_key: str = "",
    ) -> ToolResult:
        """Run one MCP tool for this store through the gateway, audited under this turn.

        By default as the assistant under the owner-words policy; the code that handles the
        owner's "yes" passes its own caller (with the confirm grant) and no extra policy.
        """
        started = time.perf_counter()
        repairs: tuple[str, ...] = ()
        if policy is _TURN_POLICY:
            # What code owns (the product the owner named, expectedStock, quantities, confirmed=false)
            # is filled by one layer for every mode; a call it cannot fill is refused, audited as such.
            filled = tool_args.fill(self, name, arguments)
            policy, refusal, repairs = self.policy, filled.refusal, filled.repairs
            arguments = filled.arguments
        else:
            refusal = ""
        result = execute_tool(
            name, arguments, store=self.store, caller=caller or self.caller,
            policy=policy, idempotency_key=idempotency_key, refusal=refusal,
        )
        view = ToolCallView(
            tool=name,
            arguments=dict(arguments or {}),
            result=result.data,
            ok=result.ok,
            error="" if result.ok else result.message,
        )
        self.tool_calls.append(view)
        self.results.append(result)
        self.emit(ToolCalled(call=view, outcome=result.outcome, ms=(time.perf_counter() - started) * 1000,
                             repairs=tuple(repairs)))
        # A model may read the result next: data from the books must not carry instructions. The call
        # is on the record first: its write committed, whatever the check says of what it returned.
        data_check(result_texts(result.data), source=f"tool:{name}")
        return result

    def simulator_call(self, name: str, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        """Record an action the client performs (play the demo film, an audio guide) as a tool call."""
        view = ToolCallView(tool=name, arguments=arguments, result=result, ok=True)
        self.tool_calls.append(view)
        self.emit(ToolCalled(call=view, outcome="ok"))


@dataclass
class ModeOutcome:
    """What a mode did: its action, the reply, media, and what the conversation should remember.

    Attributes:
        reply: the sentence to speak.
        model_written: True when a model wrote the reply (the output guard must judge it).
        offered_draft_id: a draft this turn put on offer (a fresh yes next turn confirms it).
        last_product: the product this turn was about, for "it" next turn.
        guide: the audio guide played, so "another one" plays a different one.
        route: who decided the action ({"decided_by": "matcher"|"model", "source", "confidence"}),
            for the router; empty for modes without a fast path.
    """

    action: str | None
    reply: str
    outcome: Outcome = Outcome.ANSWERED
    model_written: bool = False
    media: list[MediaItem] = field(default_factory=list)
    offered_draft_id: int | None = None
    last_product: str | None = None
    topic: str | None = None
    guide: str | None = None
    route: dict[str, Any] = field(default_factory=dict)


class TurnMode(Protocol):
    """One way of mapping a request to tool calls."""

    name: str

    def handle(self, ctx: TurnContext) -> ModeOutcome: ...
