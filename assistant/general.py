"""Action 0: greetings, reactions and general questions, answered by the general model.

The reply is model-written, so the pipeline's output guard judges it together with the
question. The prompt keeps it short and spoken, and keeps the model off store facts: numbers
about the store only ever come from tool results, which this call does not have.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from assistant import sentences
from assistant.model_log import ask
from assistant.sentences import say
from inference.base import InferenceError, ModelRequest, Role

if TYPE_CHECKING:
    from assistant.modes.base import TurnContext

SYSTEM = (
    "You are the voice assistant of a small {kind}, talking with its owner. Answer in one or two "
    "short, friendly sentences that sound natural when spoken. For greetings and thanks, reply warmly and "
    "offer help. For general knowledge, cooking and conversions, answer briefly and correctly. You cannot "
    "see the store's stock, sales or orders in this conversation, so never state store numbers, prices or "
    "stock; suggest asking about a product instead. Never give medical advice or say a food cures or treats "
    "a disease; say that a doctor is the right person to ask."
)
SMALL_TALK = frozenset({"greeting", "thanks", "reaction"})
_PART_OF_DAY = re.compile(r"\b(morning|afternoon|evening)\b")
FALLBACK = sentences.GENERAL_FALLBACK
_PLACE = re.compile(r"\b(store|shop|caf[eé]|pharmacy|chemist|bakery|market|deli|kiosk)$")


def store_kind(store: object) -> str:
    """What kind of shop the store is, in its business type's own name: "grocery store", "hardware store", "pharmacy"."""
    kind = getattr(store, "business_type", None)
    name = " ".join(str(getattr(kind, "name", "") or getattr(kind, "slug", "") or "grocery").split()).casefold()
    return name if _PLACE.search(name) else f"{name} store"


def system_prompt(store: object) -> str:
    """The general model's instructions, naming the store's own kind of shop (a bakery is not told it is a grocery)."""
    return SYSTEM.format(kind=store_kind(store))


def general_answer(ctx: TurnContext) -> str:
    """A short spoken answer from the general model; a plain fallback when the model is unavailable."""
    store = ctx.store
    messages = (
        {"role": "system", "content": system_prompt(store)},
        {"role": "user", "content": f"(Store: {store.name}. Owner: {store.owner_name or 'the owner'}.)\n{ctx.words.text}"},
    )
    try:
        response = ask(
            ModelRequest(role=Role.GENERAL, messages=messages, temperature=0.0, max_tokens=72), purpose="general answer"
        )
    except InferenceError:
        return say(FALLBACK)
    text = " ".join(response.text.split())
    return text or say(FALLBACK)


def small_talk_reply(kind: str, text: str) -> str:
    """A short reply to a greeting, thanks or a reaction, written by code (the fast path's small talk)."""
    if kind == "thanks":
        return say(sentences.YOU_ARE_WELCOME)
    if kind == "reaction":
        return say(sentences.GLAD_TO_HELP)
    part = _PART_OF_DAY.search(text.lower())
    greetings = {"morning": sentences.GOOD_MORNING, "afternoon": sentences.GOOD_AFTERNOON,
                 "evening": sentences.GOOD_EVENING}
    hello = greetings[part.group(1)] if part else sentences.HELLO
    return say(hello) + " " + say(sentences.WHAT_CAN_I_DO)
