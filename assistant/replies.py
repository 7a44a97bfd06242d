"""Spoken replies built from tool results: every number said comes from a result, never a model."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from assistant import sentences
from assistant.sentences import say

_IRREGULAR = {"box": "boxes", "pouch": "pouches", "dozen": "dozen", "piece": "pieces"}


def join(items: Iterable[str], word: str | None = None) -> str:
    """"a", "a and b", "a, b and c" (``word``: another joining word, "or")."""
    word = word or say(sentences.AND)
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
    return say(sentences.PRODUCT_WHERE, name=product["name"], location=product["location"], note=note)


def product_count(product: Mapping[str, Any]) -> str:
    stock = product["stock"]
    unit = container(product["unit"], stock)
    sentence = say(sentences.PRODUCT_COUNT, stock=stock, unit=unit, name=product["name"])
    if stock == 0:
        return say(sentences.PRODUCT_OUT, name=product["name"])
    if product.get("isLow"):
        sentence += say(sentences.PRODUCT_LOW, reorder_point=product["reorderPoint"])
    return sentence


def product_price(product: Mapping[str, Any], currency: str) -> str:
    return say(sentences.PRODUCT_PRICE, name=product["name"], price=money(product["price"], currency),
               unit=product["unit"])


def product_available(product: Mapping[str, Any]) -> str:
    stock = product["stock"]
    if stock == 0:
        return say(sentences.PRODUCT_NOT_AVAILABLE, name=product["name"])
    return say(sentences.PRODUCT_AVAILABLE, name=product["name"], stock=stock, unit=container(product["unit"], stock),
               location=product["location"])


def product_answer(product: Mapping[str, Any], ask: str, currency: str) -> str:
    if ask == "count":
        return product_count(product)
    if ask == "price":
        return product_price(product, currency)
    if ask == "available":
        return product_available(product)
    return product_where(product)


def not_carried(words: str) -> str:
    return say(sentences.NOT_CARRIED, words=words)


def product_list(products: list[Mapping[str, Any]], *, group: str | None = None) -> str:
    names = [product["name"] for product in products]
    if not names:
        return say(sentences.GROUP_EMPTY, group=group) if group else say(sentences.NO_PRODUCTS)
    if group:
        return say(sentences.GROUP_LIST, group=group, count=len(names), names=join(names))
    return say(sentences.PRODUCT_LIST, count=len(names), names=join(names))


def low_items(items: list[Mapping[str, Any]]) -> str:
    if not items:
        return say(sentences.NOTHING_LOW_NOW)
    parts = [say(sentences.ITEM_LEFT, name=item["name"], stock=item["stock"]) for item in items]
    return say(sentences.ONE_LOW if len(parts) == 1 else sentences.MANY_LOW, count=len(parts), items=join(parts))


def sales_today(result: Mapping[str, Any]) -> str:
    currency = result.get("currency", "USD")
    top = [seller["item"] for seller in result.get("topSellers", [])[:3]]
    sentence = say(sentences.SALES_TODAY, receipts=result["receipts"], revenue=money(result["revenue"], currency),
                   units=result["unitsSold"])
    if top:
        sentence += say(sentences.TOP_SELLERS, names=join(top))
    return sentence


def store_health(reconciliation: Mapping[str, Any]) -> str:
    currency = reconciliation.get("currency", "USD")
    low = reconciliation.get("lowItems", [])
    sentence = say(sentences.BOOKS_CLOSED, receipts=reconciliation["receipts"],
                   revenue=money(reconciliation["revenue"], currency))
    if low:
        names = [say(sentences.ITEM_LEFT, name=item["item"], stock=item["stock"]) for item in low]
        one = len(low) == 1
        sentence += say(sentences.ONE_NEEDS_REORDER if one else sentences.MANY_NEED_REORDER, count=len(low),
                        items=join(names))
    else:
        sentence += say(sentences.NOTHING_LOW)
    return sentence


SPOKEN_ALERTS = 3


def _alert_clause(alert: Mapping[str, Any]) -> str:
    """An alert as said now: a stock alert with its product's count now (``get_alerts``' stockNow)."""
    if alert.get("kind") == "low_stock" and alert.get("product") and alert.get("stockNow") is not None:
        return say(sentences.ALERT_DOWN_TO, product=alert["product"], stock=alert["stockNow"])
    return str(alert.get("message") or say(sentences.AN_ALERT))


def alerts_open(result: Mapping[str, Any], low: list[Mapping[str, Any]] | None = None) -> str:
    """The open alerts that still hold, newest first, at most three said (a ``get_alerts`` result).

    With none that holds, ``low`` (``get_inventory``'s low products) is said instead of "all is well":
    a product can sit under its reorder point with its alert acknowledged, or from before alerts ran.
    """
    listed = list(result.get("alerts", []))
    holding = [alert for alert in listed if alert.get("stillHolds", True)]
    stale = len(listed) - len(holding)
    if not holding:
        head = say(sentences.NO_OPEN_ALERTS)
        if stale:
            head = say(sentences.NO_ALERT_HOLDS_ONE if stale == 1 else sentences.NO_ALERT_HOLDS_MANY, count=stale)
        if low:
            return say(sentences.ALERTS_BUT_LOW, head=head, low=low_items(low))
        return say(sentences.ALERTS_AND_NOTHING_LOW, head=head)
    total = max(int(result.get("count", len(listed))) - stale, len(holding))
    said = holding[:SPOKEN_ALERTS]
    head = say(sentences.ONE_OPEN_ALERT) if total == 1 else say(sentences.OPEN_ALERTS, count=total)
    tail = say(sentences.MORE_ALERTS, count=total - len(said)) if total > len(said) else ""
    return head + " ".join(_alert_clause(alert) for alert in said) + tail


def alerts_dismissed(names: list[str], count: int) -> str:
    """What was acknowledged: "Done: the Mustard oil alert is put away." / "Done: 3 alerts put away."."""
    if count == 1 and names:
        return say(sentences.ALERT_PUT_AWAY, name=names[0])
    return say(sentences.ONE_ALERT_PUT_AWAY if count == 1 else sentences.ALERTS_PUT_AWAY, count=count)


def reorder_why(name: str, reason: str) -> str:
    """A suggestion's reason said about the product: "Toor dal: sells about 3 a day, 2 days left; ..."."""
    reason = reason.strip()
    return f"{name}: {reason[:1].lower()}{reason[1:]}" if reason else ""


def draft_offer(draft: Mapping[str, Any], *, why: str = "") -> str:
    """The draft read back; ``why`` (a suggestion's reason, from a tool result) goes before the question."""
    currency = draft.get("currency", "USD")
    lines = [f"{line['qty']} {line['item']}" for line in draft["lines"]]
    total = money(draft["estimatedTotal"], currency)
    supplier = say(sentences.DRAFT_FROM, supplier=draft["supplier"]) if draft.get("supplier") else ""
    because = f"{why} " if why else ""
    return say(sentences.DRAFT_OFFER, lines=join(lines), total=total, supplier=supplier, why=because)


def order_placed(order: Mapping[str, Any]) -> str:
    currency = order.get("currency", "USD")
    lines = [f"{line['qty']} {line['item']}" for line in order["lines"]]
    supplier = say(sentences.ORDER_WITH, supplier=order["supplier"]) if order.get("supplier") else ""
    return say(sentences.ORDER_PLACED, lines=join(lines), supplier=supplier, total=money(order["total"], currency))


def count_updated(result: Mapping[str, Any]) -> str:
    return say(sentences.COUNT_UPDATED, item=result["item"], stock=result["stock"], previous=result["previousStock"])


def report_sent(result: Mapping[str, Any]) -> str:
    return say(sentences.REPORT_SENT, report=result["report"], to=result["to"])


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
        return say(sentences.NO_SALES_RECORDED)
    units = data["unitsSold"]
    counted = say(sentences.ONE_RECEIPT if receipts == 1 else sentences.RECEIPTS, count=receipts)
    text = say(sentences.TOTALS, receipts=counted, revenue=money(data["revenue"], currency),
               sold=say(sentences.ONE_ITEM_SOLD if units == 1 else sentences.ITEMS_SOLD, count=units))
    if data.get("averageBasket") is not None:
        text += say(sentences.AVERAGE_BASKET, amount=money(data["averageBasket"], currency))
    return text


def _focus(data: Mapping[str, Any], currency: str) -> str:
    focus = data["focus"]
    if data.get("category"):
        one = focus["units"] == 1
        return say(sentences.CATEGORY_ONE_SOLD if one else sentences.CATEGORY_SOLD, name=focus["name"],
                   units=focus["units"], revenue=money(focus["revenue"], currency))
    if not focus["units"]:
        return say(sentences.NONE_SOLD, name=focus["name"])
    return say(sentences.WE_SOLD, units=focus["units"], name=focus["name"], revenue=money(focus["revenue"], currency))


def _rows(data: Mapping[str, Any], currency: str, *, sort: str, by: str) -> str:
    rows = data.get("rows") or []
    if not rows:
        return say(sentences.NOTHING_SOLD)
    if by == "category":
        return say(sentences.BY_CATEGORY,
                   rows=join([f"{row['name']} {money(row['revenue'], currency)}" for row in rows]))
    parts = [f"{row['name']} ({row['units'] or say(sentences.NONE)})" for row in rows]
    return say(sentences.SLOWEST if sort == "worst" else sentences.BEST_SELLERS, rows=join(parts))


def _direction(change: Mapping[str, Any] | None, currency: str | None, *, noun: str = "") -> str:
    if not change:
        return ""
    delta = Decimal(str(change["delta"]))
    if delta == 0:
        return say(sentences.THE_SAME)
    amount = money(abs(delta), currency) if currency else f"{abs(delta)}{noun}"
    percent = f" ({abs(change['percent']):g}%)" if change.get("percent") is not None else ""
    return say(sentences.UP if delta > 0 else sentences.DOWN, amount=amount, percent=percent)


def _comparison(data: Mapping[str, Any], currency: str, *, basket: bool) -> str:
    other = data["comparison"]
    change = other["change"]
    them = _period_name(other["period"], capital=False)
    if "focus" in data and "focus" in other:
        then, focus = other["focus"], data["focus"]["name"]
        moved = _direction(change.get("focusUnits"), None)
        said = (say(sentences.FOCUS_THEN, units=then["units"], name=focus, revenue=money(then["revenue"], currency))
                if then["units"] else say(sentences.NO_FOCUS, name=focus))
        if moved == say(sentences.THE_SAME):
            return say(sentences.THEN_SAME, then=them, said=said)
        return say(sentences.THEN_MOVED, then=them, said=said, moved=moved)
    if basket:
        if other.get("averageBasket") is None:
            return say(sentences.THEN_NO_SALES, then=them)
        return say(sentences.THEN_BASKET, then=them, amount=money(other["averageBasket"], currency),
                   receipts=other["receipts"], direction=_direction(change.get("averageBasket"), currency))
    same_length = (data["period"]["days"] == other["period"]["days"] or other["period"].get("trimmed")
                   or data["period"].get("unit") and data["period"].get("unit") == other["period"].get("unit"))
    if not same_length:
        return say(sentences.THEN_PER_DAY, then=them, theirs=money(other["revenuePerDay"], currency),
                   ours=money(data["revenuePerDay"], currency),
                   direction=_direction(change.get("revenuePerDay"), currency))
    return say(sentences.THEN_TOTALS, then=them, totals=_totals(other, currency),
               direction=_direction(change.get("revenue"), currency))


def sales_period(data: Mapping[str, Any], *, sort: str = "best", by: str | None = None, basket: bool = False) -> str:
    """A get_sales result as a sentence or three; every number is the result's."""
    currency = data.get("currency", "USD")
    name = _period_name(data["period"])
    if "focus" in data:
        sentence = say(sentences.PERIOD_FOCUS, period=name, focus=_focus(data, currency))
    elif by:
        sentence = say(sentences.PERIOD_ROWS, period=name, rows=_rows(data, currency, sort=sort, by=by))
    elif basket and data.get("averageBasket") is not None:
        sentence = say(sentences.PERIOD_BASKET, period=name, amount=money(data["averageBasket"], currency),
                       receipts=data["receipts"])
    else:
        sentence = say(sentences.PERIOD_TOTALS, period=name, totals=_totals(data, currency))
    if "comparison" in data:
        other = _comparison(data, currency, basket=basket)
        sentence += " " + other[:1].upper() + other[1:]
    return sentence
