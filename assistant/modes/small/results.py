"""One-line summaries of tool results for the small model's ``### Result:`` lines, written by code.

The model answers by copying from these lines, so each keeps the facts an answer needs (names,
counts, prices, locations, totals) in a fixed, compact order and nothing else. The training data
generator and the runtime both call ``result_line``, so what the model reads in training is
exactly what it reads in service.

Formats (``$`` amounts are spoken style: "$6", "$8.99"):

- one product: ``Jaggery: stock 20 x 1 kg block, reorder at 6, price $6, location Aisle 1, oil
  shelf, upper right (golden jaggery blocks)``; ``stock 4 x ... (low)`` at or below the reorder
  point; ``; also matches: Chana dal, Masoor dal`` when the name fits several.
- low list: ``3 low: Toor dal 4, Mustard oil 3, Frozen samosas 2`` (``0 low`` when none).
- whole list: ``38 products: Basmati rice, Sona masoori rice, ...`` (names only, ``and N more``).
- sales: ``today: 40 receipts, revenue $812.45, 95 units sold; top sellers: Atta 8, Dahi 5``.
- reconcile: ``day closed: 40 receipts, revenue $812.45; 3 low: Toor dal 4 (suggest 42), ...``.
- draft: ``draft pending: Toor dal x42, Mustard oil x21; estimated total $304.50 from Amazon Business``.
- count update: ``Atta: stock 33 -> 15`` (``(low, reorder at 8)`` when low).
- reports: ``inventory report sent to raj@example.com``.
- client tools: ``playing: Shelfwise: a short tour`` / ``playing guide: Count a little every day``
  / ``answer: Canberra is the capital of Australia.``
- failures: ``not carried: saffron`` for a product the store does not have; ``error: <message>``
  for every other failure (refused, invalid, ambiguous...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assistant.modes.small.protocol import one_line
from assistant.replies import money

__all__ = ["complete_arguments", "not_found_words", "result_line"]

_NOT_FOUND = re.compile(r"matches '(.*)'\.", re.DOTALL)
#: Lists (whole catalog, low items, the day's close, drafts) may run longer than other results, so
#: that an answer never names an item its result line cut off.
LIST_RESULT_LIMIT = 720
_LIST_ROOM = LIST_RESULT_LIMIT - 40  # room for names in a whole-list line before "and N more"
_LISTS = ("reconcile_inventory", "place_reorder")


def not_found_words(data: Mapping[str, Any], message: str = "") -> str | None:
    """The owner's words a failed lookup could not find (``product_not_found``), else None."""
    if data.get("error") != "product_not_found":
        return None
    match = _NOT_FOUND.search(str(data.get("message") or message))
    return match.group(1).strip() if match else ""


def _product(product: Mapping[str, Any], currency: str) -> str:
    stock = product.get("stock")
    line = f"{product['name']}: stock {stock} x {product.get('unit', '')}".rstrip(" x")
    if product.get("isLow"):
        line += " (low)"
    line += f", reorder at {product.get('reorderPoint')}, price {money(product.get('price'), currency)}"
    line += f", location {product.get('location') or 'not set'}"
    if product.get("shelfNote"):
        line += f" ({product['shelfNote']})"
    return line


def _names(names: list[str], room: int = _LIST_ROOM) -> str:
    shown: list[str] = []
    used = 0
    for name in names:
        if used + len(name) + 2 > room:
            break
        shown.append(name)
        used += len(name) + 2
    text = ", ".join(shown)
    if len(shown) < len(names):
        text += f" and {len(names) - len(shown)} more"
    return text


def _inventory(data: Mapping[str, Any]) -> str:
    currency = data.get("currency", "USD")
    if "product" in data:
        line = _product(data["product"], currency)
        if data.get("otherMatches"):
            line += "; also matches: " + ", ".join(data["otherMatches"])
        return line
    products = data.get("products", [])
    if data.get("filter") == "low":
        if not products:
            return "0 low: nothing is at or below its reorder point"
        return f"{len(products)} low: " + ", ".join(f"{p['name']} {p['stock']}" for p in products)
    return f"{len(products)} products: " + _names([p["name"] for p in products])


def _sales(data: Mapping[str, Any]) -> str:
    currency = data.get("currency", "USD")
    line = (
        f"today: {data.get('receipts', 0)} receipts, revenue {money(data.get('revenue', 0), currency)}, "
        f"{data.get('unitsSold', 0)} units sold"
    )
    top = data.get("topSellers") or []
    if top:
        line += "; top sellers: " + ", ".join(f"{s['item']} {s['units']}" for s in top[:3])
    return line


def _reconcile(data: Mapping[str, Any]) -> str:
    currency = data.get("currency", "USD")
    line = f"day closed: {data.get('receipts', 0)} receipts, revenue {money(data.get('revenue', 0), currency)}; "
    low = data.get("lowItems") or []
    if not low:
        return line + "0 low: nothing is at or below its reorder point"
    return line + f"{len(low)} low: " + ", ".join(f"{i['item']} {i['stock']} (suggest {i['suggestedQty']})" for i in low)


