"""python manage.py turn --store SLUG [--mode router] [--conversation ID] "text": one turn, printed as the API's JSON."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from tenants.models import Store


class Command(BaseCommand):
    help = "Run one assistant turn for a store and print the answer as JSON (the shape of POST /api/v1/turns)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("text", help="What the owner says.")
        parser.add_argument("--store", required=True, help="The store's slug.")
        parser.add_argument("--mode", default=Mode.ROUTER.value, choices=[mode.value for mode in Mode])
        parser.add_argument("--conversation", default=None, help="Continue this conversation.")

    def handle(self, *args, **options) -> None:
        text = options["text"].strip()
        if not text or len(text) > 500:
            raise CommandError("Say something between 1 and 500 characters long.")
        store = Store.objects.select_related("business_type").filter(slug=options["store"]).first()
        if store is None:
            raise CommandError(f"No store with slug {options['store']!r}.")
        result = run_turn(
            store=store,
            turn=TurnInput(text=text, mode=Mode(options["mode"]), conversation=options["conversation"],
                           channel="system", actor="cli"),
        )
        self.stdout.write(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
