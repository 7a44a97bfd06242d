"""The owner tools: ground the model's words in the catalog, call one ledger function, render.

Each handler takes a validated ``ToolCall`` and returns a JSON-ready dict. Domain failures are
raised as ``ledger.errors.LedgerError`` (or ``ToolFailure`` for the gateway's own) and mapped once,
by ``mcp_gateway.execution``. Products are always looked up inside the call's store, so a name
from another store's catalog finds nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from audit.models import Channel
from ledger import selectors, services
from ledger.errors import LedgerError
from ledger.matching import names_for_write
from ledger.models import Product, ReorderDraft, StockEntry
from ledger.services.reports import ReportKind
from ledger.stock_velocity import Suggestion, reorder_suggestions
from mcp_gateway.alert_tools import dismiss_alert, get_alerts
from mcp_gateway.policy import ToolCall
from mcp_gateway.registry import CONFIRM_SCOPE
from mcp_gateway.sales import get_sales


class ToolFailure(LedgerError):
    """A call the gateway cannot carry out as asked (an unknown product, an ambiguous name...)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.code = code


_DRAFT_SOURCE: dict[str, ReorderDraft.Source] = {
    Channel.MCP: ReorderDraft.Source.MCP,
    Channel.ASSISTANT: ReorderDraft.Source.ASSISTANT,
    Channel.ALEXA: ReorderDraft.Source.ASSISTANT,
}
_AWAITING_APPROVAL = _(
    "The draft is pending: it waits for the owner's approval in Shelfwise. Nothing has been ordered yet."
)


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _photo_url(product: Product) -> str | None:
    if not product.photo:
        return None
    url = product.photo.url
    return f"{settings.PUBLIC_URL}{url}" if url.startswith("/") else url


def _product(product: Product, suggestion: Suggestion) -> dict[str, Any]:
    velocity = suggestion.velocity
    return {
        "id": product.pk,
        "sku": product.sku,
        "name": product.name,
        "unit": product.unit,
        "category": product.category,
        "stock": product.stock,
        "parLevel": product.par_level,
        "reorderPoint": product.reorder_point,
        "isLow": product.is_low,
        "suggestedReorderQty": suggestion.qty,
        "reorderReason": suggestion.reason,
        "dailySales": velocity.per_day,
        "daysOfCover": velocity.days_of_cover,
        "salesWindowDays": velocity.window_days,
        "price": _money(product.price),
        "unitCost": _money(product.unit_cost),
        "location": product.location,
        "shelfNote": product.shelf_note,
        "photoUrl": _photo_url(product),
    }


def _candidates(call: ToolCall, text: str) -> list[Product]:
    exact = selectors.product_by_name(store=call.store, name=text)
    if exact is not None:
        return [exact]
    return selectors.product_match(store=call.store, text=text, limit=5)


def _not_found(text: str) -> ToolFailure:
    return ToolFailure(
        "product_not_found",
        _("No product in this store matches '%(text)s'. Ask the owner which product they mean, or call "
          "get_inventory without item to see the list.") % {"text": text},
    )


def _one_product(call: ToolCall, text: str) -> Product:
    """The single product ``text`` names, for a write: an unclear or ambiguous name is refused, never guessed.

    Of the products the words could mean, exactly one must be named by them (``names_for_write``):
    "cocnut milk" writes to Coconut milk though Coconut oil is close; "milk" finds only Coconut milk,
    yet a write to it is refused with the name to confirm.

    Raises:
        ToolFailure: no product matches, or not exactly one of those that do is named.
    """
    found = _candidates(call, text)
    if not found:
        raise _not_found(text)
    named = [product for product in found if names_for_write(text, [product.name, *map(str, product.aliases or ())])]
    if len(named) == 1:
        return named[0]
    names = [product.name for product in found]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + _(" or ") + names[-1]
    raise ToolFailure(
        "ambiguous_product",
        _("'%(text)s' could mean %(names)s. Ask the owner which one, then call again with its exact name.")
        % {"text": text, "names": listed},
        matches=names,
    )


