"""``python manage.py sales_months [--check | --rebuild] [--store ID ...]``: the month sums of receipts.

``--check`` (the default) compares every store's month sums with its receipts and exits 1 listing the
months that disagree; ``--rebuild`` recomputes them from the receipts (after rows were written around
``ledger.services``, or to repair a drift). Each store is read in its own context (row-level security).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.services.sales_months import months_drift, months_rebuild
from tenants.models import Store


class Command(BaseCommand):
    help = "Check (default) or rebuild the month sums of every store's receipts."

    def add_arguments(self, parser: CommandParser) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--check", action="store_true", help="Compare the sums with the receipts (default).")
        action.add_argument("--rebuild", action="store_true", help="Recompute the sums from the receipts.")
        parser.add_argument("--store", type=int, action="append", default=None, help="Only this store id (repeatable).")

    def handle(self, *args, **options) -> None:
        stores = Store.objects.order_by("pk")
        if options["store"]:
            stores = stores.filter(pk__in=options["store"])
            missing = set(options["store"]) - set(stores.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"No store with id {', '.join(str(pk) for pk in sorted(missing))}.")
        drifted = 0
        for store in stores:
            if options["rebuild"]:
                count, products = months_rebuild(store=store)
                self.stdout.write(f"store {store.pk} ({store.name}): {count} months, {products} product-months")
                continue
            disagree = months_drift(store=store)
            if disagree:
                drifted += 1
                listed = ", ".join(f"{month:%Y-%m}" for month in disagree)
                self.stdout.write(f"store {store.pk} ({store.name}): the sums disagree with the receipts in {listed}")
        if drifted:
            raise CommandError(f"{drifted} store(s) have month sums that disagree with their receipts: "
                               "run `manage.py sales_months --rebuild`.")
        if not options["rebuild"]:
            self.stdout.write("The month sums agree with the receipts.")
