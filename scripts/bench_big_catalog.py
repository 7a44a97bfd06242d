"""The assistant on a large imported catalog beside the 38-product demo: ``scripts/bench_big_catalog.py``.

    .venv/bin/python scripts/bench_big_catalog.py [--products 5000] [--route] [--limit N]

Two stores are made on a fresh SQLite database in a temporary data folder: the demo store (38
products) and the same store with generated products imported through the catalog CSV import
(``scripts/catalog_gen.py``) up to ``--products``. For every utterance of the routing set
(``assistant/data/routing_set.json``, whose products are the demo's, so they are still in the big
catalog among thousands of near neighbours: "MDH Turmeric powder 200 g" beside "Turmeric powder")
it reports, per store:

- router prompt tokens (the system and user messages a real turn sends, counted with the bundled
  model's own tokenizer read from its GGUF by transformers, no model run);
- the code-side cost per turn that grows with the catalog: getting the catalog as a turn does
  (``assistant.catalogs.catalog_for``: rebuilt only after a catalog change), the shortlist for the
  prompt, and grounding (median / p90 ms);
- with ``--route``: routing accuracy (action, action + product) and time per utterance with the
  real router model (heavy: run it under ``flock /tmp/shelfwise-heavy.lock``); ``--fast`` puts the
  fast-path matcher in front of the model, as turns have it. The two stores take turns per
  utterance (in a stride order, so a run cut short has a spread of every action), so on a shared
  machine both see the same load. Each routed utterance is appended to
  ``--out`` (JSON lines, written as it goes, so a run cut short keeps what it measured) and the
  misses are printed per store.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_catalog import configure

ROOT = Path(__file__).resolve().parent.parent


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def _tokenizer():
    from transformers import AutoTokenizer

    from inference.bundle import bundle_prepare

    path = bundle_prepare().path
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False))


def _big_store(products: int):
    import catalog_gen

    from lab.bench.stores import bench_store_create
    from ledger.models import CatalogImport
    from ledger.services import imports
    from tenants.context import use_store

    store = bench_store_create(label="big-catalog")
    with use_store(store):
        job = imports.import_create(store=store, kind="catalog", filename="big.csv",
                                    content=catalog_gen.csv_text(products - 38).encode(), actor="system:bench")
        imports.import_apply_request(store=store, import_id=job.pk, actor="system:bench")
        assert CatalogImport.objects.get(pk=job.pk).status == "applied"
    return store


def _route_interleaved(stores: dict, items, *, fast: bool, out) -> dict[str, list]:
    from assistant.grounding import Catalog
    from assistant.lexicon import lexicon_for
    from lab.bench.routing import route_one
    from ledger import selectors
    from tenants.context import use_store

    catalogs = {}
    for label, store in stores.items():
        with use_store(store):
            lexicon = lexicon_for(store.business_type.slug)
            catalogs[label] = Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon)
            route_one(store=store, item=items[0], catalog=catalogs[label], fast=fast)  # warm the prompt cache
    scores: dict[str, list] = {label: [] for label in stores}
    for position, item in enumerate(items, start=1):
        for label, store in stores.items():
            with use_store(store):
                score = route_one(store=store, item=item, catalog=catalogs[label], fast=fast)
            scores[label].append(score)
            if out is not None:
                out.write(json.dumps({
                    "store": label, "id": item.id, "say": item.say, "gold": item.action,
                    "gold_item": item.item or item.group or item.not_carried
                    or ([entry.get("item") for entry in item.items] if item.items else None),
                    "predicted": score.predicted, "action_ok": score.action_ok, "item_ok": score.item_ok,
                    "said": score.said, "grounded": score.grounded, "ms": round(score.ms, 1), "decided_by": score.decided_by,
                    "load": os.getloadavg()[0],
                }) + "\n")
                out.flush()
        if position % 25 == 0:
            tally = ", ".join(f"{label} {sum(s.item_ok for s in got)}/{position}" for label, got in scores.items())
            print(f"  {position}/{len(items)} routed, action+product: {tally}; load {os.getloadavg()[0]:.1f}", flush=True)
    return scores


def _route_report(label: str, scores: list) -> dict:
    from lab.bench.routing import routing_summary

    summary = routing_summary(scores)
    for miss in summary.misses:
        print(f"  {label} miss {miss.item.id} {miss.item.say!r}: gold {miss.item.action} "
              f"{miss.item.item or miss.item.group or miss.item.not_carried or ''}, got {miss.predicted} "
              f"({miss.grounded})", flush=True)
    return {"action": f"{summary.action_ok}/{summary.total}", "item": f"{summary.item_ok}/{summary.total}",
            "route_ms": (summary.median_ms, summary.p90_ms), "matched": summary.matched}


def _measure(store, items, count_tokens, *, route: bool = False) -> dict:
    from types import SimpleNamespace

    from assistant.catalogs import catalog_for
    from assistant.grounding import ground
    from assistant.lexicon import lexicon_for
    from assistant.modes.router.mode import RouterMode
    from assistant.modes.router.prompt import router_pack
    from assistant.normalize import normalize
    from tenants.context import use_store

    lexicon = lexicon_for(store.business_type.slug)
    pack = router_pack(store.business_type.slug)
    tokens, build_ms, turn_ms = [], [], []
    with use_store(store):
        for item in items:
            started = time.perf_counter()
            catalog = catalog_for(store=store, lexicon=lexicon)  # as a turn gets it (rebuilt when the catalog changed)
            built = time.perf_counter()
            words = normalize(item.say, lexicon)
            ctx = SimpleNamespace(store=store, words=words, catalog=catalog,
                                  state=SimpleNamespace(last_product="", last_action=""))
            messages = RouterMode().messages(ctx, pack)
            ground(words.text, catalog=catalog, lexicon=lexicon)
            done = time.perf_counter()
            build_ms.append((built - started) * 1000)
            turn_ms.append((done - built) * 1000)
            tokens.append(sum(count_tokens(message["content"]) for message in messages))
        result = {
            "products": len(catalog), "tokens_median": statistics.median(tokens), "tokens_max": max(tokens),
            "build_ms": (statistics.median(build_ms), _p90(build_ms)),
            "prompt_and_ground_ms": (statistics.median(turn_ms), _p90(turn_ms)),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--products", type=int, default=5000)
    parser.add_argument("--route", action="store_true", help="Also route every utterance with the real router model.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N utterances of the routing set.")
    parser.add_argument("--fast", action="store_true", help="With --route: the fast-path matcher first, as turns have it.")
    parser.add_argument("--out", type=Path, default=None, help="With --route: append each routed utterance here (JSON lines).")
    parser.add_argument("--every", type=int, default=1, help="Only every Nth utterance (after --limit): a spread subset.")
    parser.add_argument("--only", choices=("demo", "big"), default=None, help="Measure one of the two stores only.")
    args = parser.parse_args(argv)
    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-bench-big-"))
    try:
        configure(data_dir, None)
        from lab.bench.routing import routing_set_load
        from lab.bench.stores import bench_store_create

        items = routing_set_load(ROOT / "assistant" / "data" / "routing_set.json")[: args.limit]
        count_tokens = _tokenizer()
        if args.route:
            from inference.base import Role
            from inference.config import get_backend

            get_backend(Role.ROUTER).warm_up()
        items = items[:: args.every]
        if args.route:
            # A stride order (0, 7, 14, ..., 1, 8, ...) so that a run cut short has routed a spread of
            # every action, not only the set's first actions.
            items = tuple(item for _position, item in sorted(enumerate(items), key=lambda pair: (pair[0] % 7, pair[0])))
        out = args.out.open("a", encoding="utf-8") if args.route and args.out else None
        makers = {"demo": lambda: bench_store_create(label="small-catalog"), "big": lambda: _big_store(args.products)}
        stores = {label: make() for label, make in makers.items() if not args.only or label == args.only}
        print(f"{len(items)} utterances; load average {os.getloadavg()[0]:.2f} at start", flush=True)
        results = {label: _measure(store, items, count_tokens, route=False) for label, store in stores.items()}
        for label, result in results.items():  # now, so a routing run cut short keeps them
            print(f"{label}: {result}", flush=True)
        if args.route:
            # The stores take turns per utterance, so both see the same load on a shared machine.
            routed = _route_interleaved(stores, items, fast=args.fast, out=out)
            for label, scores in routed.items():
                results[label].update(_route_report(label, scores))
        for label, result in results.items():
            print(f"{label}: {result}", flush=True)
        print(f"load average {os.getloadavg()[0]:.2f} at end", flush=True)
        if out is not None:
            out.close()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
