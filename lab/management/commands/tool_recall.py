"""python manage.py tool_recall [--set FILE] [--max-k 5] [--misses]

Recall@k of the tool retrieval shortlist (``assistant.retrieval``) on a labelled routing set
(default: the held-out ``packs/bundled/grocery/evaluation/routing_set.json``; the index is built from
``routing_dev.json``). An item counts as recalled at k when every tool its labelled action
needs is among the top k. Also printed: recall of the shortlist the hardened native mode
actually uses (top k plus the ask_general escape hatch).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.retrieval import ESCAPE_HATCH, tool_index, tools_needed
from packs.source import GROCERY_EVALUATION


class Command(BaseCommand):
    help = "Print recall@k of the tool retrieval shortlist on the held-out routing set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="path", default=str(GROCERY_EVALUATION / "routing_set.json"))
        parser.add_argument("--max-k", type=int, default=5)
        parser.add_argument("--misses", action="store_true", help="List the items missed at the chosen k.")
        parser.add_argument("--k", type=int, default=None, help="The k whose misses --misses lists (default: max-k).")

    def handle(self, *args, **options) -> None:
        path = Path(options["path"])
        try:
            items = json.loads(path.read_text())["items"]
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"Cannot read the routing set {path}: {exc}") from exc
        max_k = options["max_k"]
        if max_k < 1:
            raise CommandError("--max-k must be at least 1.")
        started = time.perf_counter()
        index = tool_index()
        built = time.perf_counter() - started
        started = time.perf_counter()
        ranked = [index.ranked(item["say"]) for item in items]
        took = (time.perf_counter() - started) * 1000 / max(len(items), 1)
        needs = [tools_needed(item["action"], kind=item.get("kind")) for item in items]
        out = self.stdout.write
        out(f"{path.name}: {len(items)} requests, {len(index.tools)} tools, index of {len(index.owners)} texts "
            f"(built in {built:.1f} s), {took:.1f} ms per request")
        out(f"{'k':>2}  {'recall@k':>9}  {'with ask_general':>16}")
        for k in range(1, max_k + 1):
            hits = sum(set(need) <= set(rank[:k]) for need, rank in zip(needs, ranked, strict=True))
            hatch = sum(set(need) <= {*rank[:k], ESCAPE_HATCH} for need, rank in zip(needs, ranked, strict=True))
            out(f"{k:>2}  {hits / len(items):>8.1%}  {hatch / len(items):>15.1%}   ({hits}/{len(items)}, {hatch}/{len(items)})")
        if options["misses"]:
            k = options["k"] or max_k
            out(f"Missed at k={k} (with ask_general):")
            for item, need, rank in zip(items, needs, ranked, strict=True):
                if not set(need) <= {*rank[:k], ESCAPE_HATCH}:
                    out(f"  {item['id']} {item['say']!r} ({item['action']}) needs {', '.join(need)}; got {', '.join(rank[:k])}")
