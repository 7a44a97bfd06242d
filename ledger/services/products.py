"""Creating products and their shelf photos."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterable
from decimal import Decimal

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from PIL import Image, UnidentifiedImageError

from ledger.errors import InvalidInput, NotFound
from ledger.models import Product, StockEntry
from ledger.scope import store_scope
from ledger.services import checks
from ledger.services.journal import journal_append
from tenants.models import Store

MAX_ALIASES = 20
MAX_PHOTO_BYTES = 5 * 1024 * 1024
_PHOTO_FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}


def _aliases(values: Iterable[str], *, name: str) -> list[str]:
    if isinstance(values, str):
        raise InvalidInput(_("Aliases are a list of names."))
    seen = {name.casefold()}
    cleaned: list[str] = []
    for value in values:
        alias = checks.text(value, what="alias", max_length=120)
        if alias.casefold() not in seen:
            seen.add(alias.casefold())
            cleaned.append(alias)
    if len(cleaned) > MAX_ALIASES:
        raise InvalidInput(_("A product can have at most %(max)s aliases.") % {"max": MAX_ALIASES})
    return cleaned


def product_create(
    *,
    store: Store,
    name: str,
    unit: str,
    category: str,
    location: str,
    stock: int,
    par_level: int,
    reorder_point: int,
    price: Decimal | str | int,
    unit_cost: Decimal | str | int,
    aliases: Iterable[str] = (),
    supplier: str = "Amazon Business",
    shelf_note: str = "",
    actor: str,
    now: dt.datetime | None = None,
) -> Product:
    """Add a product to the store with its opening count, recorded as an "opening" journal entry.

    Raises:
        InvalidInput: a field is missing or malformed, or the store already has a product of that name.
        InvalidQuantity: a count is negative, fractional or absurd.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    name = checks.text(name, what="name", max_length=120)
    fields = {
        "name": name,
        "aliases": _aliases(aliases, name=name),
        "unit": checks.text(unit, what="unit", max_length=40),
        "category": checks.text(category, what="category", max_length=60),
        "location": checks.text(location, what="location", max_length=120),
        "shelf_note": checks.text(shelf_note, what="shelf note", max_length=120, required=False),
        "supplier": checks.text(supplier, what="supplier", max_length=80),
        "par_level": checks.stock_count(par_level, what="par level"),
        "reorder_point": checks.stock_count(reorder_point, what="reorder point"),
        "price": checks.money(price, what="price"),
        "unit_cost": checks.money(unit_cost, what="unit cost"),
    }
    opening = checks.stock_count(stock, what="opening stock")
    if fields["reorder_point"] > fields["par_level"]:
        raise InvalidInput(_("The reorder point cannot be above the par level."))
    with store_scope(store, what="product"), transaction.atomic():
        if Product.objects.filter(store=store, name__iexact=name).exists():
            raise InvalidInput(_("This store already has a product named %(name)s.") % {"name": name})
        product = Product.objects.create(store=store, stock=0, **fields)
        journal_append(product=product, after=opening, reason=StockEntry.Reason.OPENING, actor=actor, at=at)
    return product


def product_photo_set(*, store: Store, product: Product, content: bytes, filename: str | None = None) -> Product:
    """Store a shelf photo (PNG, JPEG or WebP) for the product, replacing the earlier one.

    Raises:
        NotFound: the product is not this store's.
        InvalidInput: the bytes are not an image, or are too large.
    """
    if product.store_id != store.pk:
        raise NotFound("product")
    if not isinstance(content, bytes | bytearray) or not content:
        raise InvalidInput(_("The photo is empty."))
    if len(content) > MAX_PHOTO_BYTES:
        raise InvalidInput(_("The photo is larger than 5 MB; use a smaller one."))
    try:
        with Image.open(io.BytesIO(content)) as image:
            kind = image.format
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError):
        raise InvalidInput(_("The photo could not be read; use a PNG, JPEG or WebP image.")) from None
    if kind not in _PHOTO_FORMATS:
        raise InvalidInput(_("The photo could not be read; use a PNG, JPEG or WebP image."))
    stem = slugify(filename.rsplit(".", 1)[0]) if filename else ""
    stem = stem or f"{slugify(store.slug)}-{slugify(product.name) or product.pk}"
    with store_scope(store, what="product"), transaction.atomic():
        locked = Product.objects.select_for_update().filter(store=store, pk=product.pk).first()
        if locked is None:
            raise NotFound("product")
        old = locked.photo.name if locked.photo else ""
        locked.photo.save(f"{stem[:60]}.{_PHOTO_FORMATS[kind]}", ContentFile(bytes(content)), save=False)
        locked.save(update_fields=["photo", "updated_at"])
        if old and old != locked.photo.name:
            storage = locked.photo.storage
            transaction.on_commit(lambda: storage.delete(old))
    product.photo = locked.photo
    return locked
