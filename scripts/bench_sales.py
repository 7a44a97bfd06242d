"""Sales over time on a big store: ``.venv/bin/python scripts/bench_sales.py``.

    .venv/bin/python scripts/bench_sales.py [--products 5000] [--days 365] [--repeat 15]
        [--receipts-per-day 150-300] [--database-url postgres://...] [--data-dir DIR]

On a fresh SQLite database in a temporary data folder (or ``--database-url``, which gets migrated),
builds one store (America/Chicago, USD) with ``--products`` generated products
(``scripts/catalog_gen.py``) and ``--days`` days of receipts before today plus today so far: each day
150-300 sales between 08:00 and 21:00 local time, 1-8 lines each of 1-3 units, products drawn with a
long-tailed popularity (a few sell every day, most now and then), and about one refund in 200 sales.
The rows go in with ``bulk_create`` (no stock moves: imported history, as the importer records it), and
the sums the receipt writers would have kept are rebuilt from them (``sales_months --rebuild``).

Then times ``get_sales`` through ``execute_tool`` (schema, policy, the tool, the audit record: what an
MCP client or the assistant waits for) for each query below, ``--repeat`` times after one warm-up
call, and prints the median and p95 in milliseconds and the SQL statements per call (a query the
tool's own 5 s limit stopped is printed with that message). On PostgreSQL the tables are vacuumed
and analyzed first, as autovacuum would after such a load. The gateway's
per-caller rate limit is lifted for the run (it would refuse the repeats; it is not what is timed).

``--data-dir`` keeps the SQLite file (and ``--database-url`` its database), and a later run finds the
store there and times it again without building it: after a migration, before and after on the
same rows (the migration runs first, as ``migrate`` would on a live store).
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import random
import shutil
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUERIES = (
    ("a day (yesterday)", {"period": "yesterday"}),
    ("a week (last week)", {"period": "last week"}),
    ("a month (last month)", {"period": "last month"}),
    ("a year (last 365 days)", {"period": "last 365 days"}),
    ("a year, best sellers", {"period": "last 365 days", "groupBy": "product", "sort": "best", "limit": 10}),
    ("a year, worst sellers", {"period": "last 365 days", "groupBy": "product", "sort": "worst", "limit": 10}),
    ("a year, by category", {"period": "last 365 days", "groupBy": "category"}),
    ("a year, one product", {"period": "last 365 days", "item": "Tata Chana masala 100 g"}),
    ("a month against the month before", {"period": "last month", "compareTo": "the month before"}),
    ("a year by day", {"period": "last 365 days", "groupBy": "day"}),
)


def configure(data_dir: Path, database_url: str | None) -> None:
    """bench_catalog's set-up (a fresh data folder, SQLite or DATABASE_URL, migrated), with no token rate limit."""
    from bench_catalog import configure as catalog_configure

    os.environ["TOKEN_RATE_LIMIT_PER_MINUTE"] = "1000000"
    catalog_configure(data_dir, database_url)


def _store():
    from django.contrib.auth import get_user_model

    from tenants.models import Store
    from tenants.services import store_create

    kept = Store.objects.filter(name="Bench Grocery").first()
    if kept is not None:
        return kept

    owner = get_user_model().objects.create_user(username="bench", email="bench@example.com", password="x" * 20)
    return store_create(name="Bench Grocery", timezone="America/Chicago", currency="USD", owner=owner)


def products_create(store, count: int) -> list:
    import catalog_gen

    from ledger.models import Product

    made = []
    for sku, name, barcode, category, unit, pack, aisle, shelf, position, _note, price, cost, supplier, par, reorder, \
            _aliases, _active in catalog_gen.rows(count):
        made.append(Product(
            store=store, sku=sku, barcode=barcode, name=name, unit=unit, pack_size=int(pack), category=category,
            aisle=aisle, shelf=shelf, position=position, location=f"aisle {aisle}, {shelf}, {position}",
            stock=40, par_level=int(par), reorder_point=int(reorder), price=Decimal(price), unit_cost=Decimal(cost),
            supplier=supplier,
        ))
    return Product.objects.bulk_create(made, batch_size=1000)


def _day_receipts(rng: random.Random, day: dt.date, tz, *, count: int, until: dt.datetime | None) -> list[dt.datetime]:
    opening = dt.datetime.combine(day, dt.time(8), tzinfo=tz)
    closing = dt.datetime.combine(day, dt.time(21), tzinfo=tz)
    if until is not None:
        closing = min(closing, until)
    span = max((closing - opening).total_seconds(), 0)
    return sorted(opening + dt.timedelta(seconds=rng.random() * span) for _ in range(count))