def get_inventory(call: ToolCall) -> dict[str, Any]:
    """One product (the best match for the spoken name, with any other matches) or the low / whole list."""
    args = call.arguments
    currency = call.store.currency
    if args.get("item"):
        found = _candidates(call, args["item"])
        if not found:
            raise _not_found(args["item"])
        suggestion = reorder_suggestions(store=call.store, products=found[:1])[found[0].pk]
        result: dict[str, Any] = {"currency": currency, "product": _product(found[0], suggestion)}
        if len(found) > 1:
            result["otherMatches"] = [product.name for product in found[1:]]
        return result
    low_only = args.get("filter") == "low"
    products = selectors.product_list(store=call.store, low_only=low_only)
    suggestions = reorder_suggestions(store=call.store, products=products)
    return {
        "currency": currency,
        "filter": "low" if low_only else "all",
        "count": len(products),
        "products": [_product(product, suggestions[product.pk]) for product in products],
    }


def get_todays_transactions(call: ToolCall) -> dict[str, Any]:
    """Receipts, revenue, units and top sellers for the store's local today."""
    sales = selectors.sales_today(store=call.store)
    return {
        "date": sales.date.isoformat(),
        "currency": call.store.currency,
        "receipts": sales.receipts,
        "revenue": _money(sales.revenue),
        "unitsSold": sales.units,
        "topSellers": [
            {"item": seller.product, "units": seller.units, "revenue": _money(seller.revenue)}
            for seller in sales.top_sellers
        ],
    }


def reconcile_inventory(call: ToolCall) -> dict[str, Any]:
    """Close the day and list what is at or below its reorder point, with suggested quantities."""
    reconciliation = services.day_reconcile(store=call.store, actor=call.caller.actor)
    low = [line for line in reconciliation.lines.all() if line.is_low]
    why = reorder_suggestions(store=call.store, products=[line.product for line in low])
    return {
        "reconciliationId": reconciliation.pk,
        "businessDate": reconciliation.business_date.isoformat(),
        "currency": call.store.currency,
        "receipts": reconciliation.receipts,
        "unitsSold": reconciliation.units_sold,
        "revenue": _money(reconciliation.revenue),
        "lowCount": len(low),
        "lowItems": [
            {
                "item": line.product.name,
                "stock": line.stock,
                "reorderPoint": line.reorder_point,
                "parLevel": line.par_level,
                "suggestedQty": line.suggested_qty,
                "daysOfCover": why[line.product_id].velocity.days_of_cover,
                "reason": why[line.product_id].reason,
            }
            for line in low
        ],
    }


def update_inventory(call: ToolCall) -> dict[str, Any]:
    """Compare-and-set one product's count; an ambiguous name or a stale expectedStock changes nothing."""
    args = call.arguments
    product = _one_product(call, args["item"])
    services.stock_set(
        store=call.store,
        product=product,
        count=args["stock"],
        expected=args["expectedStock"],
        actor=call.caller.actor,
        reason=StockEntry.Reason.COUNT,
        note=_("Count via %(channel)s") % {"channel": call.caller.channel},
    )
    return {
        "item": product.name,
        "previousStock": args["expectedStock"],
        "stock": product.stock,
        "isLow": product.is_low,
        "reorderPoint": product.reorder_point,
    }


def _draft(draft: ReorderDraft, currency: str) -> dict[str, Any]:
    return {
        "draftId": draft.pk,
        "status": draft.status,
        "supplier": draft.supplier,
        "currency": currency,
        "estimatedTotal": _money(draft.est_total),
        "expiresAt": draft.expires_at.isoformat(),
        "lines": [
            {"item": line.product.name, "qty": line.qty, "unitCost": _money(line.unit_cost), "estCost": _money(line.est_cost)}
            for line in draft.lines.all()
        ],
    }


