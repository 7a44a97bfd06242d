"""Page-shaped reads for the owner workspace and the shelf finder, built on ``ledger.selectors``.

Every function takes the store and reads only its rows. Lists are bounded (a page shows the most
recent rows) and come back evaluated with what the page needs prefetched, so a page's number of
queries does not grow with the catalog, the journal or the history.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Case, Count, F, FloatField, Prefetch, Q, TextField, Value, When
from django.db.models.functions import Cast, Greatest, Lower

from assistant.models import TaughtPhrase
from audit.models import Record, Turn
from ledger import selectors as ledger_selectors
from ledger.models import (
    Order,
    OrderLine,
    Product,
    ReorderDraft,
    ReportDelivery,
    StockEntry,
)
from ledger.scope import store_scope
from tenants.models import Store, StoreToken

INVENTORY_PAGE_SIZE = 100
JOURNAL_LIMIT = 200
ORDERS_LIMIT = 50
DECIDED_LIMIT = 20
DELIVERIES_LIMIT = 20
TURNS_LIMIT = 40


# ---------------------------------------------------------------------------------------------
# Inventory


@dataclass(frozen=True)
class InventoryPage:
    """One page of the inventory table and what its summary and page links need.

    Attributes:
        products: this page's products, low items first (emptiest first), then by name.
        number: this page, from 1; ``pages`` is at least 1 even for an empty table.
        total: products matching the search and filter, on every page.
        low: how many of those are at or below their reorder point.
    """

    products: list[Product]
    number: int
    pages: int
    total: int
    low: int
    per_page: int

    @property
    def first_index(self) -> int:
        return (self.number - 1) * self.per_page + 1 if self.products else 0

    @property
    def last_index(self) -> int:
        return (self.number - 1) * self.per_page + len(self.products)


def inventory_page(*, store: Store, search: str | None = None, low_only: bool = False, page: int = 1,
                   per_page: int = INVENTORY_PAGE_SIZE) -> InventoryPage:
    """A page of the store's active products for the inventory table: low items first, then by name.

    Two queries whatever the catalog's size: the counts, then the page's rows, ordered and cut in
    the database. A page past the end gives the last page; one before the start, the first.
    """
    queryset = Product.objects.filter(store=store, active=True)
    term = " ".join((search or "").split())
    if term:
        # The ledger's own word-start match on names and aliases, so the table finds what the API finds.
        queryset = queryset.annotate(aliases_text=Cast("aliases", TextField())).filter(ledger_selectors.product_search_q(term))
    low = Q(stock__lte=F("reorder_point"))
    if low_only:
        queryset = queryset.filter(low)
    with store_scope(store, what="product"):
        counts = queryset.aggregate(total=Count("id"), low=Count("id", filter=low))
        pages = max(1, -(-counts["total"] // per_page))
        number = min(max(page, 1), pages)
        ordered = queryset.annotate(
            low_rank=Case(When(low, then=Value(0)), default=Value(1)),
            # The emptiest low item (relative to its reorder point) first; the rest by name only.
            emptiness=Case(
                When(low, then=Cast("stock", FloatField()) / Greatest(Cast("reorder_point", FloatField()), Value(1.0))),
                default=Value(0.0),
                output_field=FloatField(),
            ),
            name_key=Lower("name"),
        ).order_by("low_rank", "emptiness", "name_key", "id")
        start = (number - 1) * per_page
        products = list(ordered[start:start + per_page])
    return InventoryPage(products=products, number=number, pages=pages, total=counts["total"], low=counts["low"],
                         per_page=per_page)


def journal_recent(*, store: Store, product: Product, limit: int = JOURNAL_LIMIT) -> list[StockEntry]:
    """The product's latest stock journal entries, newest first.

    Raises:
        NotFound: the product is not this store's.
    """
    from ledger.errors import NotFound

    if product.store_id != store.pk:
        raise NotFound("product")
    with store_scope(store, what="product"):
        return list(StockEntry.objects.filter(store=store, product_id=product.pk).order_by("-created_at", "-id")[:limit])


# ---------------------------------------------------------------------------------------------
# Who did it: "user:12", "token:ab12", "assistant:router", "system:seed" in words


def actor_names(*, store: Store, actors: Iterable[str]) -> dict[str, str]:
    """Readable names for actor strings: a user's email, a token's name, "Assistant (router)".

    At most two queries whatever the number of actors; ids of users or tokens outside the store
    are shown as they are.
    """
    actors = {a for a in actors if a}
    user_ids = {int(a.split(":", 1)[1]) for a in actors if a.startswith("user:") and a.split(":", 1)[1].isdigit()}
    prefixes = {a.split(":", 1)[1] for a in actors if a.startswith("token:")}
    users = {}
    if user_ids:
        users = {
            u.pk: (u.get_full_name() or u.email or u.get_username())
            for u in get_user_model().objects.filter(pk__in=user_ids, memberships__store=store)
        }
    tokens = {}
    if prefixes:
        tokens = {t.prefix: t.name for t in StoreToken.objects.filter(store=store, prefix__in=prefixes)}
    names: dict[str, str] = {}
    for actor in actors:
        kind, _sep, rest = actor.partition(":")
        if kind == "user" and rest.isdigit() and int(rest) in users:
            names[actor] = users[int(rest)]
        elif kind == "token" and rest in tokens:
            names[actor] = f"token “{tokens[rest]}”"
        elif kind == "assistant":
            names[actor] = f"Assistant ({rest})" if rest else "Assistant"
        elif kind == "system":
            names[actor] = "System" if rest in {"", "seed"} else f"System ({rest})"
        else:
            names[actor] = actor
    return names


# ---------------------------------------------------------------------------------------------
# Approvals, orders, reports


def drafts_pending(*, store: Store) -> list[ReorderDraft]:
    """Drafts waiting for a yes or no, newest first, with lines and products."""
    return ledger_selectors.draft_list(store=store, status=ReorderDraft.Status.PENDING)


def drafts_decided(*, store: Store, limit: int = DECIDED_LIMIT) -> list[ReorderDraft]:
    """The most recently decided drafts (confirmed, declined, expired, replaced), newest decision first."""
    with store_scope(store, what="draft"):
        return list(
            ReorderDraft.objects.filter(store=store)
            .exclude(status=ReorderDraft.Status.PENDING)
            .order_by("-decided_at", "-id")[:limit]
        )


def orders_recent(*, store: Store, limit: int = ORDERS_LIMIT) -> list[Order]:
    """The store's latest orders with their lines, newest first."""
    with store_scope(store, what="order"):
        return list(
            Order.objects.filter(store=store)
            .prefetch_related(Prefetch("lines", queryset=OrderLine.objects.select_related("product").order_by("id")))
            .order_by("-placed_at", "-id")[:limit]
        )