def _reorder(data: Mapping[str, Any]) -> str:
    currency = data.get("currency", "USD")
    lines = ", ".join(f"{line['item']} x{line['qty']}" for line in data.get("lines", []))
    if data.get("confirmed") and "orderId" in data:
        return f"order {data['orderId']} placed: {lines}; total {money(data.get('total'), currency)} from {data.get('supplier')}"
    return (
        f"draft {data.get('status', 'pending')}: {lines}; "
        f"estimated total {money(data.get('estimatedTotal'), currency)} from {data.get('supplier')}"
    )


def _update(data: Mapping[str, Any]) -> str:
    line = f"{data.get('item')}: stock {data.get('previousStock')} -> {data.get('stock')}"
    if data.get("isLow"):
        line += f" (low, reorder at {data.get('reorderPoint')})"
    return line


def _report(data: Mapping[str, Any]) -> str:
    return f"{data.get('report', 'the')} report sent to {data.get('to')}"


def _client(tool: str, data: Mapping[str, Any]) -> str:
    if tool == "play_demo_video":
        return f"playing: {data.get('playing')}"
    if tool == "play_audio_guide":
        return f"playing guide: {data.get('playing')}"
    return f"answer: {data.get('answer', '')}"


_RENDER = {
    "get_inventory": _inventory,
    "get_todays_transactions": _sales,
    "reconcile_inventory": _reconcile,
    "place_reorder": _reorder,
    "update_inventory": _update,
    "send_inventory_report": _report,
    "send_sales_report": _report,
}


def result_line(tool: str, data: Mapping[str, Any] | None, ok: bool = True, message: str = "") -> str:
    """The text of a ``### Result:`` line (without the tag) for one tool result.

    ``data`` is ``ToolResult.data`` (or a client tool's data), ``ok`` and ``message`` are the
    result's; a failure becomes ``not carried: <words>`` or ``error: <message>``. Always one line,
    at most ``protocol.RESULT_LIMIT`` characters
    (``LIST_RESULT_LIMIT`` for lists, day closes and drafts).
    """
    data = data or {}
    if not ok:
        words = not_found_words(data, message)
        if words is not None:
            return one_line(f"not carried: {words}")
        return one_line(f"error: {message or data.get('message') or data.get('error') or 'the call failed'}")
    render = _RENDER.get(tool)
    if render is not None:
        text = render(data)
        if tool in _LISTS or (tool == "get_inventory" and "products" in data):
            return one_line(text, LIST_RESULT_LIMIT)
    elif tool in ("play_demo_video", "play_audio_guide", "ask_general"):
        text = _client(tool, data)
    else:
        text = "done"
    return one_line(text)


def complete_arguments(name: str, arguments: Mapping[str, Any], *, store: Any) -> dict[str, Any]:
    """The call's arguments with what code owns filled in from the ledger, before the call runs.

    - ``place_reorder``: ``confirmed`` is always false (a model cannot approve); an item without
      ``qty`` gets the product's suggested reorder quantity (``ledger.stock_velocity``), or the
      par level when that is not positive. An item the store lacks is left as is (the tool says so).
    - ``update_inventory``: ``expectedStock`` is the ledger's current count of the product.

    The model writes ``{"item", "stock"}`` for counts and ``{"items": [{"item"}...]}`` (with
    ``qty`` only when the owner said a number) for named restocks; this fills the rest.
    """
    from ledger import selectors
    from ledger.stock_velocity import reorder_suggestions
    from tenants.context import use_store

    args = dict(arguments)

    def product(text: Any):
        # The tool's own rule for writes: an exact name, else the one fuzzy match (several: none).
        if not isinstance(text, str) or not text.strip():
            return None
        with use_store(store):
            exact = selectors.product_by_name(store=store, name=text)
            if exact is not None:
                return exact
            found = selectors.product_match(store=store, text=text, limit=5)
        return found[0] if len(found) == 1 else None

    if name == "place_reorder":
        args["confirmed"] = False
        args.pop("draftId", None)
        if isinstance(args.get("items"), list):
            filled = []
            for line in args["items"]:
                line = dict(line) if isinstance(line, Mapping) else line
                if isinstance(line, dict) and "qty" not in line:
                    found = product(line.get("item"))
                    if found is not None:
                        with use_store(store):
                            qty = reorder_suggestions(store=store, products=[found])[found.pk].qty
                        line["qty"] = qty if qty > 0 else max(found.par_level, 1)
                filled.append(line)
            args["items"] = filled
    elif name == "update_inventory" and "expectedStock" not in args:
        found = product(args.get("item"))
        if found is not None:
            args["expectedStock"] = found.stock
    return args
