"""python manage.py route_eval [--set packs/bundled/grocery/evaluation/routing_set.json] [--pack PATH_OR_SLUG] [--limit N]

Routes each utterance of the routing set with ``route_utterance`` (the real prompt, model,
validation and grounding; no tool runs) on one fresh store, and prints per-action
accuracy (action only, and action+item), the confusion of the misses, how many action requests
dropped to chat, the median latency per utterance, and the misses.

The store: the demo catalog (grocery's newest published version), or, for a set of a pack
(``--pack``, or the pack folder the file sits in), a store pinned to that pack version; a set with
``"store": "sample"`` runs on the pack's sample catalog.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser

from inference.base import InferenceError, Role
from lab.bench.packs import PackEvalError, PackInvalid, pack_for_file
from lab.bench.report import routing_text
from lab.bench.routing import (
    RoutingSetError,
    routing_run,
    routing_set_parse,
    routing_set_read,
    routing_set_store,
    routing_summary,
)
from lab.bench.runner import pack_label
from lab.bench.stores import (
    bench_store_create,
    bench_store_delete,
    migrations_pending,
)
from packs.source import GROCERY_EVALUATION

DEFAULT_SET = GROCERY_EVALUATION / "routing_set.json"


class Command(BaseCommand):
    help = "Score the router on the routing set: per-action accuracy, confusion, drops to chat, latency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="path", default=str(DEFAULT_SET), help="The routing set (default: the held-out set).")
        parser.add_argument("--limit", type=int, default=None, help="Only the first N utterances (a smoke run).")
        parser.add_argument("--json", dest="json_out", default=None, help="Also write every utterance's score to this file.")
        parser.add_argument("--keep", action="store_true", help="Keep the demo store instead of deleting it.")
        parser.add_argument("--no-warm", action="store_true", help="Skip loading the router model before timing.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")
        parser.add_argument("--fast-path", choices=("on", "off"), default=None,
                            help="The router's fast-path matcher first (default: as SHELFWISE_FAST_PATH says).")
        parser.add_argument("--pack", default=None,
                            help="The pack version the store runs: a folder, a .zip, slug or slug@N (default: the "
                                 "pack folder the set sits in, when it needs a pack's sample catalog).")

    def handle(self, *args, **options) -> None:
        from tqdm import tqdm

        from inference.config import get_backend

        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        pending = migrations_pending()
        if pending:
            raise CommandError(f"The database is not migrated ({', '.join(pending[:3])}...): run manage.py migrate first.")
        try:
            data = routing_set_read(options["path"])
            items = routing_set_parse(data, name=Path(options["path"]).name)
            sample = routing_set_store(data, name=Path(options["path"]).name) == "sample"
            version = pack_for_file(options["path"], spec=options["pack"]) if sample or options["pack"] else None
        except (RoutingSetError, PackEvalError) as exc:
            raise CommandError(str(exc)) from exc
        except PackInvalid as exc:
            raise CommandError(str(exc)) from exc
        if sample and version is None:
            raise CommandError(f"{options['path']} runs on a pack's sample catalog: name its pack with --pack.")
        if options["limit"]:
            items = items[: options["limit"]]
        out = self.stdout.write
        out(f"Routing set {Path(options['path']).name}: {len(items)} utterances"
            + (f", pack {pack_label(version)} on its {'sample' if sample else 'demo'} catalog" if version else ""))
        try:
            backend = get_backend(Role.ROUTER)
            if options["no_warm"]:
                out("Router model NOT warmed up (--no-warm): the first utterance includes loading it.")
            else:
                backend.warm_up()
                out(f"Router model warmed up before timing ({backend.kind}: {Path(backend.model).name or 'bundled'}).")
        except (ImproperlyConfigured, InferenceError) as exc:
            raise CommandError(f"The router model cannot be used: {exc}") from exc

        from assistant.matcher.route import fast_path_enabled

        fast = fast_path_enabled() if options["fast_path"] is None else options["fast_path"] == "on"
        out(f"Fast-path matcher: {'on' if fast else 'off'}")
        store = bench_store_create(label="route-eval", pack_version=version, sample=sample)
        try:
            bar = tqdm(total=len(items), desc="routing", unit="utt", disable=options["no_progress"], leave=False)

            def progress(done: list) -> None:
                bar.update(1)
                bar.set_postfix(action=f"{sum(s.action_ok for s in done)}/{len(done)}")

            scores = routing_run(store=store, items=items, fast=fast, warm=not options["no_warm"], on_score=progress)
            bar.close()
        finally:
            if options["keep"]:
                out(f"Kept the store {store.slug}.")
            else:
                bench_store_delete(store=store)

        summary = routing_summary(scores)
        out(routing_text(summary))
        if options["json_out"]:
            path = Path(options["json_out"])
            path.write_text(json.dumps({
                "set": Path(options["path"]).name,
                "total": summary.total, "action_ok": summary.action_ok, "item_ok": summary.item_ok,
                "dropped_to_chat": summary.dropped_to_chat, "periods_ok": summary.periods_ok, "periods_total": summary.periods_total, "action_requests": summary.action_requests,
                "median_ms": summary.median_ms, "p90_ms": summary.p90_ms, "fast_path": fast,
                "matched": summary.matched, "matched_action_ok": summary.matched_action_ok,
                "per_action": {name: asdict(tally) for name, tally in summary.per_action.items()},
                "scores": [
                    {"id": s.item.id, "say": s.item.say, "gold": s.item.action, "predicted": s.predicted,
                     "action_ok": s.action_ok, "item_ok": s.item_ok, "grounded": s.grounded,
                     "numbers_ok": s.numbers_ok, "period_ok": s.period_ok, "period_said": s.period_said,
                     "ms": round(s.ms, 1), "decided_by": s.decided_by}
                    for s in scores
                ],
            }, indent=2, ensure_ascii=False))
            out(f"Wrote {path}")
