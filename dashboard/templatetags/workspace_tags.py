"""Template filters of the owner workspace: money in the store's currency, actor strings in words."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template

from ledger.money import money_format

register = template.Library()


@register.filter
def money(amount: object, currency: str = "USD") -> str:
    """``{{ draft.est_total|money:current_store.currency }}`` -> ``$210.00``."""
    try:
        return money_format(Decimal(str(amount)), currency or "USD")
    except (InvalidOperation, TypeError, ValueError):
        return ""


@register.filter
def pretty_json(value: object) -> str:
    """Indented JSON for a tool call's arguments or result (autoescaped by the template)."""
    import json

    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)
