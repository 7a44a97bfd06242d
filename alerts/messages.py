"""An alert's sentence, built in code from its facts (every number in it came from the ledger)."""

from __future__ import annotations

from decimal import Decimal

from alerts.kinds import Kind
from ledger.money import money_format

REPORT_NAMES = {"sales": "sales report", "inventory": "inventory report"}


def _money(facts: dict, name: str) -> str:
    return money_format(Decimal(str(facts.get(name, "0"))), str(facts.get("currency", "USD")))


def _stock(facts: dict) -> str:
    return f"{facts['product']} is down to {facts['stock']} (reorder point {facts['reorder_point']})."


def _sold_out(facts: dict) -> str:
    return f"{facts['product']} is sold out."


def _day(facts: dict) -> str:
    how = "under half" if facts["direction"] == "slow" else "more than twice"
    return (f"Sales by {facts['hour']}:00 are {_money(facts, 'revenue')}, {how} the usual "
            f"{_money(facts, 'usual')} for a {facts['weekday']}.")


def _draft(facts: dict) -> str:
    return (f"The reorder from {facts['supplier']} ({_money(facts, 'total')}) has waited "
            f"{facts['minutes']} minutes for approval.")


def _report(facts: dict) -> str:
    name = REPORT_NAMES.get(str(facts.get("report")), "report")
    return f"The {name} for {facts['day']} did not send: {facts['error']}"


_BUILDERS = {
    Kind.LOW_STOCK: _stock,
    Kind.SOLD_OUT: _sold_out,
    Kind.UNUSUAL_DAY: _day,
    Kind.DRAFT_WAITING: _draft,
    Kind.REPORT_FAILED: _report,
}


def alert_message(kind: str, facts: dict) -> str:
    """The alert in one or two short sentences; facts missing a field give a plain fallback."""
    try:
        return _BUILDERS[Kind(kind)](facts)
    except (KeyError, ValueError, ArithmeticError):
        return Kind(kind).label if kind in Kind.values else "An alert."


def spoken_item(kind: str, facts: dict, *, stock: int | None = None) -> str:
    """The alert as a clause for "Before you ask: ...", with the product's count as it is now."""
    if kind == Kind.LOW_STOCK:
        return f"{facts['product']} is down to {facts['stock'] if stock is None else stock}"
    if kind == Kind.SOLD_OUT:
        return f"{facts['product']} is sold out"
    sentence = alert_message(kind, facts).rstrip(".")
    return sentence[:1].lower() + sentence[1:]
