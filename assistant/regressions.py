"""Live turns marked as regression cases: the turn's words, what it must do, and the catalog it needs.

A platform admin marks an audited turn (``dashboard.views.ops``) with the outcome it should have
had; ``regression_case_create`` turns that into a ``RegressionCase`` that replays on a fresh store
of its own (``manage.py bench --suite regressions``), so it needs nothing of the live store.

What is captured, and why only that:

- the words: the turn's text as heard, and with ``whole_conversation`` the earlier turns' texts
  (replayed first, unchecked, so "yes" or "order it" still has its draft or product);
- the store's business type, time zone and currency (the router's actions, the lexicon, the day);
- the products the turns read or wrote (named in a tool call's arguments or result), the product
  the admin expects, and the catalog products that share a word with the owner's words (so a word
  that named two products still does): each with its unit, category, aliases, location, shelf
  note, count, par level, reorder point, price and cost. Counts, prices and locations are the
  ones the turn's own tool results showed (the count before a write), else the ledger's now.

Not captured: the store's name, its people, tokens, conversation keys, receipts (a sales turn
replays on a store without sales: expect its action, not its figures), photos.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction

from assistant.models import RegressionCase
from audit.models import Record, Turn
from ledger.models import Product
from packs.source import store_pack_key
from tenants.context import use_store

MAX_CONTEXT_TURNS = 20
MAX_PRODUCTS = 60
MAX_PHRASES = 10
MAX_PHRASE = 120
# The actions code handles before any mode (``assistant.pipeline``), beside the router's.
CODE_ACTIONS = ("launch", "confirm", "decline")
_WORD = re.compile(r"[^\W\d_]{3,}")


class RegressionError(ValueError):
    """The case cannot be made as asked; the message says what to change. Nothing was written."""


@dataclass(frozen=True)
class ExpectedOutcome:
    """What the replayed turn must do; at least one part is given."""

    action: str = ""  # the turn's action (find_product, draft_restock, confirm...)
    product: str = ""  # a product some tool call of the turn must name
    say: tuple[str, ...] = field(default_factory=tuple)  # phrases the reply must say
    not_say: tuple[str, ...] = field(default_factory=tuple)  # phrases the reply must not say
    no_write: bool = False  # the turn changes nothing in the books

    def expect(self) -> dict[str, Any]:
        """The bench checks (``lab.bench.checks``) this outcome means.

        Raises:
            RegressionError: nothing is expected, or a phrase list is too long.
        """
        for phrases in (self.say, self.not_say):
            if len(phrases) > MAX_PHRASES or any(len(p) > MAX_PHRASE for p in phrases):
                raise RegressionError(f"At most {MAX_PHRASES} phrases of at most {MAX_PHRASE} characters each.")
        expect: dict[str, Any] = {}
        if self.action:
            expect["action"] = self.action
        if self.product:
            expect["product"] = self.product
        if self.say:
            expect["reply_all"] = list(self.say)
        if self.not_say:
            expect["reply_none"] = list(self.not_say)
        if self.no_write:
            expect["ledger_unchanged"] = True
        if not expect:
            raise RegressionError("Say what the turn should do: an action, a product, words, or no write.")
        return expect


def action_choices(business_type: str) -> tuple[str, ...]:
    """The actions a turn of this business type can have: the router pack's (if it has one) and code's own."""
    from django.core.exceptions import ImproperlyConfigured

    from assistant.modes.router.prompt import router_pack

    try:
        return tuple(router_pack(business_type).action_names) + CODE_ACTIONS
    except ImproperlyConfigured:  # a business type without a router pack: its turns still have code's actions
        return CODE_ACTIONS


def regression_case_create(*, turn: Turn, expected: ExpectedOutcome, whole_conversation: bool = False,
                           note: str = "") -> RegressionCase:
    """Capture ``turn`` (with the conversation before it when asked) as a regression case.

    Raises:
        RegressionError: the expected action or product is not one of the store's, or nothing is expected.
    """
    store = turn.store
    expect = expected.expect()
    business_type = store.business_type.slug
    if expected.action and expected.action not in action_choices(store_pack_key(store)):
        raise RegressionError(f"{expected.action!r} is not an action of the {business_type} business type.")
    with use_store(store):
        turns = _replayed_turns(turn, whole_conversation=whole_conversation)
        catalog = list(Product.objects.filter(store=store, active=True))
        wanted: Product | None = None
        if expected.product:
            wanted = next((p for p in catalog if p.name.casefold() == expected.product.strip().casefold()), None)
            if wanted is None:
                raise RegressionError(f"The store has no product named {expected.product!r}: use its catalog name.")
            expect["product"] = wanted.name
        records = list(Record.objects.filter(turn__in=turns, kind=Record.Kind.TOOL_CALL).order_by("created_at", "id"))
    seen = _seen_in_records(records, {p.name.casefold(): p.name for p in catalog})
    chosen = _chosen_products(catalog, seen=seen, wanted=wanted, texts=[t.text for t in turns] +
                              [t.normalized for t in turns])
    captured = {
        "business_type": business_type, "timezone": store.timezone, "currency": store.currency,
        "products": [_product_state(product, seen.get(product.name, {})) for product in chosen],
    }
    with transaction.atomic():
        return RegressionCase.objects.create(
            title=_title(turn.text), say=turn.text, context=[t.text for t in turns[:-1]],
            category=(expected.action or "regression")[:40], expect=expect, store=captured, mode=turn.mode,
            note=note.strip()[:2000], source_turn=turn.pk,
        )


def _replayed_turns(turn: Turn, *, whole_conversation: bool) -> list[Turn]:
    if not whole_conversation:
        return [turn]
    earlier = list(
        Turn.objects.filter(store=turn.store, conversation=turn.conversation, index__lt=turn.index)
        .order_by("-index")[:MAX_CONTEXT_TURNS]
    )
    return [*reversed(earlier), turn]


def _dicts(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        yield value
        for item in value.values():
            yield from _dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _dicts(item)


def _seen_in_records(records: Iterable[Record], names: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Products named in the calls, in order, with the first count, price and location their results showed.

    A write's arguments name its product and its ``expectedStock`` (the count before it); its
    result's ``previousStock`` is that count too. Arguments never give a count otherwise (an
    update's ``stock`` is the new one).
    """
    seen: dict[str, dict[str, Any]] = {}
    for record in records:
        for part, is_result in ((record.arguments, False), (record.result, True)):
            for entry in _dicts(part):
                label = entry.get("name") if isinstance(entry.get("name"), str) else entry.get("item")
                name = names.get(label.strip().casefold()) if isinstance(label, str) else None
                if name is None:
                    continue
                state = seen.setdefault(name, {})
                before = entry.get("expectedStock") if not is_result else entry.get("previousStock", entry.get("stock"))
                if isinstance(before, int) and not isinstance(before, bool) and before >= 0:
                    state.setdefault("stock", before)
                if is_result:
                    if _money(entry.get("price")) is not None:
                        state.setdefault("price", _money(entry.get("price")))
                    if isinstance(entry.get("location"), str):
                        state.setdefault("location", entry["location"])
    return seen


