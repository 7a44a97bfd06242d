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
  real router model (heavy: run it under ``flock /tmp/shelfwise-heavy.lock``).
"""

from __future__ import annotations

import argparse
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

    from assistant.inference.bundle import bundle_prepare

    path = bundle_prepare().path
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False))


def _big_store(products: int):
    import catalog_gen

    from assistant.bench.stores import bench_store_create
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


def _measure(store, items, count_tokens, *, route: bool) -> dict:
    from types import SimpleNamespace

    from assistant.bench.routing import route_one, routing_summary
    from assistant.catalogs import catalog_for
    from assistant.grounding import Catalog, ground
    from assistant.lexicon import lexicon_for
    from assistant.modes.router import RouterMode
    from assistant.normalize import normalize
    from assistant.router_prompt import router_pack
    from ledger import selectors
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
        if route:
            catalog = Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon)
            route_one(store=store, item=items[0], catalog=catalog)  # warm the prompt cache
            summary = routing_summary([route_one(store=store, item=item, catalog=catalog) for item in items])
            result.update(action=f"{summary.action_ok}/{summary.total}", item=f"{summary.item_ok}/{summary.total}",
                          route_ms=(summary.median_ms, summary.p90_ms))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--products", type=int, default=5000)
    parser.add_argument("--route", action="store_true", help="Also route every utterance with the real router model.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N utterances of the routing set.")
    args = parser.parse_args(argv)
    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-bench-big-"))
    try:
        configure(data_dir, None)
        from assistant.bench.routing import routing_set_load
        from assistant.bench.stores import bench_store_create

        items = routing_set_load(ROOT / "assistant" / "data" / "routing_set.json")[: args.limit]
        count_tokens = _tokenizer()
        if args.route:
            from assistant.inference.base import Role
            from assistant.inference.config import get_backend

            get_backend(Role.ROUTER).warm_up()
        for label, store in (("demo", bench_store_create(label="small-catalog")), ("big", _big_store(args.products))):
            result = _measure(store, items, count_tokens, route=args.route)
            print(f"{label}: {result}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
