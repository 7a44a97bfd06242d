"""The business actions as fixed sequences of MCP tool calls, and replies built from their results.

The router (and any mode that names an action) decides *which* action and *which words*; the
code here grounds the words in the catalog, reads quantities and expected counts from the
ledger, calls the tools through the gateway, and speaks only numbers that came back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assistant import replies, sentences
from assistant.grounding import Grounding
from assistant.modes.base import ModeOutcome, TurnContext
from assistant.sentences import say
from assistant.types import Outcome

CLARIFY_PRODUCT = sentences.CLARIFY_PRODUCT
_ALL_LOW = re.compile(r"\b(all|everything|every|low|whatever|anything)\b")


@dataclass(frozen=True)
class Decision:
    """What a mode decided: the action and the owner's words for its arguments (never trusted as facts)."""

    action: str
    item: str | None = None
    ask: str | None = None
    topic: str | None = None
    kind: str | None = None


def _ground(ctx: TurnContext, decision: Decision) -> Grounding:
    return ctx.ground(last_product=ctx.state.last_product or None, hint=decision.item)


def _failure(ctx: TurnContext, result, action: str) -> ModeOutcome:
    """A tool call that did not go through: say what happened, claim nothing."""
    refused = result.outcome == "refused"
    return ModeOutcome(
        action=action,
        reply=("I didn't change anything: " if refused else "Sorry, that didn't work: ") + result.message,
        outcome=Outcome.REFUSED if refused else Outcome.ERROR,
    )


_WHERE = re.compile(r"\b(where|whereabouts|which (aisle|shelf|row|rack|side|section)|find|locat(e|ion)|kept|keep|"
                    r"aisle|shelf|picture|photo|show me|point me)\b")


def ask_read(text: str) -> str | None:
    """What the words ask about a product (count, price, available, where), or None when they say none of it."""
    lowered = text.lower()
    if re.search(r"\b(how (many|much stock)|count|left|in stock)\b", lowered):
        return "count"
    if re.search(r"\b(price|cost|how much)\b", lowered):
        return "price"
    if re.search(r"\b(do we (have|carry|sell)|any)\b", lowered):
        return "available"
    return "where" if _WHERE.search(lowered) else None


def _ask_for(decision: Decision, text: str) -> str:
    return decision.ask or ask_read(text) or "where"


def _photo(product: dict[str, Any]):
    from assistant.media.library import MediaItem

    return MediaItem(kind="photo", url=product["photoUrl"], title=f"{product['name']}: {product['location']}")


