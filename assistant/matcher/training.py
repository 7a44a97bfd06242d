"""What the matcher's embedding head learns from, and the form in which it reads a request.

The head should learn how a request is *framed* ("where is the ...", "we have N ... of ..."), not
which products the examples happened to name: the product words dominate a short sentence's
embedding, so a head trained on "where is the ghee" was unsure of "point me to the besan". So:

- ``head_text``: the normalised words with every grounded product's words replaced by one
  placeholder word (``PLACEHOLDER``), numbers already digits; training and serving both use it;
- the training sentences are the pack's router examples and its development set (products masked
  by grounding them against the pack's own sample catalog), plus random expansions of the pack's
  own templates (``template_samples``: ``{item}`` becomes the placeholder, ``{group}`` one of the
  lexicon's group words, ``{n}`` a number). Everything comes from the pack: nothing here knows
  what the shop sells.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.grounding import Catalog, Grounding
    from assistant.lexicon import Lexicon
    from assistant.matcher.templates import MatcherPack

PLACEHOLDER = "item"
# Random expansions drawn per template sentence (seeded, so the training texts, and the embedding
# cache keyed by them, stay the same from run to run).
SAMPLES_PER_SENTENCE = 6
_NUMBERS = (2, 3, 5, 8, 12, 15, 20, 24, 40)


@dataclass(frozen=True)
class Example:
    """One training sentence: the head's text, its action, and where it came from ("dev:<id>" for the development set)."""

    text: str
    action: str
    origin: str


def head_text(text: str, grounding: Grounding) -> str:
    """The words as the head reads them: each grounded product's words replaced by the placeholder."""
    words = text.split()
    for ref in grounding.products:
        target = ref.words.split()
        if not target or grounding.via_pronoun:
            continue
        for start in range(len(words) - len(target) + 1):
            if [w.strip(",.?!") for w in words[start:start + len(target)]] == target:
                words[start:start + len(target)] = [PLACEHOLDER]
                break
    return " ".join(words)


def sample_catalog(business_type: str, lexicon: Lexicon) -> Catalog | None:
    """The pack's own sample catalog (the products its examples name), or None when it has none."""
    from assistant.grounding import Catalog
    from packs.source import SAMPLE_CATALOG, UnknownPack, pack_files

    try:
        files = pack_files(business_type)
    except UnknownPack:
        return None
    text = files.files.get(SAMPLE_CATALOG)
    if not text:
        return None
    rows = [{"name": row["name"], "category": row.get("category") or "", "unit": row.get("unit") or "",
             "aliases": [a.strip() for a in (row.get("aliases") or "").split("|") if a.strip()]}
            for row in csv.DictReader(io.StringIO(text)) if row.get("name")]
    return Catalog(rows, lexicon=lexicon)


def _expand(expr: Any, pack: MatcherPack, rng: random.Random, fill: dict[str, list[str]]) -> str:
    """One random sentence that the hassil expression ``expr`` accepts."""
    from hassil import expression as e

    if isinstance(expr, e.TextChunk):
        return expr.text
    if isinstance(expr, e.Alternative):
        return _expand(rng.choice(expr.items), pack, rng, fill)
    if isinstance(expr, e.Permutation):
        items = list(expr.items)
        rng.shuffle(items)
        return " ".join(_expand(item, pack, rng, fill) for item in items)
    if isinstance(expr, e.Group):
        return "".join(_expand(item, pack, rng, fill) for item in expr.items)
    if isinstance(expr, e.RuleReference):
        return _expand(pack.intents.expansion_rules[expr.rule_name].expression, pack, rng, fill)
    if isinstance(expr, e.ListReference):
        if expr.list_name in fill:
            return rng.choice(fill[expr.list_name])
        values = getattr(pack.intents.slot_lists.get(expr.list_name), "values", None)
        if values:
            return _expand(rng.choice(values).text_in, pack, rng, fill)
        return PLACEHOLDER
    return ""


def template_samples(pack: MatcherPack, lexicon: Lexicon, actions: set[str], *,
                     per_sentence: int = SAMPLES_PER_SENTENCE, seed: int = 0) -> Iterator[Example]:
    """Random expansions of the templates of the pack's ``actions`` (context templates name none)."""
    rng = random.Random(seed)
    fill = {"item": [PLACEHOLDER], "group": sorted(" ".join(words) for words in lexicon.groups) or [PLACEHOLDER],
            "n": [str(n) for n in _NUMBERS]}
    for name, intent in pack.intents.intents.items():
        if name not in actions:
            continue
        for data in intent.data:
            for sentence in data.sentences:
                seen: set[str] = set()
                for _ in range(per_sentence * 3):
                    text = " ".join(_expand(sentence.expression, pack, rng, fill).split())
                    if text and text not in seen:
                        seen.add(text)
                        yield Example(text=text, action=name, origin="template")
                    if len(seen) >= per_sentence:
                        break


@lru_cache(maxsize=16)
def training_examples(business_type: str) -> tuple[Example, ...]:
    """The head's training sentences: the pack's router examples, its development set, its templates' expansions."""
    from assistant.grounding import ground
    from assistant.lexicon import lexicon_for
    from assistant.matcher.templates import matcher_pack
    from assistant.modes.router.prompt import router_pack
    from assistant.normalize import normalize

    lexicon = lexicon_for(business_type)
    router = router_pack(business_type)
    said = [(say, answer["action"], "example") for say, answer in router.examples]
    pack = matcher_pack(business_type)
    if pack is not None and pack.development_set is not None:
        said += [(item["say"], item["action"], f"dev:{item['id']}") for item in json.loads(pack.development_set)["items"]]
    catalog = sample_catalog(business_type, lexicon)
    examples = []
    for say, action, origin in said:
        text = normalize(say, lexicon).text
        if catalog is not None:
            text = head_text(text, ground(text, catalog=catalog, lexicon=lexicon))
        examples.append(Example(text=text, action=action, origin=origin))
    if pack is not None:
        actions = {spec["name"] for spec in router.actions}
        examples += template_samples(pack, lexicon, actions)
    return tuple(examples)
