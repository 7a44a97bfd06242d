"""python manage.py turn --store SLUG [--mode router] [--conversation ID] "text": one turn, printed as the API's JSON.

The turn runs on a worker, like every channel's (``worker.turns``); with no broker configured it
runs right here, in this process (Celery's eager mode).
"""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandError

from assistant.types import Mode
from tenants.models import Store
from worker.turns import TurnUnavailable, turn_submit
from worker.watch import turn_wait


class Command(BaseCommand):
    help = "Run one assistant turn for a store and print the answer as JSON (the shape of POST /api/v1/turns)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("text", help="What the owner says.")
        parser.add_argument("--store", required=True, help="The store's slug.")
        parser.add_argument("--mode", default=Mode.ROUTER.value, choices=[mode.value for mode in Mode])
        parser.add_argument("--conversation", default=None, help="Continue this conversation.")
        parser.add_argument("--wait", type=float, default=300.0, help="Seconds to wait for the worker (default 300).")

    def handle(self, *args, **options) -> None:
        text = options["text"].strip()
        if not text or len(text) > 500:
            raise CommandError("Say something between 1 and 500 characters long.")
        store = Store.objects.select_related("business_type").filter(slug=options["store"]).first()
        if store is None:
            raise CommandError(f"No store with slug {options['store']!r}.")
        try:
            job = turn_submit(store=store, channel="system", mode=options["mode"], actor="cli", text=text,
                              conversation=options["conversation"])
        except TurnUnavailable as exc:
            raise CommandError(exc.message) from exc
        status = async_to_sync(turn_wait)(store=store, job_id=str(job.pk), notify=None, timeout=options["wait"])
        if status is None:
            raise CommandError(f"No worker finished turn {job.pk} within {options['wait']:g} s; is a turns worker running?")
        if status["status"] != "done":
            raise CommandError(status["error"]["message"])
        self.stdout.write(json.dumps(status["result"], indent=2, ensure_ascii=False))
