"""Write the guard's hand-written training and development sets (issue 17, second corpus).

    python scripts/guard_corpus_v4.py   # writes assistant/data/guard_v4_train.json and guard_v4_dev.json

The sentences are in ``lab/guard/corpus/*.txt``, written by hand sentence by sentence (owner talk
with idioms, slang, Hinglish, complaints, pest control, kitchen knives, pharmacy medicines,
hardware tools; unsafe requests; injections in many styles incl. product names and tool results;
question + reply pairs), without reading the evaluation or challenge sets; ``work6.txt`` is a second
writer's (clothing, electronics and stationery shops too, which have no pack), ``work7.txt`` a
third's. Every fourth sentence of a section goes to the development set only, with its own product
list, so thresholds chosen on dev are chosen on sentences the classifier never saw.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "lab" / "guard" / "corpus"
OUT = ROOT / "assistant" / "data"
SEED = 1717

PRODUCTS = {
    "grocery": ["sona masoori", "kabuli chana", "sunflower oil", "maggi", "parle-g", "amul butter", "dahi",
                "green chillies", "onions", "tomatoes", "dhania", "garam masala", "ragi", "peanuts", "sabudana",
                "aata", "tata salt", "bread", "eggs", "milk packets"],
    "kitchen": ["cleavers", "chef's knives", "santoku knives", "knife blocks", "peelers", "graters"],
    "pharmacy": ["crocin", "dolo 650", "vicks", "band-aids", "cough drops", "eye drops"],
    "hardware": ["hacksaw blades", "wood screws", "claw hammers", "paint rollers", "sandpaper"],
    "bakery": ["croissants", "sourdough", "rusks", "baguettes", "cupcakes"],
    # Sixth sitting (work6.txt): shops without a pack of their own.
    "clothing": ["kurtas", "denim jackets", "socks"], "electronics": ["earphones", "usb cables", "led bulbs"],
    "stationery": ["notebooks", "gel pens", "staplers"],
}
DEV_PRODUCTS = {
    "grocery": ["urad dal", "mango pickle", "vermicelli", "cashews", "soya chunks", "kurkure", "lentils"],
    "kitchen": ["bread knives", "cutting boards", "tongs"],
    "pharmacy": ["ors", "antacid", "thermometers"],
    "hardware": ["drill bits", "spanners", "extension cords"],
    "bakery": ["muffins", "pav", "brownies"],
    "clothing": ["leggings", "school uniforms"], "electronics": ["power strips", "smart plugs"],
    "stationery": ["sketchbooks", "marker pens"],
}
SUPPLIERS = ["the supplier", "sharma ji", "the wholesaler", "metro", "the distributor", "raju", "the dairy guy"]
FILLERS = ["", "", "", "", "um ", "uh ", "ok so ", "hey ", "alexa ", "listen ", "arre ", "yaar "]
TAILS = ["", "", "", "", " please", " yaar", " quickly", " thanks", " na", " boss", " ok?"]
COPIES = 3  # a line with a {p} slot is written out this many times in training (once in dev)


def sections(path: Path) -> list[list]:
    """``[category, label, kind, [lines]]`` for each ``## category label [kind]`` section."""
    found: list[list] = []
    current: list | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            parts = line[3:].split()
            current = [parts[0], parts[1], parts[2] if len(parts) > 2 else None, []]
            found.append(current)
        elif current is not None:
            current[3].append(line)
    return found


def _fill(line: str, rng: random.Random, products: dict, kind: str | None) -> str:
    return (line.replace("{p}", rng.choice(products[kind or "grocery"]))
            .replace("{n}", str(rng.choice([2, 3, 5, 6, 10, 12, 20, 25, 50])))
            .replace("{sup}", rng.choice(SUPPLIERS)))


def _speechy(text: str, rng: random.Random) -> str:
    text = rng.choice(FILLERS) + text + rng.choice(TAILS)
    if rng.random() < 0.15:
        text = text.capitalize()
    if rng.random() < 0.1:
        text = re.sub(r"\byou\b", "u", text)
    return text.strip()


def build(dev: bool) -> list[dict]:
    rng = random.Random(SEED + dev)
    products = DEV_PRODUCTS if dev else PRODUCTS
    items: list[dict] = []
    seen: set[tuple[str, str | None]] = set()
    for path in sorted(CORPUS.glob("*.txt")):
        for category, label, kind, lines in sections(path):
            for index, line in enumerate(lines):
                if (index % 4 == 3) != dev:
                    continue
                question, _, reply = line.partition(" || ")
                copies = COPIES if "{p}" in question and not dev else 1
                for _ in range(copies):
                    text = _fill(question, rng, products, kind)
                    if label == "safe" and category not in ("everyday", "health_safe") and not reply:
                        text = _speechy(text, rng)
                    key = (text.lower(), reply or None)
                    if key in seen:
                        continue
                    seen.add(key)
                    items.append({
                        "id": f"{'d' if dev else 't'}4-{category}-{len(items):04d}", "text": text,
                        "reply": reply or None, "label": label, "category": category,
                        **({"business_type": kind} if kind and kind != "grocery" else {}),
                    })
    return items


def write_set(*, version: int, split: str, how_made: str, items: list[dict]) -> None:
    """Write ``assistant/data/guard_v<version>_<split>.json`` with its header."""
    path = OUT / f"guard_v{version}_{split}.json"
    header = {"version": version, "split": split, "how_made": how_made, "items": items}
    path.write_text(json.dumps(header, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path.name}: {len(items)} items")


def main() -> None:
    for split, dev in (("train", False), ("dev", True)):
        write_set(version=4, split=split, items=build(dev),
                  how_made="Expanded by scripts/guard_corpus_v4.py from lab/guard/corpus/*.txt: sentences written by "
                           "hand on 2026-12-06 without reading the evaluation or challenge sets; every fourth "
                           "sentence of a section (with its own products) is dev only.")


if __name__ == "__main__":
    main()
