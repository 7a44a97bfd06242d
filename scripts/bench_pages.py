"""Page render times and query counts on the demo store: ``.venv/bin/python scripts/bench_pages.py``.

    .venv/bin/python scripts/bench_pages.py [--runs 20] [--scripted-models] [--extra-products 0]

Seeds a fresh SQLite database in a temporary data folder exactly as ``scripts/screenshots.py``
does (``migrate``, ``seed_demo``, an admin, a few audited assistant turns), then renders each
main page ``--runs`` times through Django's test client (the full middleware stack and
templates, no network) signed in as the demo owner or the admin, and prints the median and p90
wall-clock milliseconds and the number of SQL queries per page. The target is < 300 ms.
``--extra-products N`` adds N products to the demo store first, to show that query counts do not
grow with the catalog.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import screenshots  # the same seeded site

TARGET_MS = 300.0


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    rank = (len(ordered) - 1) * 0.9
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="Renders per page (after one warm-up render).")
    parser.add_argument("--scripted-models", action="store_true", help="Seed the sample turns with scripted models.")
    parser.add_argument("--extra-products", type=int, default=0, help="Add this many products to the demo store.")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-bench-pages-"))
    try:
        screenshots.configure(data_dir)
        print(f"Seeding a fresh demo site in {data_dir} ...")
        site = screenshots.seed(scripted=args.scripted_models)
        return _measure(site, runs=args.runs, extra_products=args.extra_products)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _measure(site: screenshots.Site, *, runs: int, extra_products: int) -> int:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from ledger.models import Product
    from tenants.context import use_store
    from tenants.models import Store

    store = Store.objects.get(slug=site.store_slug)
    if extra_products:
        with use_store(store):
            Product.objects.bulk_create(
                Product(store=store, sku=f"X-{i:05d}", name=f"Extra product {i}", unit="1 kg bag", category="Staples",
                        location=f"Aisle 9, shelf {i % 5}", stock=i % 30, par_level=20, reorder_point=5,
                        price="1.99", unit_cost="1.00")
                for i in range(extra_products)
            )
    with use_store(store):
        products = Product.objects.filter(store=store).count()
    User = get_user_model()
    clients = {"public": Client(), "owner": Client(), "admin": Client()}
    clients["owner"].force_login(User.objects.get(email__iexact=site.owner_email))
    clients["admin"].force_login(User.objects.get(email__iexact=site.admin_email))
    pages = [("public", f"/s/{site.store_slug}/find?q=haldi")]
    pages += [("owner", path) for _, path in screenshots.OWNER_PAGES]
    pages += [("admin", path) for _, path in screenshots.admin_pages(site)]

    print(f"\n{products} products in {site.store_slug}; {runs} renders per page after one warm-up.")
    print(f"{'who':6} {'page':58} {'status':>6} {'median ms':>10} {'p90 ms':>8} {'queries':>8}")
    worst = 0.0
    for who, path in pages:
        client = clients[who]
        client.get(path)  # warm-up: template compilation, first-use imports
        times, queries, status = [], set(), 0
        for _ in range(runs):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(path)
                times.append((time.perf_counter() - started) * 1000)
            status = response.status_code
            queries.add(len(captured.captured_queries))
        median = statistics.median(times)
        worst = max(worst, p90(times))
        count = str(min(queries)) if len(queries) == 1 else f"{min(queries)}-{max(queries)}"
        print(f"{who:6} {path[:58]:58} {status:>6} {median:>10.1f} {p90(times):>8.1f} {count:>8}")
    verdict = "within" if worst < TARGET_MS else "OVER"
    print(f"\nSlowest p90: {worst:.1f} ms ({verdict} the {TARGET_MS:.0f} ms target).")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
