"""Catalog import and till receipt throughput: ``.venv/bin/python scripts/bench_catalog.py``.

    .venv/bin/python scripts/bench_catalog.py [--rows 10000] [--receipts 300]

On a fresh SQLite database in a temporary data folder (or ``--database-url``), with the embedded
defaults (Celery eager, as ``make run`` without a broker):

1. a generated catalog of ``--rows`` products (``scripts/catalog_gen.py``) is uploaded, previewed
   (the preview task) and applied (the apply task), then the same file is imported again (every
   row unchanged, nothing written), then an opening stock count of every product;
2. ``--receipts`` receipts of 1-4 lines are posted to ``POST /api/v1/receipts`` through Django's
   test client with a store token (the whole middleware, authentication and service path, no
   network), each with its own Idempotency-Key, then each is retried once.

Prints seconds per step and receipts per second.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))


def configure(data_dir: Path, database_url: str | None) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["SHELFWISE_DATA_DIR"] = str(data_dir)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{data_dir / 'db.sqlite3'}"
    for variable in ("REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(variable, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _store():
    from django.contrib.auth import get_user_model

    from tenants.services import store_create

    owner = get_user_model().objects.create_user(username="bench", email="bench@example.com", password="x" * 20)
    return store_create(name="Bench Grocery", timezone="America/Chicago", currency="USD", owner=owner)


def _import(store, kind: str, content: bytes) -> tuple[float, float, object]:
    from ledger.models import CatalogImport
    from ledger.services import imports
    from tenants.context import use_store

    with use_store(store):
        started = time.perf_counter()
        job = imports.import_create(store=store, kind=kind, filename=f"{kind}.csv", content=content, actor="system:bench")
        job = CatalogImport.objects.get(pk=job.pk)
        previewed = time.perf_counter()
        imports.import_apply_request(store=store, import_id=job.pk, actor="system:bench")
        applied = time.perf_counter()
        job = CatalogImport.objects.get(pk=job.pk)
    assert job.status == "applied", (job.status, job.error)
    return previewed - started, applied - previewed, job


def bench_import(store, rows: int) -> None:
    import catalog_gen

    content = catalog_gen.csv_text(rows).encode()
    print(f"catalog file: {rows:,} rows, {len(content) / 1e6:.1f} MB")
    preview, apply, job = _import(store, "catalog", content)
    print(f"import: preview {preview:.2f} s, apply {apply:.2f} s, total {preview + apply:.2f} s "
          f"({job.created:,} created, {job.rejected} rejected)")
    preview, apply, job = _import(store, "catalog", content)
    print(f"re-import of the same file: preview {preview:.2f} s, apply {apply:.2f} s ({job.unchanged:,} unchanged, "
          f"{job.created + job.changed} written)")
    stock = "sku,stock\n" + "\n".join(f"GEN-{i + 1:05d},{(i * 7) % 40}" for i in range(rows)) + "\n"
    preview, apply, job = _import(store, "stock", stock.encode())
    print(f"opening stock count: preview {preview:.2f} s, apply {apply:.2f} s ({job.changed:,} counts journalled)")


def bench_receipts(store, count: int) -> None:
    from rest_framework.test import APIClient

    from ledger.models import Product
    from tenants.context import use_store
    from tenants.services import token_create

    with use_store(store):
        skus = list(Product.objects.filter(store=store).values_list("sku", flat=True)[:500])
    _, raw = token_create(store=store, name="till", scopes=["api"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    rng = random.Random(3)
    bodies = [{"lines": [{"sku": sku, "qty": rng.randint(1, 3)} for sku in rng.sample(skus, rng.randint(1, 4))]}
              for _ in range(count)]
    client.post("/api/v1/receipts", bodies[0], format="json", HTTP_IDEMPOTENCY_KEY="warm-up")
    for label, status in (("new receipts", 201), ("retries (same key)", 200)):
        started = time.perf_counter()
        for index, body in enumerate(bodies):
            response = client.post("/api/v1/receipts", body, format="json", HTTP_IDEMPOTENCY_KEY=f"bench-{index}")
            assert response.status_code == status, response.content[:300]
        elapsed = time.perf_counter() - started
        print(f"POST /api/v1/receipts, {label}: {count} in {elapsed:.2f} s = {count / elapsed:.0f}/s, "
              f"{1000 * elapsed / count:.1f} ms each")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--receipts", type=int, default=300)
    parser.add_argument("--database-url", default=None, help="Another database (it gets migrated); default: a temporary SQLite file.")
    args = parser.parse_args(argv)
    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-bench-catalog-"))
    try:
        configure(data_dir, args.database_url)
        store = _store()
        bench_import(store, args.rows)
        bench_receipts(store, args.receipts)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
