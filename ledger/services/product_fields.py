"""The product fields the catalog accepts, checked once for every way in (pages, CSV import, the API).

Each cleaner takes a value as a caller has it (text from a CSV cell or a form, or an int, Decimal,
list or bool) and returns the stored value or raises ``InvalidField`` naming the field (its CSV
column name) and what to fix. The CSV import calls them per cell and collects every problem of a
row; the services call them per field and stop at the first.

The location phrase the assistant speaks ("Aisle 2, bottom shelf, left") is derived from aisle,
shelf and position: a bare aisle number reads "Aisle 2", a bare shelf number "shelf 3".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext as _

from ledger.errors import InvalidInput
from ledger.money import to_cents
from ledger.services.checks import MAX_COUNT, MAX_MONEY

MAX_ALIASES = 20
MAX_PACK = 10_000
ALIAS_SEPARATOR = "|"
_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")
_BARCODE = re.compile(r"^[A-Za-z0-9-]+$")
_BARE_AISLE = re.compile(r"^\d{1,3}[A-Za-z]?$")
_BARE_SHELF = re.compile(r"^\d{1,2}$")
_TRUE = {"true", "yes", "y", "1", "active"}
_FALSE = {"false", "no", "n", "0", "archived", "inactive"}
_CURRENCY_MARKS = "$£€₹¥"


class InvalidField(InvalidInput):
    """One field's value cannot be used; ``field`` is its name (the CSV column)."""

    code = "invalid_field"

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(_("%(field)s: %(reason)s") % {"field": field, "reason": reason}, field=field, reason=reason)
        self.field = field
        self.reason = reason


def _text(field: str, value: object, *, max_length: int, required: bool = False) -> str:
    if value is None:
        value = ""
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise InvalidField(field, _("must be text"))
    cleaned = " ".join(value.split())
    if required and not cleaned:
        raise InvalidField(field, _("is required"))
    if len(cleaned) > max_length:
        raise InvalidField(field, _("is longer than %(max)s characters") % {"max": max_length})
    return cleaned


def whole(field: str, value: object, *, minimum: int, maximum: int, default: int) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if isinstance(value, bool):
        raise InvalidField(field, _("must be a whole number"))
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        if text.endswith(".0"):  # spreadsheets write whole numbers as 12.0
            text = text[:-2]
        if not re.fullmatch(r"[+-]?\d{1,12}", text):
            raise InvalidField(field, _("'%(value)s' is not a whole number") % {"value": value.strip()[:40]})
        value = int(text)
    if not isinstance(value, int):
        raise InvalidField(field, _("must be a whole number"))
    if value < minimum:
        raise InvalidField(field, _("must be at least %(min)s") % {"min": minimum})
    if value > maximum:
        raise InvalidField(field, _("must be at most %(max)s") % {"max": f"{maximum:,}"})
    return value