def _words(text: str) -> set[str]:
    return {word.removesuffix("s") for word in _WORD.findall(text.casefold())}


def _chosen_products(catalog: list[Product], *, seen: Mapping[str, Any], wanted: Product | None,
                     texts: list[str]) -> list[Product]:
    by_name = {product.name: product for product in catalog}
    chosen = [by_name[name] for name in seen if name in by_name]
    if wanted is not None and wanted not in chosen:
        chosen.append(wanted)
    spoken = set().union(*(_words(text) for text in texts if text))
    for product in sorted(catalog, key=lambda p: p.name):
        if product not in chosen and spoken & _words(" ".join([product.name, *map(str, product.aliases or [])])):
            chosen.append(product)
    return chosen[:MAX_PRODUCTS]


def _money(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        amount = Decimal(str(value).lstrip("$"))
    except InvalidOperation:
        return None
    return str(amount.quantize(Decimal("0.01"))) if amount.is_finite() and amount >= 0 else None


def _product_state(product: Product, seen: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": product.name, "aliases": [str(alias) for alias in product.aliases or []], "unit": product.unit,
        "category": product.category, "pack_size": product.pack_size,
        "location": seen.get("location", product.location), "shelf_note": product.shelf_note,
        "stock": seen.get("stock", product.stock), "par_level": product.par_level,
        "reorder_point": product.reorder_point, "price": seen.get("price", _money(product.price)),
        "unit_cost": _money(product.unit_cost), "supplier": product.supplier,
    }


def _title(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
