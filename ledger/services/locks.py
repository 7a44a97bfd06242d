"""Row locks the services take, always in the same order (store, then products by id)."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.errors import NotFound
from ledger.models import Product
from tenants.models import Store


def store_lock(store: Store) -> None:
    """Serialise per-store sequences (receipt numbers, the single pending draft) on the store row."""
    list(Store.objects.select_for_update().filter(pk=store.pk).values_list("pk", flat=True))


def products_lock(store: Store, product_ids: Iterable[int]) -> dict[int, Product]:
    """Lock the store's products with these ids, in id order so concurrent writers never deadlock.

    Raises:
        NotFound: any of them is not this store's product.
    """
    wanted = {int(pk) for pk in product_ids}
    locked = {
        product.pk: product
        for product in Product.objects.select_for_update().filter(store=store, pk__in=wanted).order_by("pk")
    }
    if set(locked) != wanted:
        raise NotFound("product")
    return locked
