"""An opening stock count from a CSV (``sku,stock`` or ``barcode,stock``): planned per row, applied at once.

Each changed count is journalled as an "opening" entry (and clears a product's recount flag).
Applying checks every count against the one the preview saw, so a sale or a count since then
is a conflict rather than a lost change; the same file applied twice changes nothing the
second time.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from ledger.catalog_csv import Table
from ledger.errors import EditConflict, InvalidInput
from ledger.models import Product, StockEntry
from ledger.services import checks
from ledger.services.catalog_plan import (
    CHANGE,
    REJECT,
    UNCHANGED,
    Progress,
    check_header,
)
from ledger.services.locks import store_lock
from ledger.services.product_fields import InvalidField, whole
from tenants.models import Store

COLUMNS = ("sku", "barcode", "stock")
_BATCH = 500


def _row_plan(row: int, cells: dict[str, str], wide: bool, by_key: dict[str, Product], key: str,
              seen: dict[int, int]) -> dict[str, Any]:
    errors: list[InvalidField] = []
    if wide:
        errors.append(InvalidField(_("row"), _("has more cells than the header has columns")))
    code = cells.get(key, "").strip()
    product = by_key.get(code.casefold() if key == "barcode" else code)
    if not code:
        errors.append(InvalidField(key, _("is required")))
    elif product is None:
        errors.append(InvalidField(key, _("no product with %(key)s %(code)s in this store") % {"key": key.upper(), "code": code[:64]}))
    elif product.pk in seen:
        errors.append(InvalidField(key, _("%(code)s appears again (first on row %(row)s)") % {"code": code, "row": seen[product.pk]}))
    else:
        seen[product.pk] = row
    count = None
    if not cells.get("stock", "").strip():
        errors.append(InvalidField("stock", _("is required")))
    else:
        try:
            count = whole("stock", cells["stock"], minimum=0, maximum=checks.MAX_COUNT, default=0)
        except InvalidField as problem:
            errors.append(problem)
    plan: dict[str, Any] = {"row": row, "sku": product.sku if product else code, "name": product.name if product else ""}
    if errors or product is None or count is None:
        plan.update(status=REJECT, errors=[{"column": e.field, "reason": e.reason} for e in errors])
        return plan
    plan.update(product=product.pk, before=product.stock, stock=count,
                status=CHANGE if count != product.stock else UNCHANGED)
    if count != product.stock:
        plan["changes"] = {"stock": [product.stock, count]}
    return plan


def stock_plan(*, store: Store, table: Table, progress: Progress | None = None) -> list[dict[str, Any]]:
    """Per row of a stock-count CSV: the product's count now and the count it would get.

    Raises:
        InvalidInput: the header lacks ``stock`` or a ``sku``/``barcode`` column, or has others.
    """
    check_header(table.header, allowed=COLUMNS, required=("stock",))
    if "sku" in table.header and "barcode" in table.header:
        raise InvalidInput(_("Give either a “sku” or a “barcode” column, not both."))
    key = "sku" if "sku" in table.header else "barcode" if "barcode" in table.header else None
    if key is None:
        raise InvalidInput(_("The file needs a “sku” (or “barcode”) column."))
    products = list(Product.objects.filter(store=store))
    by_key = {p.sku: p for p in products} if key == "sku" else {p.barcode.casefold(): p for p in products if p.barcode}
    seen: dict[int, int] = {}
    plan = []
    for index, (row, cells, wide) in enumerate(table.records, start=1):
        plan.append(_row_plan(row, cells, wide, by_key, key, seen))
        if progress is not None and index % _BATCH == 0:
            progress(index)
    return plan


def stock_apply(*, store: Store, plan: list[dict[str, Any]], actor: str, progress: Progress | None = None) -> int:
    """Set the planned counts, each journalled as an opening entry; returns how many changed.

    Runs inside the caller's transaction and store context.

    Raises:
        InvalidInput: the plan has rejected rows.
        EditConflict: a count changed since the preview.
    """
    if any(item["status"] == REJECT for item in plan):
        raise InvalidInput(_("Fix the rejected rows and upload the file again; nothing was imported."))
    store_lock(store)
    changes = [item for item in plan if item["status"] == CHANGE]
    now = timezone.now()
    done = 0
    for start in range(0, len(changes), _BATCH):
        batch = changes[start:start + _BATCH]
        locked = {p.pk: p for p in Product.objects.select_for_update().filter(store=store, pk__in=[i["product"] for i in batch])}
        entries = []
        for item in batch:
            product = locked.get(item["product"])
            if product is None or product.stock != item["before"]:
                raise EditConflict(_("Row %(row)s: the count of %(name)s changed since the preview. Nothing was imported; "
                                     "preview the file again.") % {"row": item["row"], "name": item["name"]})
            entries.append(StockEntry(store=store, product=product, reason=StockEntry.Reason.OPENING, before=product.stock,
                                      after=item["stock"], actor=actor, note=_("stock count import"), created_at=now))
            product.stock, product.needs_recount, product.updated_at = item["stock"], False, now
        StockEntry.objects.bulk_create(entries)
        Product.objects.bulk_update(list(locked.values()), ["stock", "needs_recount", "updated_at"])
        done += len(batch)
        if progress is not None:
            progress(done)
    return len(changes)
