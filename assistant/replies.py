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


SPOKEN_ALERTS = 3


def _alert_clause(alert: Mapping[str, Any]) -> str:
    """An alert as said now: a stock alert with its product's count now (``get_alerts``' stockNow)."""
    if alert.get("kind") == "low_stock" and alert.get("product") and alert.get("stockNow") is not None:
        return f"{alert['product']} is down to {alert['stockNow']}."
    return str(alert.get("message") or "An alert.")


def alerts_open(result: Mapping[str, Any], low: list[Mapping[str, Any]] | None = None) -> str:
    """The open alerts that still hold, newest first, at most three said (a ``get_alerts`` result).

    With none that holds, ``low`` (``get_inventory``'s low products) is said instead of "all is well":
    a product can sit under its reorder point with its alert acknowledged, or from before alerts ran.
    """
    listed = list(result.get("alerts", []))
    holding = [alert for alert in listed if alert.get("stillHolds", True)]
    stale = len(listed) - len(holding)
    if not holding:
        head = "No open alerts"
        if stale:
            one = stale == 1
            head = (f"No open alert holds now: {stale} {'was' if one else 'were'} restocked since (say \"clear the "
                    f"alerts\" to put {'it' if one else 'them'} away)")
        if low:
            return f"{head}. But {low_items(low)}"
        return f"{head}, and nothing is at or below its reorder point."
    total = max(int(result.get("count", len(listed))) - stale, len(holding))
    said = holding[:SPOKEN_ALERTS]
    head = "One open alert: " if total == 1 else f"{total} open alerts: "
    tail = f" And {total - len(said)} more on the alerts page." if total > len(said) else ""
    return head + " ".join(_alert_clause(alert) for alert in said) + tail


def alerts_dismissed(names: list[str], count: int) -> str:
    """What was acknowledged: "Done: the Mustard oil alert is put away." / "Done: 3 alerts put away."."""
    if count == 1 and names:
        return f"Done: the {names[0]} alert is put away."
    return f"Done: {count} {'alert' if count == 1 else 'alerts'} put away."


def reorder_why(name: str, reason: str) -> str:
    """A suggestion's reason said about the product: "Toor dal: sells about 3 a day, 2 days left; ..."."""
    reason = reason.strip()
    return f"{name}: {reason[:1].lower()}{reason[1:]}" if reason else ""