def money(field: str, value: object, *, default: Decimal | None = None) -> Decimal:
    """An amount of zero or more in cents; text may carry a currency sign ("$4.99")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is None:
            raise InvalidField(field, _("is required (an amount such as 4.99)"))
        return default
    if isinstance(value, (bool, float)):
        raise InvalidField(field, _("must be an exact amount such as 4.99"))
    if isinstance(value, str):
        text = value.strip().lstrip(_CURRENCY_MARKS).strip()
        if not re.fullmatch(r"\d{1,10}(\.\d{1,2})?", text):
            raise InvalidField(field, _("'%(value)s' is not an amount such as 4.99") % {"value": value.strip()[:40]})
        value = text
    try:
        amount = to_cents(value)  # type: ignore[arg-type]
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidField(field, _("must be an amount such as 4.99")) from None
    if not amount.is_finite() or amount < 0 or amount > MAX_MONEY:
        raise InvalidField(field, _("must be an amount of zero or more"))
    return amount


def sku(value: object) -> str:
    cleaned = _text("sku", value, max_length=64, required=True)
    if not _CODE.match(cleaned):
        raise InvalidField("sku", _("use letters, digits and . _ / - only, starting with a letter or digit"))
    return cleaned


def barcode(value: object) -> str:
    cleaned = _text("barcode", value, max_length=32).replace(" ", "")
    if cleaned and not _BARCODE.match(cleaned):
        raise InvalidField("barcode", _("use letters, digits and - only"))
    return cleaned


def aliases(value: object, *, name: str = "") -> list[str]:
    """Other names: a list, or text with names separated by |."""
    if value is None:
        return []
    items: Iterable[object]
    if isinstance(value, str):
        items = value.split(ALIAS_SEPARATOR)
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise InvalidField("aliases", _("must be names separated by |"))
    seen = {name.casefold()} if name else set()
    cleaned: list[str] = []
    for item in items:
        alias = _text("aliases", item, max_length=120)
        if ALIAS_SEPARATOR in alias:
            raise InvalidField("aliases", _("an alias cannot contain |"))
        if alias and alias.casefold() not in seen:
            seen.add(alias.casefold())
            cleaned.append(alias)
    if len(cleaned) > MAX_ALIASES:
        raise InvalidField("aliases", _("at most %(max)s aliases") % {"max": MAX_ALIASES})
    return cleaned


def active(value: object) -> bool:
    if value is None or value == "":
        return True
    if isinstance(value, bool):
        return value
    text = str(value).strip().casefold()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InvalidField("active", _("'%(value)s' is not true or false") % {"value": str(value)[:40]})


def location_of(*, aisle: str, shelf: str, position: str) -> str:
    """The phrase the assistant and the shelf finder say: "Aisle 2, bottom shelf, left"."""
    parts = [
        f"Aisle {aisle}" if _BARE_AISLE.match(aisle) else aisle,
        f"shelf {shelf}" if _BARE_SHELF.match(shelf) else shelf,
        position,
    ]
    return ", ".join(part for part in parts if part)


def location_parts(location: str) -> dict[str, str]:
    """A location phrase split at its commas into aisle, shelf and position (the rest)."""
    parts = [part.strip() for part in (location or "").split(",") if part.strip()]
    return {
        "aisle": (parts[0] if parts else "")[:40],
        "shelf": (parts[1] if len(parts) > 1 else "")[:40],
        "position": ", ".join(parts[2:])[:40],
    }


# Defaults for a new product's optional fields (a CSV may leave their columns out or their cells empty).
DEFAULTS: dict[str, Any] = {
    "barcode": "",
    "unit": "each",
    "category": "Other",
    "pack_size": 1,
    "aisle": "",
    "shelf": "",
    "position": "",
    "shelf_note": "",
    "unit_cost": Decimal("0.00"),
    "supplier": "",
    "par_level": 0,
    "reorder_point": 0,
    "aliases": [],
    "active": True,
}

CLEANERS: dict[str, Callable[[object], Any]] = {
    "sku": sku,
    "name": lambda v: _text("name", v, max_length=120, required=True),
    "barcode": barcode,
    "category": lambda v: _text("category", v, max_length=60) or DEFAULTS["category"],
    "unit": lambda v: _text("unit", v, max_length=40) or DEFAULTS["unit"],
    "pack_size": lambda v: whole("pack_size", v, minimum=1, maximum=MAX_PACK, default=1),
    "aisle": lambda v: _text("aisle", v, max_length=40),
    "shelf": lambda v: _text("shelf", v, max_length=40),
    "position": lambda v: _text("position", v, max_length=40),
    "shelf_note": lambda v: _text("shelf_note", v, max_length=120),
    "price": lambda v: money("price", v),
    "unit_cost": lambda v: money("unit_cost", v, default=Decimal("0.00")),
    "supplier": lambda v: _text("supplier", v, max_length=80),
    "par_level": lambda v: whole("par_level", v, minimum=0, maximum=MAX_COUNT, default=0),
    "reorder_point": lambda v: whole("reorder_point", v, minimum=0, maximum=MAX_COUNT, default=0),
    "aliases": aliases,
    "active": active,
}
# The catalog CSV's columns, in order (README "Catalog CSV").
COLUMNS: tuple[str, ...] = (
    "sku", "name", "barcode", "category", "unit", "pack_size", "aisle", "shelf", "position", "shelf_note",
    "price", "unit_cost", "supplier", "par_level", "reorder_point", "aliases", "active",
)
EDITABLE = frozenset(COLUMNS)


def clean(values: Mapping[str, object], *, errors: list[InvalidField] | None = None) -> dict[str, Any]:
    """Each given field cleaned; with ``errors`` every problem is collected there, else the first raises.

    Aliases are cleaned against the name when both are given; a reorder point above the par level
    is a problem of ``reorder_point``.

    Raises:
        InvalidField: a value cannot be used (only when ``errors`` is None).
    """
    cleaned: dict[str, Any] = {}
    for field, value in values.items():
        if field not in CLEANERS:
            problem = InvalidField(field, _("is not a product field"))
            if errors is None:
                raise problem
            errors.append(problem)
            continue
        try:
            cleaned[field] = CLEANERS[field](value)
        except InvalidField as problem:
            if errors is None:
                raise
            errors.append(problem)
    if "aliases" in cleaned and cleaned.get("name"):
        cleaned["aliases"] = aliases(cleaned["aliases"], name=cleaned["name"])
    return cleaned


def check_levels(fields: dict[str, Any]) -> None:
    """The reorder point may not be above the par level (both as they will be stored).

    Raises:
        InvalidField: it is.
    """
    if fields["reorder_point"] > fields["par_level"]:
        raise InvalidField("reorder_point", _("cannot be above par_level (%(par)s)") % {"par": fields["par_level"]})
