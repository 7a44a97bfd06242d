"""python manage.py report_schedules [--sync] [--store SLUG --time HH:MM]: the stores' daily report schedules.

Without options, lists each store's schedule (time, zone, last run). ``--sync`` reconciles every
store (beat also does it every five minutes). ``--store`` with ``--time`` sets that store's report
time and moves its schedule at once (the store settings page does the same).
"""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError
from django_celery_beat.models import PeriodicTask

from tenants.models import Store
from worker.schedules import PREFIX, report_schedules_sync, store_schedule_sync


class Command(BaseCommand):
    help = "List, sync or set the stores' daily report schedules."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--sync", action="store_true", help="Give every store exactly its schedule.")
        parser.add_argument("--store", help="The store's slug (with --time).")
        parser.add_argument("--time", help="The store's new daily report time, HH:MM in its own time zone.")

    def handle(self, *args, **options) -> None:
        if options["store"] or options["time"]:
            self._set(options["store"], options["time"])
        elif options["sync"]:
            count = report_schedules_sync()
            self.stdout.write(f"{count.created} created, {count.updated} updated, {count.deleted} deleted")
        else:
            for task in PeriodicTask.objects.select_related("crontab").filter(name__startswith=PREFIX).order_by("name"):
                crontab = task.crontab
                self.stdout.write(f"{task.name}  {int(crontab.hour):02d}:{int(crontab.minute):02d} {crontab.timezone}"
                                  f"  last run {task.last_run_at or 'never'}")

    def _set(self, slug: str | None, value: str | None) -> None:
        if not slug or not value:
            raise CommandError("Give both --store and --time.")
        try:
            at = dt.time.fromisoformat(value)
        except ValueError:
            raise CommandError(f"--time must be HH:MM, not {value!r}.") from None
        store = Store.objects.filter(slug=slug).first()
        if store is None:
            raise CommandError(f"No store with slug {slug!r}.")
        store.report_time = at.replace(second=0, microsecond=0)
        store.save(update_fields=["report_time"])
        task = store_schedule_sync(store=store)
        self.stdout.write(f"{store.slug}: daily reports at {store.report_time:%H:%M} {store.timezone} ({task.name})")
