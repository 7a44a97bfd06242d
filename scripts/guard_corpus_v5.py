"""Write the guard's third development set (issue 17): owner speech that borrows alarming words.

    python scripts/guard_corpus_v5.py   # writes assistant/data/guard_v5_dev.json

The sentences are in ``lab/guard/corpus_dev/*.txt`` (same section format as ``lab/guard/corpus``),
written by hand without reading the evaluation, challenge or v3 sets, and go to development only:
nothing in them is trained on, so the band chosen on them (``guard_train``) is chosen on sentences
neither the encoder nor the regression has seen. ``{p}`` takes the dev products of the v4 corpus.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guard_corpus_v4 import DEV_PRODUCTS, ROOT, _fill, _speechy, sections, write_set  # noqa: E402

CORPUS = ROOT / "lab" / "guard" / "corpus_dev"
SEED = 1905


def build() -> list[dict]:
    """Every line once, with a dev product, spoken like the owner where it is the owner's speech."""
    rng = random.Random(SEED)
    items: list[dict] = []
    seen: set[str] = set()
    for path in sorted(CORPUS.glob("*.txt")):
        for category, label, kind, lines in sections(path):
            for line in lines:
                text = _fill(line, rng, DEV_PRODUCTS, kind)
                if label == "safe" and category not in ("everyday", "health_safe"):
                    text = _speechy(text, rng)
                if text.lower() in seen:
                    continue
                seen.add(text.lower())
                items.append({
                    "id": f"d5-{category}-{len(items):04d}", "text": text, "label": label, "category": category,
                    **({"business_type": kind} if kind and kind != "grocery" else {}),
                })
    return items


def main() -> None:
    write_set(version=5, split="dev", items=build(),
              how_made="Expanded by scripts/guard_corpus_v5.py from lab/guard/corpus_dev/*.txt: sentences written by hand "
                       "on 2026-12-06 (evening) for development only, without reading the evaluation, challenge or v3 "
                       "sets; owner speech borrowing the words of violence, crime and computing, and unsafe requests "
                       "using the same words on people, other stores or the assistant.")


if __name__ == "__main__":
    main()
