"""The router's code rules for what a request is, applied to the hardened native model's first call.

The model owns intent, but a few of its slips are plain from the owner's words, and the router
already corrects them in code (``router.mode``): a food-and-nutrition question that names no product
is the nutrition guide ("which foods we sell are good sources of protein"), and a product read of
words this store does not carry, asked without a shelf, stock or price word, is a general question
("what's the capital of australia" is not a missing product called Australia).
"""

from __future__ import annotations

from typing import Any

from assistant.modes.base import TurnContext
from assistant.modes.router.mode import _LOOKUP, _NUTRITION, _STOCKED


def first_call(ctx: TurnContext, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call the owner's words need when the model's first call is one of the slips above, else it unchanged."""
    text = ctx.words.text.lower()
    grounding = ctx.ground(last_product=ctx.state.last_product or None)
    named = bool(grounding.products) and not grounding.via_pronoun
    if name in ("get_inventory", "ask_general") and not named and _NUTRITION.search(text) \
            and not (grounding.group and _STOCKED.search(text)):
        return "play_audio_guide", {"topic": "nutrition"}
    if name == "get_inventory" and arguments.get("item") and not grounding.products and not grounding.group \
            and not _LOOKUP.search(text) and ctx.ground(hint=str(arguments["item"])).unknown:
        return "ask_general", {"question": ctx.words.text}
    return name, arguments