def draft_offer(draft: Mapping[str, Any], *, why: str = "") -> str:
    """The draft read back; ``why`` (a suggestion's reason, from a tool result) goes before the question."""
    currency = draft.get("currency", "USD")
    lines = [f"{line['qty']} {line['item']}" for line in draft["lines"]]
    total = money(draft["estimatedTotal"], currency)
    supplier = f" from {draft['supplier']}" if draft.get("supplier") else ""
    because = f"{why} " if why else ""
    return (
        f"I've drafted an order for {join(lines)}, about {total}{supplier}. {because}"
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
    return f"The {result['report']} report is on its way to {result['to']}."


# ---------------------------------------------------------------------------------------------
# Sales over periods (get_sales results)

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _date(iso: str, *, weekday: bool = False, year: bool = False) -> str:
    import datetime as dt

    day = dt.date.fromisoformat(iso)
    text = f"{day.day} {_MONTHS[day.month - 1]}" + (f" {day.year}" if year else "")
    return f"{_DAYS[day.weekday()]} {text}" if weekday else text


def period_dates(period: Mapping[str, Any]) -> str:
    """"Tue 1 Dec", "23–29 Nov", "30 Nov–2 Dec", "1 Dec 2025–2 Dec 2026"."""
    first, last = period["from"], period["to"]
    years = first[:4] != last[:4]
    if first == last:
        return _date(first, weekday=True)
    if first[:7] == last[:7]:
        return f"{int(first[8:])}–{_date(last)}"
    return f"{_date(first, year=years)}–{_date(last, year=years)}"


def _period_name(period: Mapping[str, Any], *, capital: bool = True) -> str:
    """The period's label with its dates, unless the label already is the dates ("October")."""
    label = period["label"]
    months = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December")
    plain = label.split(" ")[0] in months or label.split(" ")[0] in ("Monday", "Tuesday", "Wednesday", "Thursday",
                                                                     "Friday", "Saturday", "Sunday")
    text = label if plain else f"{label} ({period_dates(period)})"
    return text[:1].upper() + text[1:] if capital else text


def _totals(data: Mapping[str, Any], currency: str) -> str:
    receipts = data["receipts"]
    if not receipts and Decimal(str(data["revenue"])) == 0:
        return "no sales recorded"
    text = (f"{receipts} receipt{'s' if receipts != 1 else ''}, {money(data['revenue'], currency)} in sales, "
            f"{data['unitsSold']} item{'s' if data['unitsSold'] != 1 else ''} sold")
    if data.get("averageBasket") is not None:
        text += f", average basket {money(data['averageBasket'], currency)}"
    return text


def _focus(data: Mapping[str, Any], currency: str) -> str:
    focus = data["focus"]
    if data.get("category"):
        return f"{focus['name']} sold {focus['units']} item{'s' if focus['units'] != 1 else ''} for {money(focus['revenue'], currency)}"
    if not focus["units"]:
        return f"no {focus['name']} sold"
    return f"we sold {focus['units']} {focus['name']} for {money(focus['revenue'], currency)}"


def _rows(data: Mapping[str, Any], currency: str, *, sort: str, by: str) -> str:
    rows = data.get("rows") or []
    if not rows:
        return "nothing sold"
    if by == "category":
        return "by category: " + join([f"{row['name']} {money(row['revenue'], currency)}" for row in rows])
    parts = [f"{row['name']} ({row['units'] or 'none'})" for row in rows]
    return ("slowest: " if sort == "worst" else "best sellers: ") + join(parts)


def _direction(change: Mapping[str, Any] | None, currency: str | None, *, noun: str = "") -> str:
    if not change:
        return ""
    delta = Decimal(str(change["delta"]))
    if delta == 0:
        return "the same"
    amount = money(abs(delta), currency) if currency else f"{abs(delta)}{noun}"
    percent = f" ({abs(change['percent']):g}%)" if change.get("percent") is not None else ""
    return f"{'up' if delta > 0 else 'down'} {amount}{percent}"


def _comparison(data: Mapping[str, Any], currency: str, *, basket: bool) -> str:
    other = data["comparison"]
    change = other["change"]
    them = _period_name(other["period"], capital=False)
    if "focus" in data and "focus" in other:
        then, focus = other["focus"], data["focus"]["name"]
        moved = _direction(change.get("focusUnits"), None)
        said = f"{then['units']} {focus} for {money(then['revenue'], currency)}" if then["units"] else f"no {focus}"
        return f"{them}: {said}, so {moved}." if moved != "the same" else f"{them}: {said}, the same."
    if basket:
        if other.get("averageBasket") is None:
            return f"{them}: no sales recorded."
        return (f"{them}: {money(other['averageBasket'], currency)} over {other['receipts']} receipts, "
                f"{_direction(change.get('averageBasket'), currency)}.")
    same_length = (data["period"]["days"] == other["period"]["days"] or other["period"].get("trimmed")
                   or data["period"].get("unit") and data["period"].get("unit") == other["period"].get("unit"))
    if not same_length:
        return (f"{them}: {money(other['revenuePerDay'], currency)} a day against "
                f"{money(data['revenuePerDay'], currency)} a day, {_direction(change.get('revenuePerDay'), currency)}.")
    return f"{them}: {_totals(other, currency)}. Sales are {_direction(change.get('revenue'), currency)}."


def sales_period(data: Mapping[str, Any], *, sort: str = "best", by: str | None = None, basket: bool = False) -> str:
    """A get_sales result as a sentence or three; every number is the result's."""
    currency = data.get("currency", "USD")
    name = _period_name(data["period"])
    if "focus" in data:
        sentence = f"{name}, {_focus(data, currency)}."
    elif by:
        sentence = f"{name}, {_rows(data, currency, sort=sort, by=by)}."
    elif basket and data.get("averageBasket") is not None:
        sentence = (f"{name}, the average basket was {money(data['averageBasket'], currency)} over "
                    f"{data['receipts']} receipts.")
    else:
        sentence = f"{name}: {_totals(data, currency)}."
    if "comparison" in data:
        other = _comparison(data, currency, basket=basket)
        sentence += " " + other[:1].upper() + other[1:]
    return sentence