def deliveries_recent(*, store: Store, limit: int = DELIVERIES_LIMIT) -> list[ReportDelivery]:
    """The reports emailed for the store, newest first."""
    with store_scope(store):
        return list(ReportDelivery.objects.filter(store=store).order_by("-sent_at", "-id")[:limit])


# ---------------------------------------------------------------------------------------------
# Assistant history


@dataclass
class Conversation:
    """One conversation's turns on the history page, oldest first."""

    id: str
    turns: list[Turn] = field(default_factory=list)

    @property
    def started(self) -> dt.datetime:
        return self.turns[0].created_at

    @property
    def channel(self) -> str:
        return self.turns[0].get_channel_display()


def turn_history(*, store: Store, before: int | None = None, limit: int = TURNS_LIMIT) -> tuple[list[Conversation], int | None]:
    """The store's latest turns grouped by conversation (most recent conversation first), each turn
    with its tool calls as ``turn.tool_calls`` and its router decision, if any, as ``turn.routes``
    (the "route" event: matcher or model); and the id to page back from (None at the start).
    """
    turns_q = Turn.objects.filter(store=store)
    if before is not None:
        turns_q = turns_q.filter(pk__lt=before)
    tool_calls = Record.objects.filter(store=store, kind=Record.Kind.TOOL_CALL).order_by("created_at", "id")
    routes = Record.objects.filter(store=store, kind=Record.Kind.EVENT, name="route").order_by("id")
    turns = list(
        turns_q.order_by("-id").prefetch_related(Prefetch("records", queryset=tool_calls, to_attr="tool_calls"),
                                                 Prefetch("records", queryset=routes, to_attr="routes"))[: limit + 1]
    )
    older = turns[limit - 1].pk if len(turns) > limit else None
    turns = turns[:limit]
    conversations: dict[str, Conversation] = {}
    for turn in turns:  # newest first, so conversations come out most recent first
        conversations.setdefault(turn.conversation, Conversation(id=turn.conversation)).turns.append(turn)
    for conversation in conversations.values():
        conversation.turns.reverse()
    return list(conversations.values()), older


TAUGHT_LIMIT = 200


def taught_phrases(*, store: Store, limit: int = TAUGHT_LIMIT) -> list[TaughtPhrase]:
    """The phrases the store's owner taught the fast path, newest first."""
    return list(TaughtPhrase.objects.filter(store=store).order_by("-id")[:limit])


def router_actions(*, store: Store) -> list[dict[str, str]]:
    """The store's business type's router actions (name and description), for teaching a turn."""
    from assistant.modes.router.prompt import router_pack
    from packs.source import store_pack_key

    return [{"name": spec["name"], "description": str(spec.get("description", ""))}
            for spec in router_pack(store_pack_key(store)).actions]
