"""What a catalog CSV would do, row by row, and doing it in one transaction.

``catalog_plan`` reads nothing but the store's products and the file, and says per row: create
(a new SKU), change (with each changed field's old and new value), unchanged, or rejected (with
every problem's column and reason). ``catalog_apply`` carries out a plan whose every row was
accepted, over the product versions the plan saw: a product edited since the preview is a
conflict and nothing is written. The same file imported twice plans only "unchanged" rows the
second time and writes nothing.

Columns present in the file set their fields (an empty cell means the field's empty value or
default); columns left out of the file leave existing products' fields as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ledger.catalog_csv import Table
from ledger.errors import EditConflict, InvalidInput
from ledger.models import Product
from ledger.services import product_fields
from ledger.services.locks import store_lock
from ledger.services.product_fields import COLUMNS, DEFAULTS, InvalidField
from tenants.models import Store

Progress = Callable[[int], None]
CREATE, CHANGE, UNCHANGED, REJECT = "create", "change", "unchanged", "reject"
_BATCH = 500


def check_header(header: list[str], *, allowed: tuple[str, ...], required: tuple[str, ...]) -> None:
    """The header names known columns, each once, with the required ones.

    Raises:
        InvalidInput: an unknown, repeated or missing column (named, with its position).
    """
    seen: set[str] = set()
    for position, name in enumerate(header, start=1):
        if not name:
            raise InvalidInput(_("Column %(n)s has no name in the header row.") % {"n": position})
        if name not in allowed:
            raise InvalidInput(
                _("Unknown column “%(name)s” (column %(n)s). The columns are: %(columns)s.")
                % {"name": name[:40], "n": position, "columns": ", ".join(allowed)}
            )
        if name in seen:
            raise InvalidInput(_("The column “%(name)s” appears twice in the header row.") % {"name": name})
        seen.add(name)
    missing = [name for name in required if name not in seen]
    if missing:
        raise InvalidInput(_("The file needs a “%(name)s” column.") % {"name": missing[0]})


def _json(value: Any) -> Any:
    return str(value) if isinstance(value, Decimal) else value


def _current(product: Product) -> dict[str, Any]:
    return {field: getattr(product, field) for field in COLUMNS}


class _Taken:
    """Names and barcodes as the catalog will hold them after the file, to refuse duplicates."""

    def __init__(self, products: list[Product], skus_in_file: set[str]) -> None:
        kept = [p for p in products if p.sku not in skus_in_file]
        self.names = {p.name.casefold(): _("%(name)s (SKU %(sku)s)") % {"name": p.name, "sku": p.sku} for p in kept}
        self.barcodes = {p.barcode.casefold(): _("%(name)s (SKU %(sku)s)") % {"name": p.name, "sku": p.sku}
                         for p in kept if p.barcode}

    def claim(self, fields: dict[str, Any], row: int, errors: list[InvalidField]) -> None:
        name_key = fields["name"].casefold()
        if name_key in self.names:
            errors.append(InvalidField("name", _("%(value)s is already used by %(owner)s")
                                       % {"value": fields["name"], "owner": self.names[name_key]}))
        barcode_key = fields["barcode"].casefold()
        if barcode_key and barcode_key in self.barcodes:
            errors.append(InvalidField("barcode", _("%(value)s is already used by %(owner)s")
                                       % {"value": fields["barcode"], "owner": self.barcodes[barcode_key]}))
        if not errors:
            self.names[name_key] = _("row %(row)s") % {"row": row}
            if barcode_key:
                self.barcodes[barcode_key] = _("row %(row)s") % {"row": row}


def _row_plan(row: int, cells: dict[str, str], wide: bool, existing: dict[str, Product], seen: dict[str, int],
              taken: _Taken) -> dict[str, Any]:
    errors: list[InvalidField] = []
    if wide:
        errors.append(InvalidField(_("row"), _("has more cells than the header has columns")))
    cleaned = product_fields.clean(cells, errors=errors)
    sku = cleaned.get("sku") or cells.get("sku", "")
    product = existing.get(sku)
    if sku in seen:
        errors.append(InvalidField("sku", _("%(sku)s appears again (first on row %(row)s)") % {"sku": sku, "row": seen[sku]}))
    elif sku:
        seen[sku] = row
    if product is None:
        for required in ("name", "price"):
            if required not in cells:
                errors.append(InvalidField(required, _("is required for a new product")))
        merged = {**DEFAULTS, **cleaned}
    else:
        merged = {**_current(product), **cleaned}
    if "name" in merged and "aliases" in merged:
        merged["aliases"] = product_fields.aliases(merged["aliases"], name=merged["name"])
    if not errors:
        try:
            product_fields.check_levels(merged)
        except InvalidField as problem:
            errors.append(problem)
    if not errors:
        taken.claim(merged, row, errors)
    plan: dict[str, Any] = {"row": row, "sku": sku, "name": merged.get("name") or cells.get("name", "")}
    if errors:
        plan.update(status=REJECT, errors=[{"column": e.field, "reason": e.reason} for e in errors])
        return plan
    if product is None:
        plan.update(status=CREATE, values={k: _json(v) for k, v in merged.items()})
        return plan
    current = _current(product)
    changes = {k: [_json(current[k]), _json(v)] for k, v in merged.items() if k in COLUMNS and current[k] != v}
    plan.update(status=CHANGE if changes else UNCHANGED, product=product.pk, version=product.version)
    if changes:
        plan["changes"] = changes
    return plan


def catalog_plan(*, store: Store, table: Table, progress: Progress | None = None) -> list[dict[str, Any]]:
    """Per row of a catalog CSV: what importing it would do, and why a row is rejected.

    Raises:
        InvalidInput: the header names an unknown column, repeats one, or lacks ``sku``.
    """
    check_header(table.header, allowed=COLUMNS, required=("sku",))
    products = list(Product.objects.filter(store=store))
    existing = {product.sku: product for product in products}
    skus = {cells.get("sku", "").strip() for _row, cells, _wide in table.records}
    taken, seen = _Taken(products, skus), dict[str, int]()
    plan = []
    for index, (row, cells, wide) in enumerate(table.records, start=1):
        plan.append(_row_plan(row, cells, wide, existing, seen, taken))
        if progress is not None and index % _BATCH == 0:
            progress(index)
    return plan


def _decoded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: Decimal(v) if k in ("price", "unit_cost") else v for k, v in values.items()}


def _location(fields: dict[str, Any]) -> str:
    return product_fields.location_of(aisle=fields["aisle"], shelf=fields["shelf"], position=fields["position"])


def catalog_apply(*, store: Store, plan: list[dict[str, Any]], progress: Progress | None = None) -> tuple[int, int]:
    """Create and change the planned products in one transaction; returns (created, changed).

    Runs inside the caller's transaction and store context.

    Raises:
        InvalidInput: the plan has rejected rows.
        EditConflict: a planned product changed (or a planned SKU appeared) since the preview.
    """
    if any(item["status"] == REJECT for item in plan):
        raise InvalidInput(_("Fix the rejected rows and upload the file again; nothing was imported."))
    store_lock(store)
    creates = [item for item in plan if item["status"] == CREATE]
    changes = [item for item in plan if item["status"] == CHANGE]
    locked = {p.pk: p for p in Product.objects.select_for_update().filter(store=store, pk__in=[i["product"] for i in changes])}
    for item in changes:
        product = locked.get(item["product"])
        if product is None or product.version != item["version"] or product.sku != item["sku"]:
            raise EditConflict(_("Row %(row)s: %(name)s was changed since the preview. Nothing was imported; preview "
                                 "the file again.") % {"row": item["row"], "name": item["name"]})
    new_skus = [item["sku"] for item in creates]
    for start in range(0, len(new_skus), _BATCH):
        clash = Product.objects.filter(store=store, sku__in=new_skus[start:start + _BATCH]).values_list("sku", flat=True).first()
        if clash is not None:
            row = next(item["row"] for item in creates if item["sku"] == clash)
            raise EditConflict(_("Row %(row)s: a product with SKU %(sku)s was added since the preview. Nothing was "
                                 "imported; preview the file again.") % {"row": row, "sku": clash})
    done = 0
    try:
        with transaction.atomic():
            for start in range(0, len(creates), _BATCH):
                batch = [_decoded(item["values"]) for item in creates[start:start + _BATCH]]
                Product.objects.bulk_create([Product(store=store, stock=0, location=_location(f), **f) for f in batch])
                done += len(batch)
                if progress is not None:
                    progress(done)
            now = timezone.now()
            for start in range(0, len(changes), _BATCH):
                rows = []
                for item in changes[start:start + _BATCH]:
                    product = locked[item["product"]]
                    for field, (_old, new) in item["changes"].items():
                        setattr(product, field, Decimal(new) if field in ("price", "unit_cost") else new)
                    product.location = _location(_current(product))
                    product.version += 1
                    product.updated_at = now
                    rows.append(product)
                Product.objects.bulk_update(rows, [*COLUMNS, "location", "version", "updated_at"])
                done += len(rows)
                if progress is not None:
                    progress(done)
    except IntegrityError:
        raise EditConflict(_("Two products in the file swap a name, SKU or barcode; change them in two imports. "
                             "Nothing was imported.")) from None
    return len(creates), len(changes)
