"""Money in the ledger: ``Decimal`` quantised to cents, and how amounts are written for people."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
_SYMBOLS = {"USD": "$", "CAD": "CA$", "AUD": "A$", "EUR": "€", "GBP": "£", "INR": "₹", "JPY": "¥"}


def to_cents(value: Decimal | int | str) -> Decimal:
    """The amount rounded half-up to whole cents."""
    if isinstance(value, float):
        raise TypeError("Use Decimal or str for money, never float.")
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def money_format(amount: Decimal, currency: str) -> str:
    """``$1,234.50`` for USD; unknown currencies get their code: ``CHF 12.00``."""
    amount = to_cents(amount)
    sign = "-" if amount < 0 else ""
    digits = f"{abs(amount):,.2f}"
    symbol = _SYMBOLS.get(currency)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{currency} {digits}"
