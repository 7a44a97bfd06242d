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
from tenants.models import Store
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


def bench_store_create(*, label: str, seed: int = 7) -> Store:
    """A new store with the demo catalog, under a unique slug ``bench-<label>-<random>``."""
    suffix = secrets.token_hex(3)
    slug = f"bench-{slugify(label)[: 50 - len('bench--') - len(suffix)].strip('-')}-{suffix}"
    with transaction.atomic():
        store = store_create(
            name=STORE_NAME, slug=slug, business_type=BUSINESS_TYPE, timezone=TIMEZONE, currency=CURRENCY,
            owner=bench_owner(), owner_name=OWNER_NAME,
        )
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
