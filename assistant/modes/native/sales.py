"""Which sales read a sales question needs is code's to say, in the hardened native mode as in the router.

The native model predates ``get_sales``: it calls today's figures for "how did we do yesterday", a
product read for "how much paneer went out last week", or ``get_sales`` for today alone. As the router
does (``router.mode``), a first read about selling over a period other than today is answered by the
router's own sales action: the period, product, ranking and comparison are found in the owner's words
by code and every figure is said by code. ``get_sales`` for today with nothing else is today's sales.
"""

from __future__ import annotations

from typing import Any

from assistant.modes.base import ModeOutcome, TurnContext
from assistant.modes.router.actions import Decision, sales_period
from assistant.modes.router.mode import _EMAIL, _SALES, past_period

# The model's first calls that a question about selling over a period may come out as.
_READS = frozenset({"get_inventory", "get_todays_transactions", "get_sales", "reconcile_inventory", "ask_general"})


def period_answer(ctx: TurnContext, name: str) -> ModeOutcome | None:
    """The router's sales answer when the first call is a read and the words ask about selling over a past period."""
    words, text = ctx.policy.words, ctx.words.text.lower()
    if name not in _READS or words.asks_count_change or words.asks_order or words.asks_report or _EMAIL.search(text):
        return None
    if not (_SALES.search(text) and past_period(text)):
        return None
    return sales_period(ctx, Decision(action="sales_period"))


def today_alone(ctx: TurnContext, name: str, arguments: dict[str, Any]) -> bool:
    """Whether a ``get_sales`` call asks only for today's figures (``get_todays_transactions`` answers it)."""
    period = str(arguments.get("period", "today")).strip().lower()
    return name == "get_sales" and set(arguments) <= {"period"} and period == "today" and not past_period(ctx.words.text)
