"""Argument checks shared by the ledger's services: counts, quantities, actors, times, money."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation

from django.utils import timezone
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput, InvalidQuantity
from ledger.money import to_cents

# A shelf count above this is a typo or a misheard number, not stock.
MAX_COUNT = 1_000_000
# The most units one draft or receipt line may ask for.
MAX_LINE_QTY = 10_000
MAX_MONEY = Decimal("9999999999.99")


def whole_number(value: object, *, what: str, minimum: int, maximum: int) -> int:
    """``value`` as an int within [minimum, maximum].

    Raises:
        InvalidQuantity: not a whole number, or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidQuantity(_("The %(what)s must be a whole number.") % {"what": what})
    if value < minimum:
        if minimum == 0:
            raise InvalidQuantity(_("The %(what)s cannot be negative.") % {"what": what})
        raise InvalidQuantity(_("The %(what)s must be at least %(min)s.") % {"what": what, "min": minimum})
    if value > maximum:
        raise InvalidQuantity(
            _("The %(what)s of %(value)s is more than %(max)s; check the number.")
            % {"what": what, "value": value, "max": f"{maximum:,}"}
        )
    return value


def stock_count(value: object, *, what: str = "count") -> int:
    return whole_number(value, what=what, minimum=0, maximum=MAX_COUNT)


def line_qty(value: object, *, what: str = "quantity") -> int:
    return whole_number(value, what=what, minimum=1, maximum=MAX_LINE_QTY)


def actor_of(actor: object) -> str:
    """Who acts, as ``kind:id`` (``user:12``, ``token:ab12cd34``, ``assistant:router``, ``system:seed``)."""
    if not isinstance(actor, str) or ":" not in actor or not actor.strip() or len(actor) > 120:
        raise InvalidInput(_("Every change needs an actor such as user:12 or system:seed."))
    return actor.strip()


def moment(now: dt.datetime | None) -> dt.datetime:
    """``now`` if given (it must be aware), else the current time."""
    if now is None:
        return timezone.now()
    if not isinstance(now, dt.datetime) or timezone.is_naive(now):
        raise InvalidInput(_("Times must carry a time zone."))
    return now


def money(value: object, *, what: str) -> Decimal:
    """A non-negative amount in cents.

    Raises:
        InvalidInput: not a number, negative, or absurdly large.
    """
    if isinstance(value, (bool, float)):
        raise InvalidInput(_("The %(what)s must be an exact amount such as 4.99.") % {"what": what})
    try:
        amount = to_cents(value)  # type: ignore[arg-type]
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidInput(_("The %(what)s must be an amount such as 4.99.") % {"what": what}) from None
    if not amount.is_finite() or amount < 0 or amount > MAX_MONEY:
        raise InvalidInput(_("The %(what)s must be an amount of zero or more.") % {"what": what})
    return amount


def text(value: object, *, what: str, max_length: int, required: bool = True) -> str:
    """``value`` as one line of text without surrounding space."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InvalidInput(_("The %(what)s must be text.") % {"what": what})
    cleaned = " ".join(value.split())
    if required and not cleaned:
        raise InvalidInput(_("The %(what)s is required.") % {"what": what})
    if len(cleaned) > max_length:
        raise InvalidInput(
            _("The %(what)s is longer than %(max)s characters.") % {"what": what, "max": max_length}
        )
    return cleaned
