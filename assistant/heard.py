"""Asking back what the hearing was unsure of, instead of a confident wrong answer (issue 19).

A spoken turn's transcript may carry a ``doubt`` (``speech.hearing``): a number the beam
hypotheses disagree on, or unknown words that sound like a catalog product. A doubted number is
asked about before anything runs; a doubted product is asked about when the turn found no product
in the words (where it would have said "we don't carry audit"). The question is remembered on the
conversation, and the owner's plain yes on the very next turn runs the words it offered; a short
answer that gives the doubted number's teen/ty partner ("no, fourteen" to "Did you say 40, not
14?") runs them with that number; anything else drops them and is read as a new request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant import phrases
from assistant.lexicon import Lexicon
from assistant.modes.base import ModeOutcome
from assistant.normalize import normalize
from assistant.numbers import teen_ty_partner
from assistant.types import ToolCallView

ACTION = "confirm_hearing"
PRODUCT_ACTIONS = frozenset({"find_product", "draft_restock", "update_count"})
WRITE_TOOLS = frozenset({"update_inventory", "place_reorder"})


def _doubt(transcript: dict[str, Any] | None, kind: str) -> dict[str, str] | None:
    doubt = (transcript or {}).get("doubt")
    if isinstance(doubt, dict) and doubt.get("kind") == kind and doubt.get("question") and doubt.get("text"):
        return doubt
    return None


MAX_NUMBER_ANSWER_WORDS = 4  # "no, fourteen", "I said fourteen": longer is a new request


def pending_words(conversation, text: str, lexicon: Lexicon) -> str:
    """The words to run: the offered ones on a yes right after the question, else ``text``.

    Any answer clears the offer (the caller saves the conversation with the turn).
    """
    offered = conversation.pending_hearing
    fresh = offered and conversation.hearing_offered_turn == conversation.turns
    conversation.pending_hearing, conversation.hearing_offered_turn = "", None
    if not fresh:
        return text
    if phrases.yes_or_no(text) == phrases.Reply.YES:
        return offered
    answer, asked = normalize(text, lexicon), normalize(offered, lexicon)
    if (len(answer.numbers) == 1 and len(asked.numbers) == 1 and len(answer.text.split()) <= MAX_NUMBER_ANSWER_WORDS
            and answer.numbers[0] == teen_ty_partner(asked.numbers[0])):
        return re.sub(rf"\b{asked.numbers[0]}\b", str(answer.numbers[0]), asked.text, count=1)
    return text


def ask_number(transcript: dict[str, Any] | None) -> ModeOutcome | None:
    """The question for a doubted number, before any mode runs."""
    doubt = _doubt(transcript, "number")
    return ModeOutcome(action=ACTION, reply=doubt["question"]) if doubt else None


def ask_product(transcript: dict[str, Any] | None, outcome: ModeOutcome, *, named_product: bool,
                tool_calls: Sequence[ToolCallView]) -> ModeOutcome | None:
    """The question for a doubted product, when the turn named none and changed nothing."""
    doubt = _doubt(transcript, "product")
    if doubt is None or named_product or outcome.action not in PRODUCT_ACTIONS:
        return None
    if any(call.tool in WRITE_TOOLS and call.ok for call in tool_calls):
        return None
    return ModeOutcome(action=ACTION, reply=doubt["question"])


def offered_words(transcript: dict[str, Any] | None, kind_of: ModeOutcome) -> str:
    """What a yes to the question just asked will run."""
    for kind in ("number", "product"):
        doubt = _doubt(transcript, kind)
        if doubt and kind_of.reply == doubt["question"]:
            return doubt["text"][:500]
    return ""
