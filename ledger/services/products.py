"""The catalog: adding, editing, archiving and restoring products.

Every edit raises the product's ``version``; an edit names the version it was made over, so two
people editing the same product cannot silently overwrite each other (the second gets
``EditConflict``). Stock never changes here except a new product's opening count: counts go
through ``stock_set``, sales through receipts, deliveries through orders.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from ledger.errors import EditConflict, InvalidInput, NotFound
from ledger.models import Product, StockEntry
from ledger.scope import store_scope
from ledger.services import checks, product_fields
from ledger.services.journal import journal_append
from ledger.services.locks import store_lock
from ledger.services.product_fields import InvalidField
from tenants.models import Store

_SKU_ATTEMPTS = 1000


def _next_sku(store: Store) -> str:
    """A free ``P-00001``-style SKU for a product added without one (the store is locked)."""
    top = Product.objects.filter(store=store, sku__regex=r"^P-[0-9]+$").aggregate(top=Max("sku"))["top"]
    start = int(top[2:]) + 1 if top else 1
    for number in range(start, start + _SKU_ATTEMPTS):
        candidate = f"P-{number:05d}"
        if not Product.objects.filter(store=store, sku=candidate).exists():
            return candidate
    raise InvalidInput(_("Give the product a SKU."))


def _check_unique(store: Store, fields: dict[str, Any], *, exclude: int | None = None) -> None:
    """Name, SKU and barcode are each unique in the store (names and codes compared without case).

    Raises:
        InvalidField: another product of the store already has one of them.
    """
    others = Product.objects.filter(store=store)
    if exclude is not None:
        others = others.exclude(pk=exclude)
    checks_ = [("name", "name__iexact"), ("sku", "sku__iexact"), ("barcode", "barcode__iexact")]
    for field, lookup in checks_:
        value = fields.get(field)
        if not value:
            continue
        clash = others.filter(**{lookup: value}).values_list("name", "sku").first()
        if clash is not None:
            raise InvalidField(
                field,
                _("%(value)s is already used by %(name)s (SKU %(sku)s)") % {"value": value, "name": clash[0], "sku": clash[1]},
            )


def _with_location(fields: dict[str, Any]) -> dict[str, Any]:
    fields["location"] = product_fields.location_of(
        aisle=fields.get("aisle", ""), shelf=fields.get("shelf", ""), position=fields.get("position", "")
    )
    return fields


def product_create(
    *,
    store: Store,
    actor: str,
    stock: int = 0,
    now: dt.datetime | None = None,
    location: str | None = None,
    **values: Any,
) -> Product:
    """Add a product with its opening count, recorded as an "opening" journal entry.

    ``values`` are product fields (``ledger.services.product_fields.COLUMNS``); ``name`` and
    ``price`` are required, a missing SKU gets the next free ``P-nnnnn``. ``location`` is a
    shortcut for aisle, shelf and position ("Aisle 2, bottom shelf, left").

    Raises:
        InvalidField: a field is missing or malformed, or its name, SKU or barcode is taken.
        InvalidQuantity: the opening count is negative, fractional or absurd.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    if location is not None and not {"aisle", "shelf", "position"} & set(values):
        values.update(product_fields.location_parts(location))
    if not values.get("sku"):
        values.pop("sku", None)
    for required in ("name", "price"):
        values.setdefault(required, None)
    fields = {**product_fields.DEFAULTS, **product_fields.clean(values)}
    product_fields.check_levels(fields)
    opening = checks.stock_count(stock, what="opening stock")
    with store_scope(store, what="product"), transaction.atomic():
        store_lock(store)
        fields["sku"] = fields.get("sku") or _next_sku(store)
        _check_unique(store, fields)
        product = Product.objects.create(store=store, stock=0, **_with_location(fields))
        journal_append(product=product, after=opening, reason=StockEntry.Reason.OPENING, actor=actor, at=at)
    return product


def _locked(store: Store, product: Product) -> Product:
    if product.store_id != store.pk:
        raise NotFound("product")
    locked = Product.objects.select_for_update().filter(store=store, pk=product.pk).first()
    if locked is None:
        raise NotFound("product")
    return locked


def _conflict(product: Product) -> EditConflict:
    return EditConflict(
        _("%(name)s was changed by someone else since you opened it. Nothing was saved; look at the new values "
          "and try again.") % {"name": product.name},
        product=product.name,
        version=product.version,
    )


def product_update(*, store: Store, product: Product, version: int, actor: str, **changes: Any) -> Product:
    """Change some of a product's fields, over the ``version`` the caller saw.

    Raises:
        NotFound: the product is not this store's.
        EditConflict: the product changed since ``version``; nothing was saved.
        InvalidField: a value is malformed, or the new name, SKU or barcode is taken.
    """
    checks.actor_of(actor)
    if not changes:
        raise InvalidInput(_("Nothing to change."))
    cleaned = product_fields.clean(changes)
    with store_scope(store, what="product"), transaction.atomic():
        locked = _locked(store, product)
        if locked.version != version:
            raise _conflict(locked)
        merged = {field: getattr(locked, field) for field in product_fields.EDITABLE}
        merged.update(cleaned)
        merged["aliases"] = product_fields.aliases(merged["aliases"], name=merged["name"])
        product_fields.check_levels(merged)
        _check_unique(store, {k: merged[k] for k in ("name", "sku", "barcode")}, exclude=locked.pk)
        for field, value in _with_location(merged).items():
            setattr(locked, field, value)
        locked.version += 1
        locked.save()
    return locked


def _set_active(*, store: Store, product: Product, active: bool, actor: str, version: int | None) -> Product:
    checks.actor_of(actor)
    with store_scope(store, what="product"), transaction.atomic():
        locked = _locked(store, product)
        if version is not None and locked.version != version:
            raise _conflict(locked)
        if locked.active != active:
            locked.active = active
            locked.version += 1
            locked.save(update_fields=["active", "version", "updated_at"])
    return locked


def product_archive(*, store: Store, product: Product, actor: str, version: int | None = None) -> Product:
    """Take a product out of the catalog: the assistant, the shelf finder, reports and reorders no
    longer see it; its journal, sales and orders stay. Archiving an archived product changes nothing.

    Raises:
        NotFound: the product is not this store's.
        EditConflict: ``version`` is given and the product changed since.
    """
    return _set_active(store=store, product=product, active=False, actor=actor, version=version)


def product_restore(*, store: Store, product: Product, actor: str, version: int | None = None) -> Product:
    """Bring an archived product back into the catalog.

    Raises:
        NotFound: the product is not this store's.
        EditConflict: ``version`` is given and the product changed since.
    """
    return _set_active(store=store, product=product, active=True, actor=actor, version=version)


def recount_flag_clear(*, product: Product) -> None:
    """A counted product no longer needs a recount (the caller holds its row lock)."""
    if product.needs_recount:
        product.needs_recount = False
        product.save(update_fields=["needs_recount", "updated_at"])
