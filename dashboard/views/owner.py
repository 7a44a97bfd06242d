"""The owner workspace: inventory, sales, approvals, orders, reports and the assistant's history.

Every view works on ``request.store`` (the signed-in member's current store, from the session)
and reads or writes only through selectors and services that take that store, so another
store's product or draft id is simply not found. Owners and staff see every page; only owners
approve or decline drafts (and manage credentials, in ``tenants.views``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_GET, require_POST

from audit.services import refusal_record
from dashboard import selectors
from dashboard.forms import InventorySearchForm, ReportSendForm, StockCountForm
from ledger import selectors as ledger_selectors
from ledger import services
from ledger.errors import LedgerError, NotFound, StockConflict
from ledger.models import Product, ReorderDraft
from ledger.money import money_format
from tenants.models import Membership, Store

View = Callable[..., HttpResponse]


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _actor(request: HttpRequest) -> str:
    return f"user:{request.user.pk}"


def _is_owner(request: HttpRequest) -> bool:
    membership = getattr(request, "membership", None)
    return membership is not None and membership.role == Membership.Role.OWNER


def workspace_view(view: View) -> View:
    """Signed in, with a current store: else to sign-in, or to onboarding. JSON callers get JSON errors."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            if _wants_json(request):
                return JsonResponse({"ok": False, "message": "Sign in first."}, status=401)
            return redirect_to_login(request.get_full_path())
        if getattr(request, "store", None) is None:
            if _wants_json(request):
                return JsonResponse({"ok": False, "message": "You have no store yet."}, status=404)
            return redirect("tenants:home")
        return view(request, *args, **kwargs)

    return wrapper


# ---------------------------------------------------------------------------------------------
# Inventory


@dataclass(frozen=True)
class StockRow:
    """A product as the inventory table shows it: the bar's fill and the reorder point's mark, in %."""

    product: Product
    fill: int
    mark: int
    status: str  # "out", "low" or "ok"


def _stock_row(product: Product) -> StockRow:
    # The bar spans 0..max(par, stock, 1) so overstock still fits.
    top = max(product.par_level, product.stock, 1)
    status = "out" if product.stock == 0 else "low" if product.is_low else "ok"
    return StockRow(
        product=product,
        fill=round(100 * product.stock / top),
        mark=round(100 * product.reorder_point / top),
        status=status,
    )


def _page_number(raw: str | None) -> int:
    # Anything but a sane positive number is the first page, as Django's Paginator.get_page does.
    return int(raw) if raw and raw.isdigit() and len(raw) < 7 else 1


def _inventory_url(*, search: str, low_only: bool, page: int = 1) -> str:
    params = {key: value for key, value in (("q", search), ("low", "on" if low_only else ""), ("page", page if page > 1 else "")) if value}
    return reverse("owner:inventory") + (f"?{urlencode(params)}" if params else "")


def _page_links(number: int, pages: int, *, search: str, low_only: bool) -> list[dict[str, Any]]:
    """The first, the last and two either side of the current page; ``None`` numbers mark a gap."""
    shown = sorted({1, pages, *range(max(1, number - 2), min(pages, number + 2) + 1)})
    links: list[dict[str, Any]] = []
    for n in shown:
        if links and n - links[-1]["number"] > 1:
            links.append({"number": None})
        links.append({"number": n, "url": _inventory_url(search=search, low_only=low_only, page=n), "current": n == number})
    return links


@require_GET
@workspace_view
def inventory(request: HttpRequest) -> HttpResponse:
    """The searchable inventory table, low items first, a page at a time (``?q=``, ``?low=on`` and
    ``?page=`` work without JavaScript; htmx swaps only the table)."""
    form = InventorySearchForm(request.GET or None)
    search, low_only = "", False
    if form.is_valid():
        search, low_only = form.cleaned_data["q"], form.cleaned_data["low"]
    page = selectors.inventory_page(
        store=request.store, search=search, low_only=low_only, page=_page_number(request.GET.get("page"))
    )
    url = functools.partial(_inventory_url, search=search, low_only=low_only)
    context = {
        "section": "inventory",
        "form": form if form.is_bound else InventorySearchForm(),
        "rows": [_stock_row(p) for p in page.products],
        "page": page,
        "page_links": _page_links(page.number, page.pages, search=search, low_only=low_only) if page.pages > 1 else [],
        "previous_url": url(page=page.number - 1) if page.number > 1 else None,
        "next_url": url(page=page.number + 1) if page.number < page.pages else None,
        "here": url(page=page.number),
        "search": search,
        "low_only": low_only,
        "low_count": page.low,
        # A page link followed with htmx moves focus to the new page's summary, not back to the top.
        "focus_summary": request.headers.get("HX-Trigger", "").startswith("pager-"),
    }
    # htmx's live search and page links swap only the table.
    template = "dashboard/_inventory_table.html" if request.headers.get("HX-Request") else "dashboard/inventory.html"
    return render(request, template, context, status=200 if form.is_valid() or not form.is_bound else 400)


