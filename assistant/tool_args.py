"""The one layer that fills the fields code owns, for every call any mode makes (issue 11).

A mode (the router's actions, the native modes' model calls, the small runtime) says which tool
and the owner's words for its fields. Before the call reaches the gateway, ``TurnContext.call_tool``
passes it through ``fill``, which owns:

- **the product** of a write (``update_inventory``'s ``item``, each ``place_reorder`` line): a
  catalog product the owner's words name this turn, or the last product through a pronoun
  ("order more of it"). The mode's words only choose among those (a hint); a product the owner
  did not name is refused, never written ("we counted 12" cannot set the count of a product
  nobody named).
- **``expectedStock``**: the ledger's count, read just before the write (compare-and-set: a count
  that moved in between is a conflict, not an overwrite).
- **quantities**: a line's ``qty`` is a number the owner said (one product and one number: that
  number), else the ledger's suggestion (``ledger.stock_velocity``: up to par, or two weeks of recent sales; else the par level); always within
  the tool's 1..``MAX_QTY``. A quantity the owner said is the quantity, in every mode.
- **``confirmed``**: false, and no ``draftId``; a call that asks to confirm is left for the
  owner-words policy to refuse as asked (only the owner's fresh "yes", handled by code with its own
  caller, confirms).

Reads pass through unchanged (their results come from the books, and the gateway matches their
words). Report recipients are checked by the ledger's report service (only the store's own,
confirmed addresses), below every channel, so nothing here repeats it.

``fill`` never raises for a bad call: a call it cannot fill comes back with a ``refusal`` sentence,
which the gateway records as refused and the mode reads like any other refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assistant import sentences
from assistant.grounding import ProductRef
from assistant.sentences import say

if TYPE_CHECKING:
    from assistant.modes.base import TurnContext

MAX_QTY = 1000  # place_reorder's schema maximum for one line


@dataclass(frozen=True)
class Filled:
    """The arguments to run with, or why the call cannot run (``refusal``); ``repairs`` says what changed."""

    arguments: dict[str, Any]
    refusal: str = ""
    repairs: tuple[str, ...] = field(default=())


def fill(ctx: TurnContext, name: str, arguments: Mapping[str, Any] | None) -> Filled:
    """``arguments`` with the fields code owns filled from the owner's words and the ledger."""
    args = dict(arguments or {})
    if name == "update_inventory":
        return _count(ctx, args)
    if name == "place_reorder":
        return _reorder(ctx, args)
    return Filled(args)


def _count(ctx: TurnContext, args: dict[str, Any]) -> Filled:
    product, refusal = _owner_product(ctx, args.get("item"), field="item")
    if product is None:
        return Filled(args, refusal=refusal)
    repairs = [] if product.name == args.get("item") else [f"item: {args.get('item')!r} -> {product.name!r}"]
    expected = _ledger_stock(ctx, product.name)
    if expected is None:
        return Filled(args, refusal=say(sentences.GONE_NO_COUNT, name=product.name))
    if args.get("expectedStock") != expected:
        repairs.append("expectedStock from the ledger")
    return Filled({**args, "item": product.name, "expectedStock": expected}, repairs=tuple(repairs))


def _reorder(ctx: TurnContext, args: dict[str, Any]) -> Filled:
    if args.get("confirmed") is True:
        # A mode asking to confirm is refused as asked (the policy's sentence, audited), not turned into a draft.
        return Filled(args)
    repairs: list[str] = ["confirmed=false"] if args.get("confirmed") is not False else []
    if "draftId" in args:
        repairs.append("draftId dropped (only the owner's yes confirms a draft)")
    filled: dict[str, Any] = {key: value for key, value in args.items() if key not in ("confirmed", "draftId")}
    filled["confirmed"] = False
    lines = args.get("items")
    if lines is None:
        return Filled(filled, repairs=tuple(repairs))
    if not isinstance(lines, list) or not lines:
        return Filled(args, refusal="items must be a list of products the owner named, or left out to restock every low item.")
    if _names_nothing(ctx):
        # The owner named no product ("restock the low stuff"): the mode's items are its own
        # invention; what the owner asked for is the tool's "no items: every low item".
        filled.pop("items")
        return Filled(filled, repairs=(*repairs, "items dropped: the owner named no product"))
    numbers = [n for n in ctx.words.numbers if isinstance(n, int)]
    products: list[tuple[ProductRef, object]] = []
    for position, line in enumerate(lines):
        words = line.get("item") if isinstance(line, Mapping) else line
        product, refusal = _owner_product(ctx, words, field=f"items[{position}].item")
        if product is None:
            return Filled(args, refusal=refusal)
        if product.name not in [p.name for p, _ in products]:
            products.append((product, line.get("qty") if isinstance(line, Mapping) else None))
    out = []
    for product, asked in products:
        if len(products) == 1 and len(numbers) == 1:
            qty = numbers[0]
        elif isinstance(asked, int) and not isinstance(asked, bool) and asked in numbers:
            qty = asked  # the owner said this number (several lines: the mode placed it)
        else:
            suggested = _suggested(ctx, product.name)
            if suggested is None:
                return Filled(args, refusal=say(sentences.GONE_NO_DRAFT, name=product.name))
            qty = suggested
        if not 1 <= qty <= MAX_QTY:
            return Filled(args, refusal=say(sentences.LINE_OUT_OF_RANGE, most=MAX_QTY, qty=qty, name=product.name))
        if qty != asked:
            repairs.append(f"{product.name}: qty {asked!r} -> {qty}")
        out.append({"item": product.name, "qty": qty})
    filled["items"] = out
    return Filled(filled, repairs=tuple(repairs))


def _owner_product(ctx: TurnContext, words: Any, *, field: str) -> tuple[ProductRef | None, str]:
    """The catalog product the owner's words (and ``words`` as a hint among them) name, or why not."""
    hint = words if isinstance(words, str) and words.strip() else None
    grounding = ctx.ground(last_product=ctx.state.last_product or None, hint=hint)
    if grounding.products:
        return grounding.products[0], ""
    if grounding.unknown:
        return None, say(sentences.NOT_CARRIED_NOTHING_CHANGED, words=grounding.unknown)
    if grounding.ambiguous:
        names = ", ".join(ref.name for ref in grounding.ambiguous[:3])
        return None, say(sentences.COULD_MEAN, names=names)
    return None, say(sentences.NOT_NAMED, field=field, words=str(words)[:40])


def _names_nothing(ctx: TurnContext) -> bool:
    grounding = ctx.ground(last_product=ctx.state.last_product or None)
    return not (grounding.products or grounding.group or grounding.unknown or grounding.ambiguous)


def _product_row(ctx: TurnContext, name: str):
    from ledger import selectors
    from tenants.context import use_store

    with use_store(ctx.store):
        return selectors.product_by_name(store=ctx.store, name=name)


def _ledger_stock(ctx: TurnContext, name: str) -> int | None:
    row = _product_row(ctx, name)
    return None if row is None else row.stock


def _suggested(ctx: TurnContext, name: str) -> int | None:
    row = _product_row(ctx, name)
    if row is None:
        return None
    from ledger.stock_velocity import reorder_suggestions
    from tenants.context import use_store

    with use_store(ctx.store):
        qty = reorder_suggestions(store=ctx.store, products=[row])[row.pk].qty
    return min(qty if qty > 0 else max(row.par_level, 1), MAX_QTY)
