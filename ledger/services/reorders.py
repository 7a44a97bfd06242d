"""Reorder drafts and the orders placed from them.

A draft is a state machine: pending -> confirmed | declined | expired | replaced. A store has
at most one pending draft (a new one replaces it); only the exact pending, unexpired draft can
be confirmed, and confirming it places one order.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput, InvalidTransition, NotFound, NothingToOrder
from ledger.models import DraftLine, Order, OrderLine, Product, ReorderDraft
from ledger.money import to_cents
from ledger.scope import store_scope
from ledger.selectors import draft_get, order_get, row_id
from ledger.services import checks
from ledger.services.locks import store_lock
from ledger.stock_velocity import reorder_suggestions
from tenants.context import use_store
from tenants.models import Store

MAX_DRAFT_LINES = 200
EXPIRY_ACTOR = "system:expiry"


def _wanted(store: Store, items: Sequence[tuple[Product, int]]) -> list[tuple[Product, int]]:
    """The named products, fresh from the store's rows, with their quantities (repeats added up)."""
    if isinstance(items, (str, bytes)) or not items:
        raise InvalidInput(_("Name at least one product to order."))
    if len(items) > MAX_DRAFT_LINES:
        raise InvalidInput(_("A draft can have at most %(max)s lines.") % {"max": MAX_DRAFT_LINES})
    merged: dict[int, int] = {}
    for item in items:
        try:
            product, qty = item
        except (TypeError, ValueError):
            raise InvalidInput(_("Each draft line is a product and a quantity.")) from None
        if not isinstance(product, Product) or product.store_id != store.pk:
            raise NotFound("product")
        merged[product.pk] = merged.get(product.pk, 0) + checks.line_qty(qty)
    products = {p.pk: p for p in Product.objects.filter(store=store, pk__in=merged)}
    if set(products) != set(merged):
        raise NotFound("product")
    return [(products[pk], checks.line_qty(qty)) for pk, qty in merged.items()]


def _low(store: Store, at: dt.datetime) -> list[tuple[Product, int]]:
    """Every active product at or below its reorder point, with its suggested quantity (``ledger.stock_velocity``)."""
    low = list(Product.objects.filter(store=store, active=True, stock__lte=F("reorder_point")).order_by("name"))
    suggested = reorder_suggestions(store=store, products=low, now=at)
    wanted = [(product, suggested[product.pk].qty) for product in low if suggested[product.pk].qty > 0]
    if not wanted:
        raise NothingToOrder(_("Nothing is at or below its reorder point, so there is nothing to restock."))
    return [(product, checks.line_qty(qty)) for product, qty in wanted]


def _supplier(products: Sequence[Product]) -> str:
    return ", ".join(sorted({product.supplier for product in products if product.supplier}))[:80]