def receipts_create(store, products: list, *, days: int, per_day: tuple[int, int], seed: int = 21) -> tuple[int, int]:
    """``days`` days of sales before today and today so far; returns (receipts, lines)."""
    from django.utils import timezone

    from ledger.models import Receipt, ReceiptLine
    from ledger.selectors import store_tz

    rng = random.Random(seed)
    tz = store_tz(store)
    now = timezone.now().astimezone(tz)
    cumulative = list(itertools.accumulate(1 / (rank + 1) ** 0.9 for rank in range(len(products))))  # long-tailed
    order = products[:]
    rng.shuffle(order)
    number = 0
    made_receipts = made_lines = 0
    for back in range(days, -1, -1):
        day = now.date() - dt.timedelta(days=back)
        times = _day_receipts(rng, day, tz, count=rng.randint(*per_day), until=now if back == 0 else None)
        receipts, baskets = [], []
        for sold_at in times:
            picked = {p.pk: p for p in rng.choices(order, cum_weights=cumulative, k=rng.randint(1, 8))}
            basket = [(product, rng.randint(1, 3)) for product in picked.values()]
            number += 1
            total = sum((product.price * qty for product, qty in basket), Decimal("0"))
            receipts.append(Receipt(store=store, number=number, sold_at=sold_at, total=total, actor="system:bench",
                                    historical=True))
            baskets.append(basket)
            if rng.random() < 0.005:  # a refund of the first line, later the same day
                product, qty = basket[0]
                number += 1
                receipts.append(Receipt(store=store, number=number, kind=Receipt.Kind.REFUND, sold_at=sold_at,
                                        total=-product.price * qty, actor="system:bench", historical=True))
                baskets.append([(product, -qty)])
        Receipt.objects.bulk_create(receipts, batch_size=1000)
        lines = [ReceiptLine(store=store, receipt=receipt, product=product, qty=qty, unit_price=product.price,
                             line_total=product.price * qty)
                 for receipt, basket in zip(receipts, baskets, strict=True) for product, qty in basket]
        ReceiptLine.objects.bulk_create(lines, batch_size=2000)
        made_receipts += len(receipts)
        made_lines += len(lines)
    return made_receipts, made_lines


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def time_queries(store, repeat: int) -> list[tuple[str, float | None, float | None, str]]:
    from audit.models import Channel
    from mcp_gateway.execution import execute_tool
    from mcp_gateway.policy import Caller
    from mcp_gateway.registry import MCP_SCOPE

    caller = Caller(channel=Channel.SYSTEM, actor="system:bench", scopes=frozenset({MCP_SCOPE}))
    rows = []
    for label, arguments in QUERIES:
        first = execute_tool("get_sales", arguments, store=store, caller=caller)  # warm-up, not timed
        if not first.ok:  # the tool's own limit (5 s) stopped it: what the owner would hear
            rows.append((label, None, None, first.message or "failed"))
            continue
        times, failed = [], 0
        for _ in range(repeat):
            started = time.perf_counter()
            result = execute_tool("get_sales", arguments, store=store, caller=caller)
            times.append((time.perf_counter() - started) * 1000)
            failed += not result.ok
        note = f"{result.sql_count}" + (f" ({failed} of {repeat} failed)" if failed else "")
        rows.append((label, _percentile(times, 50), _percentile(times, 95), note))
    return rows


def analyze() -> None:
    """PostgreSQL: vacuum and statistics, as autovacuum does after a load (SQLite keeps none unless asked)."""
    from django.db import connection

    from tenants import rls

    if connection.vendor == "postgresql":
        with rls.bypass(), connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--products", type=int, default=5000)
    parser.add_argument("--days", type=int, default=365, help="Days of receipts before today (default 365).")
    parser.add_argument("--receipts-per-day", default="150-300", help="Sales per day, low-high (default 150-300).")
    parser.add_argument("--repeat", type=int, default=15, help="Timed calls per query (default 15).")
    parser.add_argument("--database-url", default=None, help="Another database (it gets migrated); default: a temporary SQLite file.")
    parser.add_argument("--data-dir", default=None, help="Keep the data folder (SQLite file, media) here and reuse its store.")
    args = parser.parse_args(argv)
    low, high = (int(part) for part in args.receipts_per_day.split("-"))
    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="shelfwise-bench-sales-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        configure(data_dir, args.database_url)
        from django.db import connection

        from ledger.models import Product, Receipt, ReceiptLine
        from ledger.scope import store_scope
        from ledger.services.sales_months import months_rebuild

        print(f"migrated in {time.perf_counter() - started:.1f} s ({connection.vendor})")
        store = _store()
        started = time.perf_counter()
        with store_scope(store):
            if Product.objects.filter(store=store).exists():
                products, receipts, lines = (Product.objects.filter(store=store).count(),
                                             Receipt.objects.filter(store=store).count(),
                                             ReceiptLine.objects.filter(store=store).count())
                print(f"store kept from an earlier run: {products:,} products, {receipts:,} receipts, {lines:,} lines")
            else:
                made = products_create(store, args.products)
                receipts, lines = receipts_create(store, made, days=args.days, per_day=(low, high))
                print(f"store: {args.products:,} products, {receipts:,} receipts, {lines:,} lines over {args.days} "
                      f"days and today, built in {time.perf_counter() - started:.0f} s")
                started = time.perf_counter()
                quarters, product_months = months_rebuild(store=store)  # the rows went in around the services
                print(f"sums: {quarters:,} quarter-hours, {product_months:,} product-months, "
                      f"rebuilt in {time.perf_counter() - started:.1f} s")
        analyze()
        print(f"{'query':<36} {'median ms':>10} {'p95 ms':>8}  SQL per call")
        for label, median, p95, note in time_queries(store, args.repeat):
            if median is None or p95 is None:
                print(f"{label:<36} {'-':>10} {'-':>8}  {note}")
            else:
                print(f"{label:<36} {median:>10.1f} {p95:>8.1f}  {note}")
    finally:
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
