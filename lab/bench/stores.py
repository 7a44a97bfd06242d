"""Throwaway demo stores for benchmark runs: seeded fresh, deleted afterwards with their photos."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.text import slugify

from ledger.demo import install_demo_catalog
from ledger.models import Product
from tenants.context import use_store
from tenants.models import PackVersion, Store
from tenants.services import store_create, store_delete

ACTOR = "system:bench"
BENCH_USER = "shelfwise-bench"
# The demo store's own name, owner and settings, so prompts and replies are the ones owners get.
STORE_NAME = "Little India Grocery"
OWNER_NAME = "Raj"
TIMEZONE = "America/Chicago"
CURRENCY = "USD"
BUSINESS_TYPE = "grocery"


def bench_owner():
    """The account that owns benchmark stores: inactive and without a usable password (no login)."""
    User = get_user_model()
    fields = {User.USERNAME_FIELD: BENCH_USER} if User.USERNAME_FIELD != "email" else {}
    user = User.objects.filter(**(fields or {"email": f"{BENCH_USER}@shelfwise.invalid"})).first()
    if user is None:
        user = User(**fields, email=f"{BENCH_USER}@shelfwise.invalid", is_active=False)
        user.set_unusable_password()
        user.save()
    return user


def bench_store_create(*, label: str, seed: int = 7, pack_version: PackVersion | None = None,
                       sample: bool = False) -> Store:
    """A new store under a unique slug ``bench-<label>-<random>``: the demo catalog, or a pack's sample catalog.

    ``pack_version``: the pack version the store runs (draft or published; a real store runs only a
    published one), of its business type; None for grocery's newest published version.
    ``sample``: the version's ``sample_catalog.csv`` through the catalog import (every count 0, no
    sales) instead of the demo catalog (grocery's products with generated sales).

    Raises:
        ledger.errors.InvalidInput: a sample catalog row cannot be imported.
    """
    from packs.services import store_sample_catalog_install

    suffix = secrets.token_hex(3)
    slug = f"bench-{slugify(label)[: 50 - len('bench--') - len(suffix)].strip('-')}-{suffix}"
    kind = pack_version.business_type.slug if pack_version is not None else BUSINESS_TYPE
    with transaction.atomic():
        store = store_create(
            name=pack_version.name if sample and pack_version is not None else STORE_NAME, slug=slug,
            business_type=kind, timezone=TIMEZONE, currency=CURRENCY, owner=bench_owner(), owner_name=OWNER_NAME,
        )
        if pack_version is not None:
            Store.objects.filter(pk=store.pk).update(pack_version=pack_version)
            store = Store.objects.select_related("business_type").get(pk=store.pk)
        if sample:
            store_sample_catalog_install(store=store)
        else:
            with use_store(store):
                install_demo_catalog(store=store, seed=seed, actor=ACTOR)
    return Store.objects.select_related("business_type").get(pk=store.pk)


def bench_store_delete(*, store: Store) -> None:
    """Delete the store and everything it owns, then (once that commits) its shelf photo files."""
    with use_store(store):
        photos = [name for name in Product.objects.filter(store=store).values_list("photo", flat=True) if name]
    with transaction.atomic():
        store_delete(store=store, actor=ACTOR)
        transaction.on_commit(lambda: [default_storage.delete(name) for name in photos])


def migrations_pending() -> list[str]:
    """Unapplied migrations of the default database ("app.name"), so a run fails before seeding a store."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


# A replayed case's store: what ``assistant.regressions`` captured, nothing of the live store's identity.
PRODUCT_KEYS = frozenset({
    "name", "aliases", "unit", "category", "pack_size", "location", "shelf_note", "stock", "par_level",
    "reorder_point", "price", "unit_cost", "supplier",
})
MAX_CAPTURED_PRODUCTS = 200


def captured_store_problem(spec: object) -> str | None:
    """What is wrong with a captured store's description, or None when it can be built."""
    if not isinstance(spec, dict):
        return "must be an object with business_type, timezone, currency and products."
    for key in ("business_type", "timezone", "currency"):
        if not isinstance(spec.get(key), str) or not spec[key].strip():
            return f"{key!r} must be a non-empty string."
    products = spec.get("products")
    if not isinstance(products, list) or not 0 < len(products) <= MAX_CAPTURED_PRODUCTS:
        return f"'products' must be a list of 1 to {MAX_CAPTURED_PRODUCTS} products."
    names: set[str] = set()
    for number, product in enumerate(products, start=1):
        if not isinstance(product, dict) or not isinstance(product.get("name"), str) or not product["name"].strip():
            return f"product {number} must be an object with a 'name'."
        extra = sorted(set(product) - PRODUCT_KEYS)
        if extra:
            return f"product {product['name']!r}: unknown key {extra[0]!r}."
        stock = product.get("stock")
        if not isinstance(stock, int) or isinstance(stock, bool) or stock < 0:
            return f"product {product['name']!r}: 'stock' must be a whole number (0 or more)."
        if product["name"].casefold() in names:
            return f"product {product['name']!r} is listed twice."
        names.add(product["name"].casefold())
    return None


def captured_store_create(*, label: str, spec: dict) -> Store:
    """A new store holding exactly the products a replayed case captured (its business type, zone and currency).

    Raises:
        ValueError: the business type does not exist here, or a product's fields cannot be used.
    """
    from decimal import Decimal

    from ledger.errors import LedgerError
    from ledger.services import product_create
    from tenants.models import BusinessType

    if not BusinessType.objects.filter(slug=spec["business_type"]).exists():
        raise ValueError(f"The case's business type {spec['business_type']!r} does not exist here.")
    suffix = secrets.token_hex(3)
    slug = f"replay-{slugify(label)[: 50 - len('replay--') - len(suffix)].strip('-')}-{suffix}"
    with transaction.atomic():
        store = store_create(
            name=STORE_NAME, slug=slug, business_type=spec["business_type"], timezone=spec["timezone"],
            currency=spec["currency"], owner=bench_owner(), owner_name=OWNER_NAME,
        )
        with use_store(store):
            for product in spec["products"]:
                values = {key: value for key, value in product.items() if value not in (None, "")}
                for money in ("price", "unit_cost"):
                    if money in values:
                        values[money] = Decimal(str(values[money]))
                try:
                    product_create(store=store, actor=ACTOR, **values)
                except LedgerError as exc:
                    raise ValueError(f"Product {product['name']!r} cannot be created: {exc}") from exc
    return Store.objects.select_related("business_type").get(pk=store.pk)
