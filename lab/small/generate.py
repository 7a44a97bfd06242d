"""Generate the small model's training data: conversations on randomised throwaway stores.

``generate`` writes ``train.jsonl``, ``dev.jsonl`` and ``heldout.jsonl`` and ``summary.json`` to
``out_dir``. One record per line::

    {"id": "train-000042", "split": "train", "scenario": "where",
     "lines": [{"tag": "Catalog", "text": "Jaggery; Ghee; ...", "train": false},
               {"tag": "Owner", "text": "where did we put the gur", "train": false},
               {"tag": "Call", "text": "get_inventory {\\"item\\": \\"Jaggery\\"}", "train": true},
               {"tag": "Result", "text": "Jaggery: stock 20 x 1 kg block, ...", "train": false},
               {"tag": "Answer", "text": "Jaggery is in Aisle 1, ...", "train": true}],
     "meta": {"randomised": true, "owner_normalized": false, "history": ["price"], "products": ["Jaggery"],
              "seed": 0}}

Only the final turn's Call and Answer lines have ``"train": true``; ``protocol.steps(record)``
turns a record into (prompt, completion) pairs. Splits: ``train`` and ``dev`` never see the
held-out products (they are switched off in the store, so no line names them); ``dev`` is a
separate draw of the same distribution for step accuracy on seen products; ``heldout`` asks
only about ``stores.HELDOUT_PRODUCTS``. The same seed gives the same files.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from django.core import mail
from django.test.utils import override_settings

from assistant.grounding import Catalog
from assistant.lexicon import lexicon_for
from assistant.modes.small.protocol import catalog_line_names
from lab.small import scenarios as sc
from lab.small.stores import (
    HELDOUT_PRODUCTS,
    StoreRun,
    generation_store,
    ring_up,
    sales_forget,
    scratch,
)
from ledger.models import Product
from packs.source import GROCERY_EVALUATION
from tenants.context import use_store

SPLITS = ("train", "dev", "heldout")
RANDOMISED_SHARE = 0.85  # as in the seed's version 6: the rest keep the demo store's values
HISTORY_SHARE = 0.5
SHUFFLED_CATALOG_SHARE = 0.25
#: The runtime always shows the normalised words; raw speech in the rest keeps the model robust to what normalising misses.
NORMALIZED_SHARE = 0.7
MAX_TRIES = 40


def _canon(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def evaluation_phrases() -> frozenset[str]:
    """The benchmark suite's and routing set's requests (canonical form): never used as a final request."""
    phrases: set[str] = set()
    for path in (GROCERY_EVALUATION / "suites").glob("*.json"):
        phrases.update(_canon(turn["say"]) for turn in json.loads(path.read_text())["turns"])
    routing = GROCERY_EVALUATION / "routing_set.json"
    if routing.exists():
        phrases.update(_canon(item["say"]) for item in json.loads(routing.read_text())["items"])
    return frozenset(phrases)


def split_sizes(n: int, dev: int | None = None, heldout: int | None = None) -> dict[str, int]:
    """Train ``n``; dev and held-out default to a tenth of it (at least 50, at most 600)."""
    default = min(max(n // 10, 50), 600)
    return {"train": n, "dev": default if dev is None else dev, "heldout": default if heldout is None else heldout}


class _Split:
    """The per-split fixed parts: catalog, product words, focus products, scenario weights."""

    def __init__(self, run: StoreRun, split: str, lexicon) -> None:
        self.split = split
        self.hidden = frozenset() if split == "heldout" else frozenset(HELDOUT_PRODUCTS)
        with use_store(run.store):
            rows = [p for p in Product.objects.filter(store=run.store).order_by("pk") if p.name not in self.hidden]
        self.catalog = Catalog.from_products(rows, lexicon=lexicon)
        units = {p.name: {"unit": p.unit} for p in rows}
        self.infos = sc.product_infos(self.catalog, lexicon, units)
        self.focus = list(HELDOUT_PRODUCTS) if split == "heldout" else [p.name for p in rows]
        names = sc.PRODUCT_SCENARIOS if split == "heldout" else tuple(sc.SCENARIOS)
        self.names = list(names)
        self.weights = [1.0 if split == "heldout" else sc.SCENARIOS[name][1] for name in names]


def _products(store) -> dict[str, dict]:
    return {
        p.name: {"stock": p.stock, "isLow": p.is_low, "unit": p.unit}
        for p in Product.objects.filter(store=store, active=True)
    }


def _record(run: StoreRun, part: _Split, lexicon, index: int, seed: int, scenario: str, attempt: int,
            banned: frozenset[str]) -> dict[str, Any]:
    """One record, or ``scenarios.Skip`` when this draw cannot make a good one."""
    rng = random.Random(f"{seed}:{part.split}:{index}:{attempt}")
    randomised = rng.random() < RANDOMISED_SHARE
    history: list[str] = []
    needs = sc.NEEDS.get(scenario)
    if needs:
        if rng.random() < 0.3:
            history.append(rng.choice(sc.CONTEXT_SCENARIOS))
        history.append(rng.choice(needs))
    elif rng.random() < HISTORY_SHARE:
        history += rng.sample(sc.CONTEXT_SCENARIOS, k=rng.choice((1, 1, 2)))
    with scratch(run, rng=rng, randomise=randomised, hidden=part.hidden) as store:
        if scenario in ("sales", "health") or rng.random() < 0.05:
            ring_up(store, rng, receipts=rng.randint(1, 12))
        env = sc.Env(rng=rng, infos=part.infos, focus=part.focus, products=_products(store))
        convo = sc.Convo(store=store, lexicon=lexicon, conversation=f"smallgen-{part.split}-{seed}-{index}-{attempt}",
                         normalized_owner=rng.random() < NORMALIZED_SHARE)
        for name in history:
            _turn(convo, env, name)
            env.products = _products(store)
        last_product = convo.state.last_product
        start = len(convo.lines)
        convo.training = True
        _turn(convo, env, scenario)
        if _canon(convo.owner_text) in banned or _canon(convo.words.text) in banned:
            raise sc.Skip("an evaluation phrasing")
    final = convo.lines[start:]
    if final[-1]["tag"] != "Answer" or not any(line["train"] for line in final):
        raise sc.Skip("no answer")
    names = catalog_line_names(part.catalog, convo.owner_text, last_product, seed=rng.random())
    if rng.random() < SHUFFLED_CATALOG_SHARE:
        rng.shuffle(names)  # so the model reads the names rather than always taking the first
    catalog = [{"tag": "Catalog", "text": "; ".join(names), "train": False}] if names else []
    lines = [*catalog, *convo.lines]
    asked = [name for line in final if line["tag"] == "Call" for name in _items(line["text"])]
    return {
        "id": f"{part.split}-{index:06d}",
        "split": part.split,
        "scenario": scenario,
        "lines": lines,
        "meta": {"randomised": randomised, "owner_normalized": convo.normalized_owner, "history": history,
                 "products": asked, "last_product": last_product, "seed": seed},
    }


def _items(call_text: str) -> list[str]:
    """The product words a Call line names (``item``, or each of ``items``)."""
    arguments = json.loads(call_text.split(" ", 1)[1])
    items = [arguments.get("item")] + [line.get("item") for line in arguments.get("items") or []]
    return [item for item in items if item]


def _turn(convo: sc.Convo, env: sc.Env, name: str) -> None:
    offered = convo.state.draft_lines
    sc.SCENARIOS[name][0](env, convo)
    if convo.state.draft_lines is offered:
        convo.state.draft_lines = []  # a draft is "on offer" only in the turn right after it


def generate(*, out_dir: str | Path, n: int = 3000, seed: int = 0, progress: bool = True,
             dev: int | None = None, heldout: int | None = None) -> dict[str, Any]:
    """Write train/dev/heldout JSONL and summary.json to ``out_dir``; returns the summary.

    Deterministic for a given ``seed`` and sizes (the store is fresh and every example's random
    draws come from its own seeded generator). Needs the database (it makes and deletes a store).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sizes = split_sizes(n, dev, heldout)
    lexicon = lexicon_for("grocery")
    banned = evaluation_phrases()
    started = time.perf_counter()
    summary: dict[str, Any] = {"seed": seed, "sizes": sizes, "heldout_products": list(HELDOUT_PRODUCTS),
                               "scenarios": {}, "skipped": {}, "steps": {}}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(sizes.values()), desc="smallmodel generate", unit="ex")
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"), generation_store(seed=7) as run:
        # The held-out split runs first: then the held-out products' sales are deleted from the
        # store, so that no train or dev line (top sellers) names them.
        for split in ("heldout", "train", "dev"):
            if split == "train":
                sales_forget(run, frozenset(HELDOUT_PRODUCTS))
            part = _Split(run, split, lexicon)
            pick = random.Random(f"{seed}:{split}:scenarios")
            counts: Counter[str] = Counter()
            skipped: Counter[str] = Counter()
            steps = 0
            with (out / f"{split}.jsonl").open("w", encoding="utf-8") as fh:
                for index in range(sizes[split]):
                    scenario = pick.choices(part.names, weights=part.weights)[0]
                    for attempt in range(MAX_TRIES):
                        try:
                            record = _record(run, part, lexicon, index, seed, scenario, attempt, banned)
                            break
                        except sc.Skip as skip:
                            skipped[str(skip).split(":")[0][:60]] += 1
                    else:
                        raise RuntimeError(f"could not make a {scenario!r} example in {MAX_TRIES} tries")
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                    counts[scenario] += 1
                    steps += sum(1 for line in record["lines"] if line["train"])
                    if hasattr(mail, "outbox"):
                        mail.outbox.clear()
                    if bar is not None:
                        bar.update(1)
            summary["scenarios"][split] = dict(sorted(counts.items()))
            summary["skipped"][split] = dict(skipped.most_common())
            summary["steps"][split] = steps
    if bar is not None:
        bar.close()
    summary["seconds"] = round(time.perf_counter() - started, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
