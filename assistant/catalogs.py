"""The store's catalog as grounding sees it, kept per process until the catalog changes.

Building a ``Catalog`` (and its lookup indexes) from the ledger costs time that grows with the
catalog (about half a second a turn at 5,000 products), so the built catalog is kept per store and
reused while the catalog's fingerprint (``ledger.selectors.catalog_version``: the number of
products, the sum of their versions, the highest id and the latest creation time, one aggregate) is unchanged. Every
catalog write (add, edit, archive, restore, photo, import) raises a product's version or adds a
product, so the next turn after any change rebuilds it: the assistant follows the catalog at once.
Stock counts are not part of the grounding catalog, so sales do not invalidate it.
"""

from __future__ import annotations

import threading

from assistant.grounding import Catalog
from assistant.lexicon import Lexicon
from ledger import selectors
from shelfwise.versioned import VersionedCache
from tenants.models import Store

MAX_STORES = 64
_catalogs: VersionedCache[Catalog] = VersionedCache(MAX_STORES)
_lock = threading.Lock()


def catalog_for(*, store: Store, lexicon: Lexicon | None) -> Catalog:
    """The store's active products as a grounding ``Catalog``, rebuilt only when the catalog changed."""
    return _catalogs.get((store.pk, id(lexicon)),  # lexicons are per-process singletons
                         selectors.catalog_version(store=store),
                         lambda: Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon))


_data_checked: dict[int, Catalog] = {}


def catalog_data_check(*, store: Store, catalog: Catalog) -> None:
    """The guard's injection check on the store's catalog text, once per catalog version.

    ``catalog`` is this turn's ``catalog_for``: a new object exactly when the catalog's version
    changed, so the catalog last checked stands for the version last checked (no second
    fingerprint query per turn).

    Raises:
        DataBlocked: the catalog holds an injection, or the guard could not judge it (fail closed;
            nothing is remembered, so the next turn checks again).
    """
    from assistant.guard.data import catalog_texts, data_check

    if _data_checked.get(store.pk) is catalog:
        return
    data_check(catalog_texts(selectors.product_list(store=store)), source="catalog")
    with _lock:
        if len(_data_checked) > MAX_STORES:
            _data_checked.clear()
        _data_checked[store.pk] = catalog
