"""Spoken replies built from tool results: every number said comes from a result, never a model."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

_IRREGULAR = {"box": "boxes", "pouch": "pouches", "dozen": "dozen", "piece": "pieces"}


def join(items: Iterable[str], word: str = "and") -> str:
    """"a", "a and b", "a, b and c"."""
    items = [item for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def container(unit: str, count: int) -> str:
    """The unit's container word for a count: "10 lb bag" → "bag"/"bags", "12-piece box" → "boxes"."""
    word = (unit.split() or ["unit"])[-1].lower()
    if count == 1:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def money(value: Any, currency: str = "USD") -> str:
    """"$6", "$8.99" (spoken prices drop zero cents)."""
    try:
        amount = Decimal(str(value)).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        return str(value)
    symbol = "$" if currency == "USD" else f"{currency} "
    if amount == amount.to_integral_value():
        return f"{symbol}{int(amount):,}"
    return f"{symbol}{amount:,.2f}"


def product_where(product: Mapping[str, Any]) -> str:
    note = f", {product['shelfNote']}" if product.get("shelfNote") else ""
    return f"{product['name']} is in {product['location']}{note}."


def product_count(product: Mapping[str, Any]) -> str:
    stock = product["stock"]
    unit = container(product["unit"], stock)
    sentence = f"We have {stock} {unit} of {product['name']}."
    if stock == 0:
        return f"{product['name']} is out of stock."
    if product.get("isLow"):
        sentence += f" That is at or below its reorder point of {product['reorderPoint']}."
    return sentence


def product_price(product: Mapping[str, Any], currency: str) -> str:
    return f"{product['name']} is {money(product['price'], currency)} per {product['unit']}."


def product_available(product: Mapping[str, Any]) -> str:
    stock = product["stock"]
    if stock == 0:
        return f"No, {product['name']} is out of stock right now."
    return f"Yes, we have {product['name']}: {stock} {container(product['unit'], stock)}, in {product['location']}."


def product_answer(product: Mapping[str, Any], ask: str, currency: str) -> str:
    if ask == "count":
        return product_count(product)
    if ask == "price":
        return product_price(product, currency)
    if ask == "available":
        return product_available(product)
    return product_where(product)


def not_carried(words: str) -> str:
    return f"Sorry, we don't carry {words}."


def product_list(products: list[Mapping[str, Any]], *, group: str | None = None) -> str:
    names = [product["name"] for product in products]
    if not names:
        return f"We have nothing in {group} right now." if group else "The store has no products yet."
    if group:
        return f"In {group} we have {len(names)}: {join(names)}."
    return f"We carry {len(names)} products: {join(names)}."


def low_items(items: list[Mapping[str, Any]]) -> str:
    if not items:
        return "Nothing is at or below its reorder point right now."
    parts = [f"{item['name']} ({item['stock']} left)" for item in items]
    noun = "item is" if len(parts) == 1 else "items are"
    return f"{len(parts)} {noun} at or below the reorder point: {join(parts)}."


def sales_today(result: Mapping[str, Any]) -> str:
    currency = result.get("currency", "USD")
    top = [seller["item"] for seller in result.get("topSellers", [])[:3]]
    sentence = (
        f"Today so far: {result['receipts']} receipts, {money(result['revenue'], currency)} in sales, "
        f"{result['unitsSold']} items sold."
    )
    if top:
        sentence += f" Top sellers: {join(top)}."
    return sentence


def store_health(reconciliation: Mapping[str, Any]) -> str:
    currency = reconciliation.get("currency", "USD")
    low = reconciliation.get("lowItems", [])
    sentence = (
        f"I closed the day's books: {reconciliation['receipts']} receipts and "
        f"{money(reconciliation['revenue'], currency)} in sales. "
    )
    if low:
        names = [f"{item['item']} ({item['stock']} left)" for item in low]
        sentence += f"{len(low)} {'item needs' if len(low) == 1 else 'items need'} reordering: {join(names)}."
    else:
        sentence += "Nothing is at or below its reorder point."
    return sentence


def draft_offer(draft: Mapping[str, Any]) -> str:
    currency = draft.get("currency", "USD")
    lines = [f"{line['qty']} {line['item']}" for line in draft["lines"]]
    total = money(draft["estimatedTotal"], currency)
    supplier = f" from {draft['supplier']}" if draft.get("supplier") else ""
    return (
        f"I've drafted an order for {join(lines)}, about {total}{supplier}. "
        "Shall I place it? Say yes to order, or no to drop it."
    )


def order_placed(order: Mapping[str, Any]) -> str:
    currency = order.get("currency", "USD")
    lines = [f"{line['qty']} {line['item']}" for line in order["lines"]]
    supplier = f" with {order['supplier']}" if order.get("supplier") else ""
    return f"Done: the order for {join(lines)} is placed{supplier}, {money(order['total'], currency)}."


def count_updated(result: Mapping[str, Any]) -> str:
    return f"Done. {result['item']} is now set to {result['stock']}; it was {result['previousStock']}."


def report_sent(result: Mapping[str, Any]) -> str:
    return f"I've emailed the {result['report']} report to {result['to']}."
