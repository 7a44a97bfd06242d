"""The spoken evaluation set (``spoken_set.json``) and how a turn on one of its phrases is judged.

A turn is right when it took the expected action and, where the phrase names a product, a tool
call of that action named that product (and the number said, for a count or an order). A turn
that asked "did you mean ...?" instead of acting is counted apart: not right, and not a confident
wrong answer either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SET_FILE = Path(__file__).resolve().parent / "spoken_set.json"
ACTION_TOOLS = {
    "find_product": "get_inventory",
    "draft_restock": "place_reorder",
    "update_count": "update_inventory",
    "todays_sales": "get_todays_transactions",
    "store_health": "reconcile_inventory",
    "low_stock": "get_inventory",
    "list_products": "get_inventory",
}
REPORT_TOOLS = {"inventory": "send_inventory_report", "sales": "send_sales_report"}


class Verdict(StrEnum):
    RIGHT = "right"
    ASKED = "asked"  # a confirmation question, nothing looked up or changed
    WRONG = "wrong"


@dataclass(frozen=True)
class SpokenPhrase:
    """One phrase of the set, with what a correct turn resolves it to."""

    id: str
    split: str
    source: str
    category: str
    say: str
    action: str
    product: str | None = None
    count: int | None = None
    qty: int | None = None
    kind: str | None = None
    group: str | None = None
    topic: str | None = None
    not_carried: str | None = None


def recipe() -> dict[str, Any]:
    """The set's file: ``voices``, ``noise`` and ``items``."""
    return json.loads(SET_FILE.read_text())


def spoken_phrases(*, split: str | None = None) -> list[SpokenPhrase]:
    """The phrases, all or one split (``dev`` for tuning, ``eval`` for the figures)."""
    phrases = [SpokenPhrase(**item) for item in recipe()["items"]]
    return [p for p in phrases if split is None or p.split == split]


def _calls(answer: dict[str, Any], tool: str) -> list[dict[str, Any]]:
    return [c for c in answer.get("tool_calls") or [] if c.get("tool") == tool and c.get("ok")]


def _lines(call: dict[str, Any]) -> list[dict[str, Any]]:
    arguments = call.get("arguments") or {}
    if "items" in arguments:
        return [line for line in arguments.get("items") or [] if isinstance(line, dict)]
    return [arguments]


def _product_right(phrase: SpokenPhrase, answer: dict[str, Any]) -> bool:
    calls = _calls(answer, ACTION_TOOLS[phrase.action])
    for call in calls:
        for line in _lines(call):
            if line.get("item") != phrase.product:
                continue
            if phrase.count is not None and line.get("stock") != phrase.count:
                continue
            if phrase.qty is not None and line.get("qty") != phrase.qty:
                continue
            return True
    return False


def judge(phrase: SpokenPhrase, answer: dict[str, Any] | None, *, catalog: set[str] = frozenset()) -> Verdict:
    """Right, asked (a "did you mean" question instead of an action) or wrong."""
    if not answer:
        return Verdict.WRONG
    if answer.get("action") == "confirm_hearing":
        return Verdict.ASKED
    if answer.get("action") != phrase.action:
        return Verdict.WRONG
    if phrase.not_carried:
        named = {line.get("item") for call in _calls(answer, "get_inventory") for line in _lines(call)}
        return Verdict.WRONG if named & set(catalog) else Verdict.RIGHT
    if phrase.product:
        return Verdict.RIGHT if _product_right(phrase, answer) else Verdict.WRONG
    if phrase.action == "email_report":
        return Verdict.RIGHT if _calls(answer, REPORT_TOOLS[phrase.kind or "inventory"]) else Verdict.WRONG
    tool = ACTION_TOOLS.get(phrase.action)
    return Verdict.RIGHT if tool is None or _calls(answer, tool) else Verdict.WRONG
