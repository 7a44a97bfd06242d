"""Store facts in a model-written reply: only a tool result of the same turn may supply them.

A general answer ("do we have ten years?" → "Yes, we have 10 years.") must not sound like the
store's books. ``store_fact_claims`` finds the phrases that state stock, prices, shelves,
sales or orders, or speak for the store ("we have", "we carry"); the pipeline replaces a
model-written reply that makes such a claim without a ledger result this turn
(``reply_supported``). It is plain code (a few microseconds), so it runs on every model-written
reply before the output guard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assistant import sentences

# What a replaced reply says instead: the books answer store questions, for a named product.
STORE_FACTS_NEUTRAL = sentences.STORE_FACTS_NEUTRAL

# Units that count stock, not the world: "there are 7 days in a week" is no store fact,
# "there are 7 bags left" is.
_STOCK_UNITS = (
    r"bags?|packs?|packets?|bottles?|boxes?|cans?|jars?|tins?|cartons?|units?|pieces?|pcs|sacks?|crates?|"
    r"cases?|trays?|pouches?|blocks?|loaves?|tubs?|bunches?|dozens?|rolls?|strips?|tubes?|sets?"
)
_VERBS = r"have|has|'ve got|got|carry|carries|stock|stocks|sell|sold|keep|hold|ordered|received|restocked|offer"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        # "we have", "we've got", "we still carry", "we do stock" (not "we have to", "we have been")
        (
            "speaks_for_the_store",
            (
                r"\bwe(?:\s+(?:still|currently|already|do|also|now|usually|normally|definitely|only|don't|do not|"
                rf"didn't|never))?\s+(?:{_VERBS})\b(?!\s+(?:to|been|got to)\b)"
            ),
        ),
        (
            "speaks_for_the_store",
            (
                r"\b(?:yes|yeah|yep|sure|of course|no)[,!.]?\s+we (?:do|don't|have|haven't)\b|"
                r"\bwe(?:'re| are)\s+(?:out of|low on|running low|all out|sold out)\b|\bwe ran out\b"
            ),
        ),
        ("speaks_for_the_store", r"\bwe've\s+(?:got|sold|ordered|received|restocked|stocked)\b"),
        (
            "speaks_for_the_store",
            (
                r"\b(?:our|the store's)\s+(?:stock|inventory|shelves|sales|orders?|prices?|supplier|books|till)\b|"
                r"\byour (?:stock|inventory|sales|orders?) (?:is|are|was|were|shows?|came to|stands? at)\b"
            ),
        ),
        ("stock", r"\b(?:in|out of|low on|low in)\s+stock\b|\bon hand\b|\bsold out\b|\bback[- ]?ordered\b"),
        ("stock", rf"\b\d+(?:\.\d+)?\s+(?:{_STOCK_UNITS})\s+(?:left|remaining|available|on the shelf|in the back)\b"),
        ("stock", rf"\bthere (?:are|is|'s|were)\s+(?:only\s+|still\s+)?\d+(?:\.\d+)?\s+(?:{_STOCK_UNITS})\b"),
        (
            "location",
            (
                r"\baisle\s*(?:\d+|[a-z]\b)|\b(?:top|bottom|middle|upper|lower|second|third)\s+shelf\b|"
                r"\bon the shelf\b|\bin the (?:back|storeroom|stockroom|cold room|freezer section)\b"
            ),
        ),
        (
            "price",
            (
                r"(?:₹|\brs\.?|\binr|\$|€|£)\s?\d|\b\d+(?:\.\d+)?\s*(?:rupees|rs\b|dollars|bucks)|"
                r"\b(?:costs?|priced at|sells? for|goes for|the price is|price of \w+ is)\b\s*(?:only\s+|just\s+)?"
                r"(?:₹|rs|\$|\d)"
            ),
        ),
        (
            "sales",
            (
                r"\b(?:you|we|the store|the shop)\s+(?:have\s+|'ve\s+)?sold\b|\bsold\s+\d|"
                r"\bsales (?:today|were|are|came to|total)\b|\btoday's (?:sales|takings|total)\b"
            ),
        ),
        (
            "orders",
            (
                r"\border (?:was |has been |is )?(?:placed|drafted|confirmed|on its way|sent)\b|"
                r"\bi(?:'ve| have)\s+(?:placed|ordered|drafted|updated|changed|set|reordered|emailed|sent)\b|"
                r"\b\d+\s+(?:open |pending )?orders?\b|\bpending (?:draft|order)s?\b"
            ),
        ),
    )
)

# Tools whose results carry the store's books (client tools such as the general answer do not).
LEDGER_TOOLS = frozenset({
    "get_inventory", "get_todays_transactions", "get_sales", "reconcile_inventory", "update_inventory",
    "place_reorder", "send_inventory_report", "send_sales_report", "get_alerts", "dismiss_alert",
})


def store_fact_claims(reply: str) -> list[str]:
    """The kinds of store fact ``reply`` states (``speaks_for_the_store``, ``stock``, ``price``...), in order."""
    found: list[str] = []
    for name, pattern in _PATTERNS:
        if name not in found and pattern.search(reply):
            found.append(name)
    return found


def reply_supported(reply: str, tools_answered: Iterable[str]) -> bool:
    """True when ``reply`` states no store fact, or a ledger tool answered this turn.

    ``tools_answered`` names the tools that returned a result this turn; only the ledger's count.
    """
    if not store_fact_claims(reply):
        return True
    return any(name in LEDGER_TOOLS for name in tools_answered)
