"""The assistant on a large imported catalog beside the 38-product demo: ``scripts/bench_big_catalog.py``.

    .venv/bin/python scripts/bench_big_catalog.py [--products 5000] [--route] [--limit N]

Two stores are made on a fresh SQLite database in a temporary data folder: the demo store (38
products) and the same store with generated products imported through the catalog CSV import
(``scripts/catalog_gen.py``) up to ``--products``. For every utterance of the routing set
(the grocery pack's ``evaluation/routing_set.json``, whose products are the demo's, so they are still in the big
catalog among thousands of near neighbours: "MDH Turmeric powder 200 g" beside "Turmeric powder")
it reports, per store:

- router prompt tokens (the system and user messages a real turn sends, counted with the bundled
  model's own tokenizer read from its GGUF by transformers, no model run): in all, and the part
  that is new each turn (what follows the longest prefix shared with the store's previous turn,
  which a model server's prompt cache serves; the routing set is taken in order);
- the code-side cost per turn that grows with the catalog: getting the catalog as a turn does
  (``assistant.catalogs.catalog_for``: rebuilt only after a catalog change), the shortlist for the
  prompt, and grounding (median / p90 ms);
- with ``--route``: routing accuracy (action, action + product) and time per utterance with the
  real router model (heavy: run it under ``flock /tmp/shelfwise-heavy.lock``); ``--fast`` puts the
  fast-path matcher in front of the model, as turns have it. The two stores take turns per
  utterance (in a stride order, so a run cut short has a spread of every action), so on a shared
  machine both see the same load. Each routed utterance is appended to
  ``--out`` (JSON lines, written as it goes, so a run cut short keeps what it measured) and the
  misses are printed per store. ``--max-minutes`` stops a run (to hold the heavy lock for a bounded
  time), ``--resume`` goes on where the file stops, and ``--report FILE`` summarises the file.
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
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def _tokenizer():
    from transformers import AutoTokenizer

    from inference.bundle import bundle_prepare

    path = bundle_prepare().path
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return lambda text: tokenizer.encode(text, add_special_tokens=False)


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


def _route_interleaved(stores: dict, items, *, fast: bool, out, deadline: float | None = None) -> dict[str, list]:
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
        if deadline is not None and time.monotonic() > deadline:
            print(f"  stopped at the time limit after {position - 1} utterances; run again with --resume", flush=True)
            break
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
                    "model_ms": [round(ms, 1) for ms in score.model_ms], "prompt_tokens": list(score.prompt_tokens),
                    "cached_tokens": list(score.cached_tokens), "load": os.getloadavg()[0],
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
    evaluated = [prompt - (cached or 0) for score in scores
                 for prompt, cached in zip(score.prompt_tokens, score.cached_tokens, strict=False)]
    return {"action": f"{summary.action_ok}/{summary.total}", "item": f"{summary.item_ok}/{summary.total}",
            "route_ms": (summary.median_ms, summary.p90_ms), "matched": summary.matched,
            "model_ms_median": summary.median_model_ms,
            "prompt_tokens_evaluated_by_the_model": (statistics.median(evaluated), _p90(evaluated)) if evaluated else None}


def report(path: Path) -> None:
    """Accuracy, time and tokens per store from a --out file (several resumed runs together)."""
    rows: dict[tuple[str, str], dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[(row["store"], row["id"])] = row  # a resumed utterance counts once, its last routing
    ids = sorted({i for _s, i in rows} - {i for s, i in rows if (("demo" if s == "big" else "big"), i) not in rows})
    print(f"{len(ids)} utterances routed on both stores")
    for label in ("demo", "big"):
        got = [rows[(label, i)] for i in ids if (label, i) in rows]
        if not got:
            continue
        ms = [r["ms"] for r in got]
        evaluated = [p - (c or 0) for r in got for p, c in zip(r.get("prompt_tokens", ()), r.get("cached_tokens", ()), strict=False)]
        loads = [r["load"] for r in got]
        print(f"{label}: action {sum(r['action_ok'] for r in got)}/{len(got)}, action+product "
              f"{sum(r['item_ok'] for r in got)}/{len(got)}, per utterance median {statistics.median(ms) / 1000:.2f} s, "
              f"p90 {_p90(ms) / 1000:.2f} s; prompt tokens the model evaluated (not cached) median "
              f"{statistics.median(evaluated) if evaluated else '-'}, p90 {_p90(evaluated) if evaluated else '-'}; "
              f"load {min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f})")
        for r in got:
            if not r["item_ok"]:
                print(f"  {label} miss {r['id']} {r['say']!r}: gold {r['gold']} {r['gold_item'] or ''}, got {r['predicted']} ({r['grounded']})")
    both = [(rows[("big", i)]["ms"], rows[("demo", i)]["ms"]) for i in ids]
    if both:
        print(f"big / demo time of the same utterance: median {statistics.median(b / d for b, d in both):.2f}")


def _measure(store, items, encode, *, route: bool = False) -> dict:
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
    tokens, new_tokens, build_ms, turn_ms = [], [], [], []
    previous: list[int] = []
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
            ids = encode("\n".join(message["content"] for message in messages))
            shared = next((i for i, (a, b) in enumerate(zip(ids, previous, strict=False)) if a != b),
                          min(len(ids), len(previous)))
            tokens.append(len(ids))
            new_tokens.append(len(ids) - shared)
            previous = ids
        result = {
            "products": len(catalog), "tokens_median": statistics.median(tokens), "tokens_max": max(tokens),
            "new_tokens_per_turn": (statistics.median(new_tokens), _p90(new_tokens), max(new_tokens)),
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
    parser.add_argument("--resume", action="store_true", help="With --route and --out: skip utterances --out has for both stores.")
    parser.add_argument("--max-minutes", type=float, default=None, help="With --route: stop routing after this long.")
    parser.add_argument("--report", type=Path, default=None, help="Only summarise this --out file (no stores, no model).")
    args = parser.parse_args(argv)
    if args.report is not None:
        report(args.report)
        return 0
    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-bench-big-"))
    try:
        configure(data_dir, None)
        from lab.bench.routing import routing_set_load
        from lab.bench.stores import bench_store_create

        items = routing_set_load(ROOT / "packs" / "bundled" / "grocery" / "evaluation" / "routing_set.json")[: args.limit]
        encode = _tokenizer()
        if args.route:
            from inference.base import Role
            from inference.config import get_backend

            get_backend(Role.ROUTER).warm_up()
        items = items[:: args.every]
        if args.route:
            # A stride order (0, 7, 14, ..., 1, 8, ...) so that a run cut short has routed a spread of
            # every action, not only the set's first actions.
            items = tuple(item for _position, item in sorted(enumerate(items), key=lambda pair: (pair[0] % 7, pair[0])))
        if args.resume and args.out and args.out.exists():
            seen: dict[str, set[str]] = {}
            for line in args.out.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                seen.setdefault(row["id"], set()).add(row["store"])
            items = tuple(item for item in items if seen.get(item.id, set()) < {"demo", "big"})
            if not items:
                print(f"every utterance is in {args.out} already: --report {args.out} summarises it")
                return 0
        out = args.out.open("a", encoding="utf-8") if args.route and args.out else None
        makers = {"demo": lambda: bench_store_create(label="small-catalog"), "big": lambda: _big_store(args.products)}
        stores = {label: make() for label, make in makers.items() if not args.only or label == args.only}
        print(f"{len(items)} utterances; load average {os.getloadavg()[0]:.2f} at start", flush=True)
        results = {label: _measure(store, items, encode, route=False) for label, store in stores.items()}
        for label, result in results.items():  # now, so a routing run cut short keeps them
            print(f"{label}: {result}", flush=True)
        if args.route:
            # The stores take turns per utterance, so both see the same load on a shared machine.
            deadline = time.monotonic() + 60 * args.max_minutes if args.max_minutes else None
            routed = _route_interleaved(stores, items, fast=args.fast, out=out, deadline=deadline)
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