def _product_or_404(store: Store, product_id: int) -> Product:
    try:
        return ledger_selectors.product_get(store=store, product_id=product_id)
    except NotFound:
        raise Http404("Product not found.") from None


def _product_page(request: HttpRequest, product: Product, *, form: StockCountForm | None = None, status: int = 200) -> HttpResponse:
    entries = selectors.journal_recent(store=request.store, product=product)
    names = selectors.actor_names(store=request.store, actors=[e.actor for e in entries])
    form = form or StockCountForm(initial={"count": product.stock, "expected": product.stock})
    return render(
        request,
        "dashboard/product.html",
        {
            "section": "inventory",
            "product": product,
            "row": _stock_row(product),
            "entries": [(entry, names.get(entry.actor, entry.actor)) for entry in entries],
            "form": form,
            "limit": selectors.JOURNAL_LIMIT,
        },
        status=status,
    )


@require_GET
@workspace_view
def product_journal(request: HttpRequest, product_id: int) -> HttpResponse:
    """One product: where it is, its stock against par, a count form and its stock journal."""
    return _product_page(request, _product_or_404(request.store, product_id))


def _back(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return fallback


@require_POST
@workspace_view
def stock_count(request: HttpRequest, product_id: int) -> HttpResponse:
    """Set a product's count over the count the page showed; a concurrent change is a clear conflict."""
    product = _product_or_404(request.store, product_id)
    form = StockCountForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Enter a whole number of 0 or more for the count. Nothing was changed.")
        return _product_page(request, product, form=form, status=400)
    data = form.cleaned_data
    try:
        services.stock_set(
            store=request.store,
            product=product,
            count=data["count"],
            expected=data["expected"],
            actor=_actor(request),
            note=data["note"],
        )
    except StockConflict as exc:
        messages.error(request, exc.message)
        product.refresh_from_db()
        fresh = StockCountForm(initial={"count": data["count"], "expected": exc.current})
        return _product_page(request, product, form=fresh, status=409)
    except LedgerError as exc:
        messages.error(request, exc.message)
        return _product_page(request, product, form=form, status=400)
    messages.success(request, f"{product.name}: the count is now {product.stock}.")
    return redirect(_back(request, reverse("owner:inventory")), permanent=False)


# ---------------------------------------------------------------------------------------------
# Approvals


def draft_as_dict(draft: ReorderDraft, store: Store) -> dict[str, Any]:
    """A draft as the talk page's buttons and other JSON callers read it."""
    return {
        "id": draft.pk,
        "status": draft.status,
        "source": draft.source,
        "supplier": draft.supplier,
        "est_total": str(draft.est_total),
        "est_total_display": money_format(draft.est_total, store.currency),
        "created_at": draft.created_at.isoformat(),
        "expires_at": draft.expires_at.isoformat(),
        "decided_at": draft.decided_at.isoformat() if draft.decided_at else None,
        "decided_by": draft.decided_by,
        "lines": [
            {
                "product": line.product.name,
                "qty": line.qty,
                "unit_cost": str(line.unit_cost),
                "est_cost": str(line.est_cost),
            }
            for line in draft.lines.all()
        ],
    }


@require_GET
@workspace_view
def approvals(request: HttpRequest) -> HttpResponse:
    """Pending reorder drafts (from the assistant, MCP clients and this page) and recent decisions."""
    store = request.store
    pending = selectors.drafts_pending(store=store)
    decided = selectors.drafts_decided(store=store)
    names = selectors.actor_names(
        store=store, actors=[d.actor for d in pending] + [d.decided_by for d in decided]
    )
    low_count = len(ledger_selectors.product_list(store=store, low_only=True))
    return render(
        request,
        "dashboard/approvals.html",
        {
            "section": "approvals",
            "pending": [(d, names.get(d.actor, d.actor)) for d in pending],
            "decided": [(d, names.get(d.decided_by, d.decided_by)) for d in decided],
            "can_decide": _is_owner(request),
            "low_count": low_count,
        },
    )


def _decision_response(request: HttpRequest, *, ok: bool, message: str, status: int, draft: ReorderDraft | None = None,
                       extra: dict[str, Any] | None = None) -> HttpResponse:
    if _wants_json(request):
        body: dict[str, Any] = {"ok": ok, "message": message, "draft": draft_as_dict(draft, request.store) if draft else None}
        body.update(extra or {})
        return JsonResponse(body, status=status)
    if status == 404:
        raise Http404(message)
    (messages.success if ok else messages.error)(request, message)
    return redirect("owner:approvals")


def _decide(request: HttpRequest, draft_id: int, *, approve: bool) -> HttpResponse:
    store = request.store
    if not _is_owner(request):
        message = "Only the store's owner can approve or decline reorders."
        refusal_record(store=store, channel="dashboard", actor=_actor(request), name="draft_approve" if approve else
                       "draft_decline", message=message, data={"draft": draft_id})
        if _wants_json(request):
            return JsonResponse({"ok": False, "message": message, "draft": None}, status=403)
        return render(request, "dashboard/forbidden.html", {"section": "approvals", "message": message}, status=403)
    try:
        if approve:
            order = services.draft_confirm(store=store, draft_id=draft_id, actor=_actor(request))
            draft = ledger_selectors.draft_get(store=store, draft_id=order.draft_id)
            message = f"Approved: order #{order.pk} placed with {order.supplier} for {money_format(order.total, store.currency)}."
            extra = {"order": {"id": order.pk, "total": str(order.total), "supplier": order.supplier}}
        else:
            draft = services.draft_decline(store=store, draft_id=draft_id, actor=_actor(request))
            message = "Declined: nothing was ordered."
            extra = {}
    except NotFound:
        return _decision_response(request, ok=False, message="That draft was not found in this store.", status=404)
    except LedgerError as exc:
        current = None
        try:
            current = ledger_selectors.draft_get(store=store, draft_id=draft_id)
        except NotFound:
            pass
        return _decision_response(request, ok=False, message=exc.message, status=409, draft=current)
    return _decision_response(request, ok=True, message=message, status=200, draft=draft, extra=extra)


@require_POST
@workspace_view
def draft_approve(request: HttpRequest, draft_id: int) -> HttpResponse:
    """Confirm the pending draft and place its order (owners only); recorded with who and when."""
    return _decide(request, draft_id, approve=True)


@require_POST
@workspace_view
def draft_decline(request: HttpRequest, draft_id: int) -> HttpResponse:
    """Decline the pending draft (owners only); nothing is ordered."""
    return _decide(request, draft_id, approve=False)


@require_POST
@workspace_view
def draft_low(request: HttpRequest) -> HttpResponse:
    """Draft a restock of every low product up to its par level, for the owner to approve."""
    try:
        draft = services.draft_create(store=request.store, items=None, actor=_actor(request), source=ReorderDraft.Source.DASHBOARD)
    except LedgerError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"Drafted a reorder of {len(draft.lines.all())} low products, about "
            f"{money_format(draft.est_total, request.store.currency)}. It waits for the owner's approval.",
        )
    return redirect("owner:approvals")