def draft_create(
    *,
    store: Store,
    items: Sequence[tuple[Product, int]] | None,
    actor: str,
    source: str,
    conversation: str = "",
    now: dt.datetime | None = None,
) -> ReorderDraft:
    """Draft a reorder: the given products and quantities, or (``items=None``) every low product
    at its suggested quantity (up to par, or two weeks of its recent sales when it has no par). The store's earlier pending draft is marked replaced.

    Raises:
        NothingToOrder: ``items`` is None and nothing is low.
        NotFound: a product is not this store's.
        InvalidQuantity: a quantity is not 1..10,000.
        InvalidInput: an empty list or an unknown source.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    if source not in ReorderDraft.Source.values:
        raise InvalidInput(_("A draft comes from the assistant, an MCP client or the dashboard."))
    conversation = checks.text(conversation, what="conversation", max_length=64, required=False)
    with store_scope(store, what="product"), transaction.atomic():
        store_lock(store)
        lines = _low(store, at) if items is None else _wanted(store, items)
        costs = [(product, qty, to_cents(product.unit_cost * qty)) for product, qty in lines]
        earlier = list(ReorderDraft.objects.select_for_update().filter(store=store, status=ReorderDraft.Status.PENDING))
        draft = ReorderDraft.objects.create(
            store=store,
            status=ReorderDraft.Status.PENDING,
            source=source,
            supplier=_supplier([product for product, _qty in lines]),
            est_total=to_cents(sum((cost for _p, _q, cost in costs), Decimal(0))),
            actor=actor,
            conversation=conversation,
            created_at=at,
            expires_at=at + dt.timedelta(minutes=settings.DRAFT_TTL_MINUTES),
        )
        DraftLine.objects.bulk_create(
            [
                DraftLine(store=store, draft=draft, product=product, qty=qty, unit_cost=product.unit_cost, est_cost=cost)
                for product, qty, cost in costs
            ]
        )
        for old in earlier:
            old.decided_at = at
            if old.expires_at <= at:
                old.status, old.decided_by = ReorderDraft.Status.EXPIRED, EXPIRY_ACTOR
            else:
                old.status, old.decided_by, old.replaced_by = ReorderDraft.Status.REPLACED, actor, draft
            old.save(update_fields=["status", "decided_at", "decided_by", "replaced_by"])
    return draft_get(store=store, draft_id=draft.pk)


def _refusal(draft: ReorderDraft, at: dt.datetime, verb: str) -> InvalidTransition | None:
    """Why a locked draft cannot be decided now, or None. A pending draft past its expiry is marked expired."""
    status = draft.status
    if status == ReorderDraft.Status.PENDING and draft.expires_at <= at:
        draft.status, draft.decided_at, draft.decided_by = ReorderDraft.Status.EXPIRED, at, EXPIRY_ACTOR
        draft.save(update_fields=["status", "decided_at", "decided_by"])
        status = draft.status
    messages = {
        ReorderDraft.Status.PENDING: None,
        ReorderDraft.Status.CONFIRMED: _("This draft was already confirmed and its order placed; nothing more was done."),
        ReorderDraft.Status.DECLINED: _("This draft was declined, so it cannot be %(verb)s. Ask for a new draft."),
        ReorderDraft.Status.EXPIRED: _("This draft has expired, so it cannot be %(verb)s. Ask for a new draft."),
        ReorderDraft.Status.REPLACED: _(
            "This draft was replaced by a newer one, so it cannot be %(verb)s. Answer the newer draft instead."
        ),
    }
    message = messages[ReorderDraft.Status(status)]
    if message is None:
        return None
    return InvalidTransition(message % {"verb": verb}, status=status)


def _draft_to_decide(*, store: Store, pk: int, at: dt.datetime, verb: str) -> tuple[ReorderDraft, InvalidTransition | None]:
    """The draft locked for a yes or no, and why it cannot take one (None when it can).

    Runs inside the caller's transaction. Raises:
        NotFound: no such draft in this store.
    """
    draft = ReorderDraft.objects.select_for_update().filter(store=store, pk=pk).first()
    if draft is None:
        raise NotFound("draft")
    return draft, _refusal(draft, at, verb)


def draft_confirm(*, store: Store, draft_id: int | str, actor: str, now: dt.datetime | None = None) -> Order:
    """Confirm the store's pending draft with exactly this id and place its order.

    Raises:
        NotFound: no such draft in this store.
        InvalidTransition: the draft is not pending or has expired (it is then marked expired).
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    pk = row_id(draft_id, "draft")
    with store_scope(store, what="draft"):
        with transaction.atomic():
            draft, refusal = _draft_to_decide(store=store, pk=pk, at=at, verb=_("confirmed"))
            if refusal is None:
                lines = list(DraftLine.objects.filter(store=store, draft=draft).order_by("id"))
                order = Order.objects.create(
                    store=store,
                    draft=draft,
                    supplier=draft.supplier,
                    total=to_cents(sum((line.est_cost for line in lines), Decimal(0))),
                    placed_at=at,
                    placed_by=actor,
                )
                OrderLine.objects.bulk_create(
                    [
                        OrderLine(
                            store=store,
                            order=order,
                            product_id=line.product_id,
                            qty=line.qty,
                            unit_cost=line.unit_cost,
                            cost=line.est_cost,
                        )
                        for line in lines
                    ]
                )
                draft.status, draft.decided_at, draft.decided_by = ReorderDraft.Status.CONFIRMED, at, actor
                draft.save(update_fields=["status", "decided_at", "decided_by"])
        # Raised after the commit, so a draft found expired stays marked expired.
        if refusal is not None:
            raise refusal
        return order_get(store=store, order_id=order.pk)


def draft_decline(*, store: Store, draft_id: int | str, actor: str, now: dt.datetime | None = None) -> ReorderDraft:
    """Decline the store's pending draft with exactly this id; nothing is ordered.

    Raises:
        NotFound: no such draft in this store.
        InvalidTransition: the draft is not pending or has expired (it is then marked expired).
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    pk = row_id(draft_id, "draft")
    with store_scope(store, what="draft"):
        with transaction.atomic():
            draft, refusal = _draft_to_decide(store=store, pk=pk, at=at, verb=_("declined"))
            if refusal is None:
                draft.status, draft.decided_at, draft.decided_by = ReorderDraft.Status.DECLINED, at, actor
                draft.save(update_fields=["status", "decided_at", "decided_by"])
        if refusal is not None:
            raise refusal
        return draft_get(store=store, draft_id=draft.pk)


def drafts_expire(*, now: dt.datetime | None = None, store: Store | None = None) -> int:
    """Mark pending drafts past their expiry as expired, of one store or of every store; returns how many."""
    at = checks.moment(now)
    expired = 0
    # One store at a time: on PostgreSQL row-level security shows each store only its own drafts.
    for each in [store] if store is not None else Store.objects.order_by("pk"):
        with use_store(each), transaction.atomic():
            expired += ReorderDraft.objects.filter(
                store=each, status=ReorderDraft.Status.PENDING, expires_at__lte=at
            ).update(status=ReorderDraft.Status.EXPIRED, decided_at=at, decided_by=EXPIRY_ACTOR)
    return expired
