"""The write rules, in code, for every call any mode makes (seed 000 §3.1).

- ``update_inventory`` only when the owner's words ask for a count change with a number, and
  only to a number the owner said;
- ``place_reorder`` only when the owner's words ask to order or restock, or narrow a draft
  that was just offered; and a mode can only draft (``confirmed: true`` is refused here; the
  owner's fresh "yes" is handled by code, not by a model);
- reports are emailed only when the owner asks for an email or a report;
- an alert is acknowledged only when the owner says it was seen or dealt with.

A prompt that slips past the guard still cannot change stock or confirm an order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant import sentences
from assistant.sentences import say
from mcp_gateway.policy import Refusal, ToolCall

_COUNT_CHANGE = re.compile(
    r"\b(we('ve)? (actually |now |only )?(have|got)|there (are|is)|set|update|change|correct|count(ed)?|make it|"
    r"should be|actually|recount(ed)?|adjust|put .* (at|to)|now (have|at)|only have|stock (is|of|at|to))\b"
)
_ORDER = re.compile(
    r"\b(order|re-?order|restock|re-?stock|replenish|buy|purchase|stock up|top up|draft|"
    r"place (an|the|a)? ?order|bring in|refill|get (us|me|in) (another )?\d+)\b"
)
# "get us 20 trays of eggs" asks to order (a number of something to get in); "get me the price" does not.
# "we need more samosas" asks to order; "how do I get more customers" does not.
_MORE = re.compile(r"\b(get|need|want) (some |a few )?more\b")
_QUESTION = re.compile(r"^(how|what|why|when|who|which|is|are|does|do)\b")
# A question about an order that exists ("where is the order", "did the order come", "what did we
# order last week") is not asking for a new one; "can you order rice" and "should we order more" are.
_ABOUT_AN_ORDER = re.compile(
    r"^(where|when|what|which|did|has|have|was|were|is|are)\b.*"
    r"(\b(the|my|our|your|that|this|last|yesterday's|today's) (re-?)?orders?\b|\b(we|i|you) (re-?)?ordered\b|"
    r"\bdid (we|i|you) (re-?)?order\b)"
)
_NARROW = re.compile(r"\b(only|just|instead|skip|without|except|drop|remove|but)\b")
_REPORT = re.compile(r"\b(email|e-mail|mail|send|report|inbox)\b")
_ACKNOWLEDGE = re.compile(
    r"\b(acknowledge[ds]?|dismiss(ed)?|clear (it|that|the|them|those|these|all|every)|put (it|them|those) away|got it|seen (it|that)|noted|dealt with|handled|"
    r"mark (it|that|them|the \w+( alert)?) (as )?(done|seen|read|handled))\b"
)


@dataclass(frozen=True)
class OwnerWords:
    """What the owner said this turn, as the policy reads it (normalised text and its numbers)."""

    text: str
    numbers: tuple[int, ...]
    draft_just_offered: bool = False

    @property
    def asks_count_change(self) -> bool:
        return bool(self.numbers) and bool(_COUNT_CHANGE.search(self.text.lower()))

    @property
    def asks_order(self) -> bool:
        lowered = self.text.lower()
        if _ABOUT_AN_ORDER.search(lowered):
            return False
        if _ORDER.search(lowered) or (_MORE.search(lowered) and not _QUESTION.match(lowered)):
            return True
        return self.draft_just_offered and bool(_NARROW.search(lowered))

    @property
    def asks_report(self) -> bool:
        return bool(_REPORT.search(self.text.lower()))

    @property
    def asks_acknowledge(self) -> bool:
        return bool(_ACKNOWLEDGE.search(self.text.lower()))


class OwnerWordsPolicy:
    """The assistant's policy: a write runs only when this turn's words asked for it."""

    def __init__(self, words: OwnerWords) -> None:
        self.words = words

    def check(self, call: ToolCall) -> Refusal | None:
        name = call.spec.name
        args = call.arguments
        if name == "update_inventory":
            if not self.words.asks_count_change:
                return Refusal(say(sentences.NO_COUNT_NUMBER))
            if args.get("stock") not in self.words.numbers:
                return Refusal(say(sentences.COUNT_NOT_SAID, stock=args.get("stock")))
            return None
        if name == "place_reorder":
            if args.get("confirmed"):
                return Refusal(say(sentences.ONLY_YOU_CONFIRM))
            if not self.words.asks_order:
                return Refusal(say(sentences.NO_ORDER_ASKED))
            return None
        if name in ("send_inventory_report", "send_sales_report") and not self.words.asks_report:
            return Refusal(say(sentences.NO_REPORT_ASKED))
        if name == "dismiss_alert" and not self.words.asks_acknowledge:
            return Refusal(say(sentences.ALERT_NOT_DEALT))
        return None