def place_reorder(call: ToolCall) -> dict[str, Any]:
    """Draft a reorder; confirm only the named pending draft, and only for a caller with orders:confirm."""
    args = call.arguments
    draft_id = args.get("draftId")
    if not args["confirmed"]:
        if draft_id is not None:
            raise ToolFailure(
                "invalid_arguments",
                _("'draftId' only goes with confirmed true; to draft an order, leave draftId out."),
            )
        return _draft_new(call, note=_AWAITING_APPROVAL)
    if draft_id is None:
        return _draft_new(
            call,
            note=_("Nothing was confirmed: confirming needs the draftId of a pending draft the owner approved. ")
            + _AWAITING_APPROVAL,
        )
    if "items" in args:
        raise ToolFailure(
            "invalid_arguments",
            _("Pass either 'items' (to draft an order) or 'draftId' (to confirm a draft), not both."),
        )
    if CONFIRM_SCOPE not in call.caller.scopes:
        draft = selectors.draft_get(store=call.store, draft_id=draft_id)
        result = _draft(draft, call.store.currency)
        result["confirmed"] = False
        result["note"] = (
            _("This credential cannot confirm orders, so nothing was ordered: the draft stays in the owner's "
              "approval queue.")
            if draft.status == ReorderDraft.Status.PENDING
            else _("This credential cannot confirm orders, and this draft is %(status)s; nothing was ordered.")
            % {"status": draft.status}
        )
        return result
    order = services.draft_confirm(store=call.store, draft_id=draft_id, actor=call.caller.actor)
    return {
        "confirmed": True,
        "draftId": order.draft_id,
        "orderId": order.pk,
        "status": order.status,
        "supplier": order.supplier,
        "currency": call.store.currency,
        "total": _money(order.total),
        "lines": [
            {"item": line.product.name, "qty": line.qty, "unitCost": _money(line.unit_cost), "cost": _money(line.cost)}
            for line in order.lines.all()
        ],
    }


def _draft_new(call: ToolCall, *, note: str) -> dict[str, Any]:
    items = call.arguments.get("items")
    wanted = None if items is None else [(_one_product(call, line["item"]), line["qty"]) for line in items]
    draft = services.draft_create(
        store=call.store,
        items=wanted,
        actor=call.caller.actor,
        source=_DRAFT_SOURCE.get(call.caller.channel, ReorderDraft.Source.DASHBOARD),
        conversation=call.caller.conversation,
    )
    result = _draft(draft, call.store.currency)
    result["confirmed"] = False
    result["note"] = note
    return result


def _report(call: ToolCall, kind: ReportKind) -> dict[str, Any]:
    """Check where the report may go now, and email it only once the call's transaction commits.

    A turn that fails after this call rolls back, and then nothing is sent: the email cannot
    outlive the books it reports on. The send runs as ``report_email_task`` (at most once per key,
    retried when the mail server refuses).
    """
    to = call.arguments.get("to") or None
    recipients = services.report_recipients(store=call.store, kind=kind, to=to)
    key = f"tool:{uuid.uuid4().hex}"
    store_id, actor = call.store.pk, call.caller.actor

    def send() -> None:
        from worker.tasks import report_email_task

        report_email_task.delay(store_id=store_id, kind=kind, key=key, actor=actor, to=to)

    transaction.on_commit(send, robust=True)  # robust: a broker or mail failure is logged, never the caller's 500
    return {"queued": True, "report": kind, "to": ", ".join(recipients), "key": key}


def send_inventory_report(call: ToolCall) -> dict[str, Any]:
    """Email the inventory report to the store's address (or another one, if the store allows it)."""
    return _report(call, "inventory")


def send_sales_report(call: ToolCall) -> dict[str, Any]:
    """Email today's sales report, unless the deployment switched it off."""
    return _report(call, "sales")


HANDLERS: dict[str, Callable[[ToolCall], dict[str, Any]]] = {
    "get_inventory": get_inventory,
    "get_todays_transactions": get_todays_transactions,
    "get_sales": get_sales,
    "get_alerts": get_alerts,
    "dismiss_alert": dismiss_alert,
    "reconcile_inventory": reconcile_inventory,
    "update_inventory": update_inventory,
    "place_reorder": place_reorder,
    "send_inventory_report": send_inventory_report,
    "send_sales_report": send_sales_report,
}
