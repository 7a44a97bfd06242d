"""Recording a sale without a till, and goods received for an order: pages staff use too.

A sale names its product by name, SKU or barcode; an ambiguous or unknown name is a form error
that lists what matched. A sale of more than the books hold is recorded (the sale happened) and
the page says the product needs a recount. Goods received carry the received amounts the page
showed, so entering the same delivery twice is a conflict, not double stock.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from dashboard.catalog_forms import SaleForm
from dashboard.views.owner import _actor, workspace_view
from ledger import selectors, services
from ledger.errors import EditConflict, LedgerError, NotFound
from ledger.models import Product
from ledger.services.receipts import SaleLine

RECENT = 10


def _find(store, text: str) -> tuple[Product | None, str]:
    """The one product ``text`` names (SKU, barcode, exact name, or a unique search match), or why not."""
    text = " ".join(text.split())
    by_sku, by_barcode = selectors.products_by_code(store=store, skus={text}, barcodes={text})
    exact = by_sku.get(text) or by_barcode.get(text.casefold()) or selectors.product_by_name(store=store, name=text)
    if exact is not None and exact.active:
        return exact, ""
    found = selectors.product_list(store=store, search=text)[:6]
    if len(found) == 1:
        return found[0], ""
    if not found:
        return None, f"No product matches “{text}”. Try the SKU or another word of the name."
    names = ", ".join(product.name for product in found[:5])
    return None, f"Several products match: {names}. Type more of the name or the SKU."


@require_http_methods(["GET", "POST"])
@workspace_view
def sale_new(request: HttpRequest) -> HttpResponse:
    """Search a product, enter the quantity, done: the sale is recorded and stock falls."""
    form = SaleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        product, problem = _find(request.store, form.cleaned_data["product"])
        if product is None:
            form.add_error("product", problem)
        else:
            try:
                recorded = services.sale_record(store=request.store, actor=_actor(request),
                                                lines=[SaleLine(product=product, qty=form.cleaned_data["qty"])])
            except LedgerError as exc:
                form.add_error("qty", exc.message)
            else:
                fresh = selectors.product_get(store=request.store, product_id=product.pk)
                if recorded.oversold:
                    messages.warning(request, f"Sale #{recorded.receipt.number} recorded, but the books held only "
                                              f"{recorded.oversold[0].in_stock} {product.name}: stock is now 0 and it "
                                              "needs a recount.")
                else:
                    messages.success(request, f"Sale #{recorded.receipt.number}: {form.cleaned_data['qty']} × "
                                              f"{product.name}. {fresh.stock} left in stock.")
                return redirect("owner:sale-new")
    recent = list(selectors.receipt_list(store=request.store)[:RECENT])
    products = selectors.product_list(store=request.store)[:500]
    return render(request, "dashboard/sale_new.html",
                  {"section": "sales", "form": form, "recent": recent, "products": products},
                  status=400 if form.errors else 200)


def _order_or_404(store, order_id: int):
    from django.http import Http404

    try:
        return selectors.order_get(store=store, order_id=order_id)
    except NotFound:
        raise Http404("Order not found.") from None


def _posted(request: HttpRequest, order) -> tuple[dict[int, int], dict[int, int], list[str]]:
    """The arrived and seen amounts per line from the form, and the problems, named by line."""
    arrived, seen, problems = {}, {}, []
    for number, line in enumerate(order.lines.all(), start=1):
        raw = (request.POST.get(f"line-{line.pk}") or "0").strip()
        try:
            seen[line.pk] = int(request.POST.get(f"seen-{line.pk}", line.received_qty))
            qty = int(raw)
        except ValueError:
            problems.append(f"Line {number} ({line.product.name}): “{raw[:20]}” is not a whole number.")
            continue
        if qty < 0:
            problems.append(f"Line {number} ({line.product.name}): the quantity cannot be negative.")
        elif qty:
            arrived[line.pk] = qty
    return arrived, seen, problems


@require_http_methods(["GET", "POST"])
@workspace_view
def order_receive(request: HttpRequest, order_id: int) -> HttpResponse:
    """Mark goods received for an order, in full or per line; stock rises through the journal."""
    order = _order_or_404(request.store, order_id)
    status = 200
    if request.method == "POST":
        everything = "all" in request.POST
        arrived, seen, problems = _posted(request, order)
        if problems and not everything:
            for problem in problems:
                messages.error(request, problem)
            status = 400
        else:
            try:
                services.order_receive(store=request.store, order_id=order.pk, actor=_actor(request),
                                       arrived=None if everything else arrived, seen=seen)
            except EditConflict as exc:
                messages.error(request, exc.message)
                status = 409
            except LedgerError as exc:
                messages.error(request, exc.message)
                status = 400
            else:
                order = _order_or_404(request.store, order_id)
                messages.success(request, f"Order #{order.pk}: {order.get_status_display().lower()}; stock is updated.")
                return redirect("owner:orders")
        order = _order_or_404(request.store, order_id)
    return render(request, "dashboard/order_receive.html", {"section": "orders", "order": order}, status=status)