def find_product(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    grounding = _ground(ctx, decision)
    if grounding.products:
        ask = _ask_for(decision, ctx.words.text)
        sentences, media, last = [], [], None
        for ref in grounding.products[:3]:
            result = ctx.call_tool("get_inventory", {"item": ref.name})
            if not result.ok:
                return _failure(ctx, result, "find_product")
            product = result.data["product"]
            sentences.append(replies.product_answer(product, ask, result.data.get("currency", "USD")))
            last = product["name"]
            if len(grounding.products) == 1 and product.get("photoUrl"):
                media.append(_photo(product))
        return ModeOutcome(action="find_product", reply=" ".join(sentences), media=media, last_product=last)
    if grounding.group:
        return list_products(ctx, decision, grounding=grounding)
    if grounding.unknown:
        result = ctx.call_tool("get_inventory", {"item": grounding.unknown})
        if result.ok:  # the gateway's own matching found it after all: answer from the result
            product = result.data["product"]
            return ModeOutcome(
                action="find_product",
                reply=replies.product_answer(product, _ask_for(decision, ctx.words.text), result.data["currency"]),
                last_product=product["name"],
            )
        return ModeOutcome(action="find_product", reply=replies.not_carried(grounding.unknown))
    return ModeOutcome(action="find_product", reply=say(CLARIFY_PRODUCT), outcome=Outcome.CLARIFIED)


def list_products(ctx: TurnContext, decision: Decision, *, grounding: Grounding | None = None) -> ModeOutcome:
    grounding = grounding or _ground(ctx, decision)
    result = ctx.call_tool("get_inventory", {"filter": "all"})
    if not result.ok:
        return _failure(ctx, result, "list_products")
    products = result.data["products"]
    if grounding.group:
        group = [product for product in products if product["category"] == grounding.group]
        return ModeOutcome(action="list_products", reply=replies.product_list(group, group=grounding.group))
    return ModeOutcome(action="list_products", reply=replies.product_list(products))


def todays_sales(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    result = ctx.call_tool("get_todays_transactions", {})
    if not result.ok:
        return _failure(ctx, result, "todays_sales")
    return ModeOutcome(action="todays_sales", reply=replies.sales_today(result.data))


_BEST = re.compile(r"\b(best|top|most|biggest|popular|hot|fastest)\b")
_WORST = re.compile(r"\b(worst|least|slow(est|ly)?|bottom|not selling|n't selling|didn't sell|hasn't|haven't|weakest)\b")
_BY_CATEGORY = re.compile(r"\b(categor(y|ies)|departments?|by group)\b")
_BASKET = re.compile(r"\b(average|basket|order value|per (customer|receipt|order|sale)|spend per)\b")


def sales_period(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    """Sales for a period the owner named (or today), one product's or group's, ranked, or compared.

    The period words are found in code (``ledger.periods``) and passed to ``get_sales`` as said; the
    reply is built from the result, so every number comes from the books.
    """
    from ledger.periods import Found, PeriodError, periods_find, store_now
    from ledger.selectors import store_tz

    text = ctx.words.text
    try:
        found = periods_find(text, now=store_now(store_tz(ctx.store))) or Found("today")
    except PeriodError as exc:
        return ModeOutcome(action="sales_period", reply=exc.message, outcome=Outcome.CLARIFIED)
    arguments: dict[str, Any] = {"period": found.period}
    if found.compare:
        arguments["compareTo"] = found.compare
    grounding = _ground(ctx, decision)
    lowered = text.lower()
    sort, by = "best", None
    if grounding.products:
        arguments["item"] = grounding.products[0].name
    else:
        if grounding.group:
            arguments["category"] = grounding.group
        if _BY_CATEGORY.search(lowered) and not grounding.group:
            by = "category"
        elif _WORST.search(lowered) or _BEST.search(lowered):
            by, sort = "product", "worst" if _WORST.search(lowered) else "best"
    if by:
        arguments.update({"groupBy": by, "sort": sort, "limit": 3 if by == "product" else 5})
    result = ctx.call_tool("get_sales", arguments)
    if not result.ok:
        return _failure(ctx, result, "sales_period")
    reply = replies.sales_period(result.data, sort=sort, by=by, basket=bool(_BASKET.search(lowered)))
    last = grounding.products[0].name if grounding.products else None
    return ModeOutcome(action="sales_period", reply=reply, last_product=last)


def store_health(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    result = ctx.call_tool("reconcile_inventory", {})
    if not result.ok:
        return _failure(ctx, result, "store_health")
    return ModeOutcome(action="store_health", reply=replies.store_health(result.data))


def alerts(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    """The store's open alerts (``get_alerts``), said from the result (with none open, the low-stock list);
    when the owner says they are dealt with ("clear the alerts", "dismiss the mustard oil alert"), those named, or all open ones, are
    acknowledged one by one through ``dismiss_alert`` (the policy checks the same words)."""
    from assistant.policy import OwnerWords

    dismiss = OwnerWords(text=ctx.words.text, numbers=ctx.words.numbers).asks_acknowledge
    result = ctx.call_tool("get_alerts", {"limit": 50 if dismiss else 20})
    if not result.ok:
        return _failure(ctx, result, "alerts")
    if not dismiss:
        holding = [alert for alert in result.data.get("alerts", []) if alert.get("stillHolds", True)]
        low = None
        if not holding:  # nothing flagged: what is low is still worth saying, from the ledger
            stock = ctx.call_tool("get_inventory", {"filter": "low"})
            low = stock.data.get("products", []) if stock.ok else None
        return ModeOutcome(action="alerts", reply=replies.alerts_open(result.data, low))
    listed = result.data.get("alerts", [])
    grounding = _ground(ctx, decision)
    names = [ref.name for ref in grounding.products]
    chosen = [alert for alert in listed if alert.get("product") in names] if names else listed
    if not chosen:
        reply = (say(sentences.NO_ALERT_ABOUT, names=replies.join(names, say(sentences.OR))) if names
                 else say(sentences.NO_ALERTS_TO_PUT_AWAY))
        return ModeOutcome(action="alerts", reply=reply, last_product=names[0] if names else None)
    for alert in chosen:
        done = ctx.call_tool("dismiss_alert", {"alertId": alert["alertId"]})
        if not done.ok:
            return _failure(ctx, done, "alerts")
    # Named: the products whose alerts were put away, not every product the owner named.
    put_away = [alert["product"] for alert in chosen if alert.get("product")] if names else []
    return ModeOutcome(action="alerts", reply=replies.alerts_dismissed(put_away, len(chosen)),
                       last_product=names[0] if names else None)


def low_stock(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    result = ctx.call_tool("get_inventory", {"filter": "low"})
    if not result.ok:
        return _failure(ctx, result, "low_stock")
    return ModeOutcome(action="low_stock", reply=replies.low_items(result.data["products"]))


def draft_restock(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    """All low items, or the named ones: quantity as said, else the ledger's suggestion (said with its reason)."""
    grounding = _ground(ctx, decision)
    items: list[dict[str, Any]] | None = None
    why = ""
    if grounding.products:
        numbers = list(ctx.words.numbers)
        items = []
        for ref in grounding.products:
            if len(grounding.products) == 1 and len(numbers) == 1:
                qty = numbers[0]
            else:
                lookup = ctx.call_tool("get_inventory", {"item": ref.name})
                if not lookup.ok:
                    return _failure(ctx, lookup, "draft_restock")
                qty = lookup.data["product"]["suggestedReorderQty"]
                if qty <= 0:
                    qty = lookup.data["product"]["parLevel"] or 1
                elif len(grounding.products) == 1:
                    why = replies.reorder_why(ref.name, lookup.data["product"].get("reorderReason", ""))
            items.append({"item": ref.name, "qty": qty})
    elif grounding.unknown and decision.item and not _ALL_LOW.search(ctx.words.text):
        # the owner named something the store lacks ("all the low stuff" is not a product)
        return ModeOutcome(action="draft_restock", reply=replies.not_carried(grounding.unknown))
    else:
        # Restocking all low items needs today's numbers: close the day first.
        reconciled = ctx.call_tool("reconcile_inventory", {})
        if not reconciled.ok:
            return _failure(ctx, reconciled, "draft_restock")
        if not reconciled.data["lowItems"]:
            return ModeOutcome(action="draft_restock", reply=say(sentences.NOTHING_TO_REORDER))
    arguments: dict[str, Any] = {"confirmed": False}
    if items is not None:
        arguments["items"] = items
    result = ctx.call_tool("place_reorder", arguments)
    if not result.ok:
        return _failure(ctx, result, "draft_restock")
    last = items[0]["item"] if items and len(items) == 1 else None
    return ModeOutcome(
        action="draft_restock",
        reply=replies.draft_offer(result.data, why=why),
        offered_draft_id=result.data["draftId"],
        last_product=last,
    )


def update_count(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    """The owner's number, with the expected count read from the ledger just before (compare-and-set)."""
    grounding = _ground(ctx, decision)
    if not grounding.products:
        if grounding.unknown:
            return ModeOutcome(action="update_count", reply=replies.not_carried(grounding.unknown))
        return ModeOutcome(action="update_count", reply=say(CLARIFY_PRODUCT), outcome=Outcome.CLARIFIED)
    numbers = ctx.words.numbers
    if len(numbers) != 1:
        reply = say(sentences.WHICH_NUMBER_IS_COUNT if numbers else sentences.WHAT_NEW_COUNT)
        return ModeOutcome(action="update_count", reply=reply, outcome=Outcome.CLARIFIED)
    name = grounding.products[0].name
    lookup = ctx.call_tool("get_inventory", {"item": name})
    if not lookup.ok:
        return _failure(ctx, lookup, "update_count")
    current = lookup.data["product"]["stock"]
    result = ctx.call_tool("update_inventory", {"item": name, "stock": numbers[0], "expectedStock": current})
    if not result.ok:
        return _failure(ctx, result, "update_count")
    return ModeOutcome(action="update_count", reply=replies.count_updated(result.data), last_product=name)


def play_demo(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    from assistant.media.library import demo_media

    media = demo_media()
    ctx.simulator_call("play_demo", {}, {"playing": media.title})
    return ModeOutcome(action="play_demo", reply=say(sentences.HERE_IS, title=media.title), media=[media])


def play_guide(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    """A guide of the store's own pack when it brings guides (grocery's are the media library's)."""
    from assistant.media.library import guide_media, guide_pick
    from assistant.media.pack_guides import pack_guide_media, pack_guides
    from packs.source import store_pack_key

    own = pack_guides(store_pack_key(ctx.store))
    topic = decision.topic or (ctx.state.last_topic if ctx.state.last_action == "play_guide" else None)
    guide = guide_pick(topic=topic, words=ctx.words.text, exclude=ctx.state.played_guides, among=own)
    media = pack_guide_media(guide) if guide.stored else guide_media(guide)
    ctx.simulator_call("play_guide", {"topic": guide.topic}, {"playing": guide.title})
    if media is None:  # no voice to speak it with here: the guide's words are the reply
        words = guide.text if guide.text.startswith(guide.title) else f"{guide.title}. {guide.text}"
        return ModeOutcome(action="play_guide", reply=words, topic=guide.topic, guide=guide.slug)
    return ModeOutcome(
        action="play_guide", reply=say(sentences.HERES_A_GUIDE, title=guide.title), media=[media], topic=guide.topic,
        guide=guide.slug,
    )


def email_report(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    kind = decision.kind or ("sales" if re.search(r"\bsales\b", ctx.words.text.lower()) else "inventory")
    tool = "send_sales_report" if kind == "sales" else "send_inventory_report"
    result = ctx.call_tool(tool, {})
    if not result.ok:
        return _failure(ctx, result, "email_report")
    return ModeOutcome(action="email_report", reply=replies.report_sent(result.data))


def general(ctx: TurnContext, decision: Decision) -> ModeOutcome:
    from assistant.general import SMALL_TALK, general_answer, small_talk_reply
    from assistant.quantities import computed_answer

    if decision.topic in SMALL_TALK:  # only the fast path sets it: a greeting, thanks or a reaction
        return ModeOutcome(action="general", reply=small_talk_reply(decision.topic, ctx.words.text))
    computed = computed_answer(ctx.words.text)
    if computed is not None:  # a conversion or a sum: exact, instant, and written by code (no output guard)
        return ModeOutcome(action="general", reply=computed)
    return ModeOutcome(action="general", reply=general_answer(ctx), model_written=True)


ACTIONS: dict[str, Callable[[TurnContext, Decision], ModeOutcome]] = {
    "general": general,
    "find_product": find_product,
    "list_products": list_products,
    "todays_sales": todays_sales,
    "sales_period": sales_period,
    "store_health": store_health,
    "alerts": alerts,
    "low_stock": low_stock,
    "draft_restock": draft_restock,
    "update_count": update_count,
    "play_demo": play_demo,
    "play_guide": play_guide,
    "email_report": email_report,
}
