"""Measure normalisation and product grounding on the routing sets (no model involved).

    python scripts/eval_grounding.py                  # dev and held-out sets, with and without hint
    python scripts/eval_grounding.py --set dev -v     # one set, every miss printed

For every item of assistant/data/routing_{dev,set}.json that names a product (`item`), a product
the store does not carry (`not_carried`), a group (`group`) or several products (`items`), it
grounds the owner's words against the demo catalog twice: with no hint, and with the gold item as
the router model's hint (what a perfect router would name), and prints accuracy per field and the
misses. It also checks that the spoken count or quantity survives normalisation as a number.

Fields:
    product      the best product is the gold item
    not_carried  no product, and the unknown words contain the gold words ("basil leaves" for
                 "basil"); `strict` counts only exact (singular) matches
    group        no product, and the group is the gold category
    items        the set of products is the gold set (restock lists)
    numbers      the gold count/quantities are among the numbers normalisation found

Tune on dev; report the held-out set (`set`) as it comes out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")

import django

django.setup()

from assistant.grounding import Catalog, CatalogEntry, Grounding, ground
from assistant.lexicon import lexicon_for
from assistant.normalize import normalize
from ledger.demo import CATALOG
from ledger.matching import singular

SETS = {"dev": "routing_dev.json", "set": "routing_set.json"}


def demo_catalog() -> Catalog:
    """The 38 demo products, without the database (ids are 1-based catalog positions)."""
    return Catalog(
        CatalogEntry(id=i, name=p.name, aliases=p.aliases, category=p.category, unit=p.unit)
        for i, p in enumerate(CATALOG, 1)
    )


def _words(text: str) -> set[str]:
    return {singular(w) for w in text.lower().replace("-", " ").split()}


def _describe(g: Grounding) -> str:
    parts = []
    if g.products:
        parts.append("products=" + ", ".join(f"{p.name}({p.score})" for p in g.products))
    if g.group:
        parts.append(f"group={g.group}")
    if g.unknown:
        parts.append(f"unknown={g.unknown!r}")
    if g.ambiguous:
        parts.append("ambiguous=" + ", ".join(p.name for p in g.ambiguous))
    if g.via_pronoun:
        parts.append("via_pronoun")
    return "; ".join(parts) or "nothing"


def evaluate(items: list[dict[str, Any]], catalog: Catalog, with_hint: bool) -> dict[str, Any]:
    lexicon = lexicon_for("grocery")
    tally: dict[str, list[int]] = {}
    misses: list[str] = []
    timings: list[float] = []

    def score(field: str, ok: bool, item: dict[str, Any], got: str, want: str) -> None:
        tally.setdefault(field, [0, 0])
        tally[field][0] += ok
        tally[field][1] += 1
        if not ok:
            misses.append(f"  {field:12} {item['id']}: {item['say']!r}\n{'':17}want {want}; got {got}")

    for item in items:
        say = item["say"]
        if item.get("item"):
            hint = item["item"] if with_hint else None
            t0 = time.perf_counter()
            g = ground(say, catalog=catalog, lexicon=lexicon, hint=hint)
            timings.append(time.perf_counter() - t0)
            score("product", bool(g.products) and g.products[0].name == item["item"], item, _describe(g), item["item"])
        elif item.get("not_carried"):
            want = item["not_carried"]
            g = ground(say, catalog=catalog, lexicon=lexicon, hint=want if with_hint else None)
            loose = not g.products and g.unknown is not None and _words(want) <= _words(g.unknown)
            strict = not g.products and g.unknown is not None and _words(want) == _words(g.unknown)
            score("not_carried", loose, item, _describe(g), repr(want))
            score("  strict", strict, item, _describe(g), repr(want))
        elif item.get("group"):
            hint = item["group"].lower() if with_hint else None
            g = ground(say, catalog=catalog, lexicon=lexicon, hint=hint)
            score("group", not g.products and g.group == item["group"], item, _describe(g), item["group"])
        elif item.get("items"):
            want_names = {line["item"] for line in item["items"]}
            if with_hint:
                got_names: set[str] = set()
                described = []
                for line in item["items"]:
                    g = ground(say, catalog=catalog, lexicon=lexicon, hint=line["item"])
                    if g.products:
                        got_names.add(g.products[0].name)
                    described.append(_describe(g))
                score("items", got_names == want_names, item, " | ".join(described), str(sorted(want_names)))
            else:
                g = ground(say, catalog=catalog, lexicon=lexicon)
                got = {p.name for p in g.products}
                score("items", got == want_names, item, _describe(g), str(sorted(want_names)))
        wanted_numbers = [item["count"]] if item.get("count") is not None else []
        wanted_numbers += [line["qty"] for line in item.get("items") or () if line.get("qty") is not None]
        if wanted_numbers and not with_hint:
            found = normalize(say, lexicon).numbers
            score("numbers", all(n in found for n in wanted_numbers), item, str(found), str(wanted_numbers))
    return {"tally": tally, "misses": misses, "timings": timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=[*SETS, "all"], default="all")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    args = parser.parse_args()
    catalog = demo_catalog()
    lexicon = lexicon_for("grocery")
    ground("warm up the index", catalog=catalog, lexicon=lexicon)
    names = list(SETS) if args.set == "all" else [args.set]
    for name in names:
        items = json.loads((ROOT / "packs" / "bundled" / "grocery" / "evaluation" / SETS[name]).read_text())["items"]
        for with_hint in (False, True):
            result = evaluate(items, catalog, with_hint)
            label = f"{name} ({SETS[name]}), hint={'gold item' if with_hint else 'none'}"
            print(f"\n== {label}")
            for field, (ok, total) in result["tally"].items():
                print(f"  {field:12} {ok:4d}/{total:<4d} {100 * ok / total:6.1f}%")
            if result["timings"]:
                ms = sorted(t * 1000 for t in result["timings"])
                print(f"  ground() median {ms[len(ms) // 2]:.2f} ms, max {ms[-1]:.2f} ms")
            if result["misses"]:
                print(f"  misses ({len(result['misses'])}):")
                shown = result["misses"] if args.verbose or name == "dev" else result["misses"][:40]
                print("\n".join(shown))


if __name__ == "__main__":
    main()
