"""The shelf finder's reads: where the products a shopper names are, and nothing else.

A shopper sees a product's name, unit, aisle, shelf note and photo; never stock, prices or costs.
What the finder needs of a store's catalog (those public fields, each product's group, the
grounding catalog and its lookups, a fuzzy matcher) is built once per catalog version and kept
per process (``ShelfView``), so a search costs one fingerprint query and grounding in code (the lookups for the store's
lexicon are built by the first search and kept with the view); any
catalog write (name, alias, location, shelf note, photo, archive, import) changes the fingerprint
(``ledger.selectors.catalog_version``) and the next search rebuilds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from assistant.grounding import Catalog, ground
from assistant.lexicon import Lexicon, LexiconError, lexicon_for
from ledger import selectors as ledger_selectors
from ledger.matching import Matcher
from ledger.models import Product
from packs.source import store_pack_key
from shelfwise.versioned import VersionedCache
from tenants.models import Store

FINDER_RESULTS = 4
FINDER_GROUP_LIMIT = 12
DEFAULT_CACHED_STORES = 512


@dataclass(frozen=True)
class ShelfSpot:
    """What a shopper may see of a product: where it is. No stock, prices or costs."""

    name: str
    unit: str
    location: str
    shelf_note: str
    photo_url: str | None


@dataclass(frozen=True)
class ShelfAnswer:
    """The shelf finder's answer to a shopper's words.

    Attributes:
        found: the products the words name, best first.
        maybe: products the words could mean but do not settle ("rice": basmati or sona masoori).
        group: the aisle or category asked for, with its products in ``found``.
        unknown: words for a product the store does not carry.
    """

    query: str
    found: tuple[ShelfSpot, ...] = ()
    maybe: tuple[ShelfSpot, ...] = ()
    group: str | None = None
    unknown: str | None = None


@dataclass(frozen=True)
class ShelfView:
    """One catalog version as the finder reads it: public spots by product id, in name order."""

    spots: dict[int, ShelfSpot]
    groups: dict[int, str]
    catalog: Catalog  # grounding's lookups are built on its first search and kept with it
    matcher: Matcher


def _spot(product: Product) -> ShelfSpot:
    return ShelfSpot(
        name=product.name,
        unit=product.unit,
        location=product.location,
        shelf_note=product.shelf_note,
        photo_url=product.photo.url if product.photo else None,
    )


def _view_build(products: list[Product]) -> ShelfView:
    return ShelfView(
        spots={p.pk: _spot(p) for p in products},
        groups={p.pk: p.category for p in products},
        catalog=Catalog.from_products(products),
        matcher=Matcher.of(products),
    )


def _cached_stores() -> int:
    value = getattr(settings, "SHELF_FINDER_CACHED_STORES", DEFAULT_CACHED_STORES)
    return value if isinstance(value, int) and value > 0 else DEFAULT_CACHED_STORES


_views: VersionedCache[ShelfView] = VersionedCache(_cached_stores)


def shelf_view(*, store: Store, version: tuple) -> ShelfView:
    """The store's shelf view at ``version`` (``catalog_version``), built on the first search after a change."""
    return _views.get(store.pk, version, lambda: _view_build(ledger_selectors.product_list(store=store)))


def _lexicon(store: Store) -> Lexicon | None:
    try:
        return lexicon_for(store_pack_key(store))
    except LexiconError:
        return None


def shelf_find(*, store: Store, text: str) -> ShelfAnswer:
    """Where the products a shopper names are, with the assistant's lexicon for synonyms and mishearings.

    Grounding runs in code on the cached view. A catalog word the lexicon does not cover still gets
    the ledger's product matcher (``ledger.matching.Matcher``) before "not found".
    """
    query = " ".join((text or "").split())[:200]
    if not query:
        return ShelfAnswer(query="")
    version = ledger_selectors.catalog_version(store=store)
    view = shelf_view(store=store, version=version)
    lexicon = _lexicon(store)
    if lexicon is not None and view.spots:
        grounding = ground(query, catalog=view.catalog, lexicon=lexicon)
        found = tuple(view.spots[ref.id] for ref in grounding.products[:FINDER_RESULTS] if ref.id in view.spots)
        maybe = tuple(view.spots[ref.id] for ref in grounding.ambiguous[:FINDER_RESULTS] if ref.id in view.spots)
        if found or maybe:
            return ShelfAnswer(query=query, found=found, maybe=maybe, unknown=grounding.unknown)
        if grounding.group:
            members = [spot for pk, spot in view.spots.items() if view.groups[pk] == grounding.group]
            return ShelfAnswer(query=query, found=tuple(members[:FINDER_GROUP_LIMIT]), group=grounding.group)
        if grounding.unknown:
            return ShelfAnswer(query=query, unknown=grounding.unknown)
    matches = view.matcher.rank(query, limit=FINDER_RESULTS)
    if matches:
        return ShelfAnswer(query=query, found=tuple(view.spots[match.id] for match in matches))
    return ShelfAnswer(query=query, unknown=query)
