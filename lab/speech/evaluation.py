"""Spoken owner phrases and how a voice turn is judged: the right action on the right product.

The phrases are taken, word for word, from the owner session suite and the routing set (Hindi
product words included: haldi, jeera, gur, sarson ka tel, atta/otta, toor dal, chana dal). The
voice test and ``scripts/bench_speech.py`` speak them with espeak-ng and read the turn's result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from packs.source import GROCERY_EVALUATION

# Fixed before any run was scored: lookups, counts, restocks and sales, each naming a product by
# its local word where the suites do.
OWNER_SESSION = (
    "um where did we keep the haldi",
    "how many bags of chana dahl are left",
    "is there any sarson ka tel left",
    "uh what's the price on the jeera",
    "alexa where's the otta",
    "how many gur blocks do we have",
    "actually just reorder the toor dal",
    "so we actually have fifteen bags of atta, fix the count",
)
ROUTING_SET = ("r-016", "r-017", "r-025", "r-026", "r-043", "r-049", "r-092", "r-148", "r-209", "r-224", "r-230", "r-231")
TOOL_ACTIONS = {
    "get_inventory": "find_product",
    "place_reorder": "draft_restock",
    "update_inventory": "update_count",
    "get_todays_transactions": "todays_sales",
}
ACTION_TOOLS = {action: tool for tool, action in TOOL_ACTIONS.items()}


@dataclass(frozen=True)
class VoicePhrase:
    """One phrase to speak, with the action and product a correct turn resolves it to."""

    source: str  # "owner_session" or a routing set id
    say: str
    action: str
    product: str | None

    @property
    def tool(self) -> str:
        return ACTION_TOOLS[self.action]


def voice_phrases() -> list[VoicePhrase]:
    """The phrase set, read from the suites (so a changed suite changes the set, not a copy)."""
    phrases: list[VoicePhrase] = []
    session = {turn["say"]: turn for turn in json.loads((GROCERY_EVALUATION / "suites" / "owner_session.json").read_text())["turns"]}
    for say in OWNER_SESSION:
        expect = session[say]["expect"]
        tool = expect["tools"][0]
        args = expect.get("args", {}).get(tool, {})
        product = args.get("item") or (args.get("items") or [{}])[0].get("item")
        phrases.append(VoicePhrase(source="owner_session", say=say, action=TOOL_ACTIONS[tool], product=product))
    routing = {item["id"]: item for item in json.loads((GROCERY_EVALUATION / "routing_set.json").read_text())["items"]}
    for key in ROUTING_SET:
        item = routing[key]
        product = item.get("item") or (item.get("items") or [{}])[0].get("item")
        phrases.append(VoicePhrase(source=key, say=item["say"], action=item["action"], product=product))
    return phrases


def _names_product(call: dict[str, Any], product: str) -> bool:
    arguments = call.get("arguments") or {}
    if arguments.get("item") == product:
        return True
    return any(isinstance(line, dict) and line.get("item") == product for line in arguments.get("items") or [])


def judge(phrase: VoicePhrase, result: dict[str, Any] | None) -> bool:
    """Right when the turn took the expected action and its tool call named the expected product."""
    if not result or result.get("action") != phrase.action:
        return False
    calls = [call for call in result.get("tool_calls", []) if call.get("tool") == phrase.tool and call.get("ok")]
    if phrase.product is None:
        return bool(calls)
    return any(_names_product(call, phrase.product) for call in calls)
