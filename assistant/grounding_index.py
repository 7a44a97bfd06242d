"""The lookups grounding builds once per catalog and lexicon: names, parts of names, groups, fuzzy keys.

``assistant.grounding`` reads them (its rules are described there); ``Catalog`` builds and keeps
one ``Index`` per lexicon. The ranking of a large catalog's shortlist is the ledger's
(``ledger.matching.Matcher``), over the names, aliases and the lexicon's fixes of local names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jellyfish

from assistant.lexicon import Lexicon
from ledger.matching import Matcher, singular
from ledger.matching import key as _key

FUZZY_MIN_LETTERS = 5


@dataclass(frozen=True)
class CatalogEntry:
    """One product as grounding sees it."""

    id: Any
    name: str
    aliases: tuple[str, ...] = ()
    category: str = ""
    unit: str = ""


@dataclass
class Index:
    """Lookups built once per catalog and lexicon."""

    full: dict[tuple[str, ...], set[int]] = field(default_factory=dict)
    part: dict[tuple[str, ...], set[int]] = field(default_factory=dict)
    coverage: dict[tuple[tuple[str, ...], int], float] = field(default_factory=dict)
    heads: set[tuple[str, ...]] = field(default_factory=set)  # single last words of a multi-word name
    generic: dict[str, set[int]] = field(default_factory=dict)
    vocabulary: set[str] = field(default_factory=set)
    groups: dict[tuple[str, ...], str] = field(default_factory=dict)
    unit_word: dict[int, str] = field(default_factory=dict)
    fuzzy_keys: list[str] = field(default_factory=list)
    fuzzy_lookup: dict[str, tuple[str, ...]] = field(default_factory=dict)
    phonetic: dict[str, list[str]] = field(default_factory=dict)
    matcher: Matcher = field(default_factory=lambda: Matcher(()))  # every name, alias and fix, by entry position
    stop: frozenset[str] = frozenset()
    units: frozenset[str] = frozenset()


def index_build(entries: tuple[CatalogEntry, ...], lexicon: Lexicon | None) -> Index:
    idx = Index()
    generic = lexicon.generic_words if lexicon else frozenset()
    idx.units = frozenset(singular(u) for u in lexicon.units) | lexicon.units if lexicon else frozenset()
    idx.stop = lexicon.non_product_words if lexicon else frozenset()
    never_alone = generic | idx.units | idx.stop
    named: list[tuple[int, list[str]]] = []
    for e, entry in enumerate(entries):
        phrases = [entry.name, *entry.aliases]
        if lexicon is not None:
            # A store that calls the product by a local name ("Haldi") must still be found by the
            # catalog words the normaliser turns that name into ("turmeric powder").
            for phrase in list(phrases):
                fix = lexicon.corrections.get(tuple(phrase.lower().split()))
                if fix is not None:
                    phrases.append(fix.target)
        named.append((e, phrases))
        for phrase in phrases:
            key = _key(phrase)
            if not key:
                continue
            idx.vocabulary.update(key)
            idx.full.setdefault(key, set()).add(e)
            idx.coverage[(key, e)] = 1.0
            for size in range(1, len(key)):
                for start in range(len(key) - size + 1):
                    sub = key[start : start + size]
                    if size == 1 and (sub[0] in never_alone or len(sub[0]) < 3 or sub[0].isdigit()):
                        if sub[0] in generic:
                            idx.generic.setdefault(sub[0], set()).add(e)
                        continue
                    # Several words are specific even when each is generic ("ginger garlic"), but
                    # not when they are all units or store talk.
                    if all(w in idx.units or w in idx.stop or w.isdigit() for w in sub):
                        continue
                    idx.part.setdefault(sub, set()).add(e)
                    cov = size / len(key)
                    idx.coverage[(sub, e)] = max(idx.coverage.get((sub, e), 0.0), cov)
                    if size == 1 and start == len(key) - 1:
                        idx.heads.add(sub)
        unit_words = _key(entry.unit)
        if unit_words:
            idx.unit_word[e] = unit_words[-1]
    idx.matcher = Matcher(named)
    if lexicon is not None:
        categories = {entry.category.lower(): entry.category for entry in entries if entry.category}
        for words, category in lexicon.groups.items():
            if category.lower() in categories:
                idx.groups[words] = categories[category.lower()]
    for key in list(idx.full) + list(idx.part):
        text = " ".join(key)
        if len(text.replace(" ", "")) >= FUZZY_MIN_LETTERS and text not in idx.fuzzy_lookup:
            idx.fuzzy_lookup[text] = key
            idx.fuzzy_keys.append(text)
            if len(key) == 1:
                idx.phonetic.setdefault(jellyfish.metaphone(text), []).append(text)
    return idx
