"""Does one store's thinking model hold up another store's writes? (issue 14's first symptom)

On a fresh SQLite file (the embedded default: write-ahead log, ``BEGIN IMMEDIATE``), two demo
stores. One thread runs native turns for store A whose model answers after ``--model-s`` seconds
per call (a fake backend that sleeps: the model's latency is the point, not its words; the guard's
classifier, grounding, the gateway and the ledger are real); the first call asks to set a count,
so a write happens between two model calls. Meanwhile a second thread sets counts in store B through
the ledger's service, one every ``--every-s``, and times each. Prints the B writes' p50/p95/max
and their errors as one JSON line.

    .venv/bin/python scripts/lock_probe.py [--turns 3] [--model-s 3] [--every-s 0.25]

When a turn's model calls run inside its transaction, B's writes wait for a model's seconds (or
fail with "database is locked" once SQLite's timeout passes); when they run outside any, B waits
at most for a tool call's milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path


def _setup(db: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    os.environ["SHELFWISE_NATIVE_CODE_REPLIES"] = "0"  # the model speaks after the write: two calls a turn
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    for slug in ("probe-a", "probe-b"):
        call_command("seed_demo", slug=slug, json=True, stdout=open(os.devnull, "w"))


def _turns(store, count: int, model_s: float, done: threading.Event, errors: list[str]) -> None:
    from django.db import close_old_connections

    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput
    from inference.base import Role
    from inference.fake import fake_models

    def slow(answer):
        def reply(request):
            time.sleep(model_s)
            return answer
        return reply

    try:
        with fake_models(Role.NATIVE) as model:
            for index in range(count):
                model.add(slow({"name": "update_inventory", "arguments": {"item": "atta", "stock": 15 + index}}),
                          slow({"reply": f"Done: Atta is now {15 + index}."}))
                run_turn(store=store, turn=TurnInput(text=f"we actually have {15 + index} bags of atta, fix the count",
                                                     mode=Mode.NATIVE, channel="system", actor="system:probe"))
    except Exception as exc:  # noqa: BLE001 - reported, not raised: the other thread's figures still count
        errors.append(f"turn: {exc!r}")
    finally:
        close_old_connections()
        done.set()


def _writes(store, every_s: float, done: threading.Event, waits: list[float], errors: list[str]) -> None:
    from django.db import close_old_connections

    from ledger.models import Product
    from ledger.services.stock import stock_set
    from tenants.context import use_store

    with use_store(store):
        product = Product.objects.filter(store=store, active=True).order_by("pk").first()
    stock = product.stock
    while not done.is_set():
        stock += 1
        began = time.perf_counter()
        try:
            with use_store(store):
                stock_set(store=store, product=product, count=stock, expected=stock - 1, actor="system:probe")
        except Exception as exc:  # noqa: BLE001 - "database is locked" is the finding
            errors.append(f"write: {exc}")
        waits.append((time.perf_counter() - began) * 1000)
        time.sleep(every_s)
    close_old_connections()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--model-s", type=float, default=3.0)
    parser.add_argument("--every-s", type=float, default=0.25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        _setup(Path(folder) / "probe.sqlite3")
        from tenants.models import Store

        store_a, store_b = Store.objects.get(slug="probe-a"), Store.objects.get(slug="probe-b")
        from assistant.guard import get_guard

        get_guard().check_input("warm up", business_type=None)  # the classifier's load is not a turn's
        done, waits, errors = threading.Event(), [], []
        writer = threading.Thread(target=_writes, args=(store_b, args.every_s, done, waits, errors))
        turner = threading.Thread(target=_turns, args=(store_a, args.turns, args.model_s, done, errors))
        began = time.perf_counter()
        writer.start()
        turner.start()
        turner.join()
        writer.join()
        from audit.models import Turn
        from tenants.context import use_store

        with use_store(store_a):
            outcomes = sorted(Turn.objects.filter(store=store_a).values_list("outcome", flat=True))
        ordered = sorted(waits)
        print(json.dumps({
            "turns": args.turns, "model_s": args.model_s, "seconds": round(time.perf_counter() - began, 1),
            "b_writes": len(waits), "b_p50_ms": round(statistics.median(ordered), 1) if ordered else None,
            "b_p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1) if ordered else None,
            "b_max_ms": round(ordered[-1], 1) if ordered else None, "errors": len(errors), "first_errors": errors[:3],
            "a_turn_outcomes": outcomes,
        }))


if __name__ == "__main__":
    main()
