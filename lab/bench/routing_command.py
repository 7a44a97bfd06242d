"""``manage.py bench --routing FILE``: the routing set's utterances routed ``--repeat`` times each, with pass^k.

Kept apart from the command so the command module stays about suites; the trials are stored by
``lab.bench.repeat`` and the pass^k read back from the database like a suite's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError

from inference.base import InferenceError, Role
from lab.bench.packs import PackEvalError, PackInvalid, pack_for_file
from lab.bench.repeat import routing_trials
from lab.bench.report import routing_text
from lab.bench.routing import RoutingSetError, routing_set_parse, routing_set_read, routing_set_store, routing_summary


def routing_handle(command: Any, options: dict[str, Any], *, group: str) -> None:
    """Load the set (its ``--start``/``--limit`` piece), warm the router, route every utterance N times, report."""
    from assistant.matcher.route import fast_path_enabled
    from inference.config import get_backend

    if options["mode"] != "router" or options["category"]:
        raise CommandError("--routing scores the router alone: no --mode other than router, no --category.")
    try:
        data = routing_set_read(options["routing"])
        items = routing_set_parse(data, name=Path(options["routing"]).name)
        sample = routing_set_store(data, name=Path(options["routing"]).name) == "sample"
        version = pack_for_file(options["routing"], spec=options["pack"]) if sample or options["pack"] else None
    except (RoutingSetError, PackEvalError, PackInvalid) as exc:
        raise CommandError(str(exc)) from exc
    if sample and version is None:
        raise CommandError(f"{options['routing']} runs on a pack's sample catalog: name its pack with --pack.")
    if not 1 <= options["start"] <= len(items):
        raise CommandError(f"--start must be between 1 and {len(items)} (the set's size).")
    end = len(items) if options["limit"] is None else min(len(items), options["start"] - 1 + options["limit"])
    piece = [(position, items[position - 1]) for position in range(options["start"], end + 1)]
    fast = fast_path_enabled() if options["fast_path"] is None else options["fast_path"] == "on"
    out = command.stdout.write
    name = Path(options["routing"]).stem
    out(f"Routing set {name}: utterances {options['start']}-{end} of {len(items)}, {options['runs']} trial(s) each, "
        f"fast path {'on' if fast else 'off'}, group {group}")
    try:
        backend = get_backend(Role.ROUTER)
        if not options["no_warm"]:
            backend.warm_up()
    except (ImproperlyConfigured, InferenceError) as exc:
        raise CommandError(f"The router model cannot be used: {exc}") from exc
    out(f"Router: {backend.kind} {Path(backend.model).name if backend.model else ''}".rstrip()
        + (" (not warmed up)" if options["no_warm"] else " (warmed up)"))
    scores: dict[int, list] = {}
    runs = routing_trials(
        set_name=name, items=piece, repeat=options["runs"], fast=fast, warm=not options["no_warm"],
        settings={"passk_group": group, "repeat": options["runs"], "start": options["start"], "limit": options["limit"]},
        on_score=lambda number, score: scores.setdefault(number, []).append(score),
        pack_version=version, sample=sample,
    )
    for number, run in enumerate(runs, start=1):
        summary = routing_summary(scores.get(number, []))
        out("")
        out(f"== Trial {number}/{len(runs)} · saved as BenchmarkRun {run.pk} ==")
        out(routing_text(summary, list_misses=False))
    passk = command.passk_report(options, group=group, ran=len(runs))
    if options["json_out"]:
        path = Path(options["json_out"])
        path.write_text(json.dumps({
            "set": name, "start": options["start"], "end": end, "fast_path": fast, "passk_group": group,
            "trials": [{"run": run.pk, "action_ok": routing_summary(scores.get(i, [])).action_ok,
                        "item_ok": routing_summary(scores.get(i, [])).item_ok, "total": len(piece)}
                       for i, run in enumerate(runs, start=1)],
            "passk": passk,
        }, indent=2, ensure_ascii=False))
        out(f"Wrote {path}")