# ---------------------------------------------------------------------------------------------
# Orders, reports


@require_GET
@workspace_view
def orders(request: HttpRequest) -> HttpResponse:
    store = request.store
    recent = selectors.orders_recent(store=store)
    names = selectors.actor_names(store=store, actors=[o.placed_by for o in recent])
    return render(
        request,
        "dashboard/orders.html",
        {"section": "orders", "orders": [(o, names.get(o.placed_by, o.placed_by)) for o in recent], "limit": selectors.ORDERS_LIMIT},
    )


def _reports_page(request: HttpRequest, *, status: int = 200) -> HttpResponse:
    store = request.store
    deliveries = selectors.deliveries_recent(store=store)
    names = selectors.actor_names(store=store, actors=[d.actor for d in deliveries])
    return render(
        request,
        "dashboard/reports.html",
        {"section": "reports", "deliveries": [(d, names.get(d.actor, d.actor)) for d in deliveries]},
        status=status,
    )


@require_GET
@workspace_view
def reports(request: HttpRequest) -> HttpResponse:
    """Send the inventory or today's sales report now; the reports sent so far."""
    return _reports_page(request)


@require_POST
@workspace_view
def report_send(request: HttpRequest) -> HttpResponse:
    form = ReportSendForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose the inventory or the sales report.")
        return _reports_page(request, status=400)
    try:
        deliveries = services.report_send(store=request.store, kind=form.cleaned_data["kind"], actor=_actor(request))
    except LedgerError as exc:
        messages.error(request, exc.message)
        return _reports_page(request, status=409)
    to = ", ".join(delivery.recipient for delivery in deliveries)
    messages.success(request, f"{deliveries[0].get_kind_display()} sent to {to}.")
    return redirect("owner:reports")


# ---------------------------------------------------------------------------------------------
# The assistant's history


@require_GET
@workspace_view
def assistant_history(request: HttpRequest) -> HttpResponse:
    """This store's conversations with the assistant; each turn opens to its tool calls and reply."""
    before = request.GET.get("before")
    before_id = int(before) if before and before.isdigit() and len(before) < 19 else None
    conversations, older = selectors.turn_history(store=request.store, before=before_id)
    owner = _is_owner(request)
    return render(
        request,
        "dashboard/assistant_history.html",
        {"section": "assistant", "conversations": conversations, "older": older, "paged": before_id is not None,
         "is_owner": owner, "actions": selectors.router_actions(store=request.store) if owner else (),
         "taught": selectors.taught_phrases(store=request.store)},
    )
