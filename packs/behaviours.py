"""The built-in behaviours a pack's actions map to, and the parameters each one takes.

Each is a handler in ``assistant.modes.router.actions`` (a fixed sequence of tool calls and a
reply built from their results); a pack names one per action and may fix some of the fields the
router model would otherwise fill (a pharmacy's "is it in stock" action: ``find_product`` with
``ask: available``). A behaviour that is not here is a validation error, never new code.
"""

from __future__ import annotations

BEHAVIOURS: dict[str, frozenset[str]] = {
    "general": frozenset(),
    "find_product": frozenset({"ask"}),
    "list_products": frozenset(),
    "todays_sales": frozenset(),
    "sales_period": frozenset(),
    "store_health": frozenset(),
    "alerts": frozenset(),
    "low_stock": frozenset(),
    "draft_restock": frozenset(),
    "update_count": frozenset(),
    "play_demo": frozenset(),
    "play_guide": frozenset({"topic"}),
    "email_report": frozenset({"kind"}),
}
# Matcher intents that are not actions: the fast path's follow-ups.
MATCHER_INTENTS = frozenset({"repeat_last", "same_action_other_item"})
