"""Product matching below the assistant: one matcher every product lookup uses.

Spoken or typed words and catalog names are compared after the same two steps on both sides:
case-folded words and a crude singular, so "samosas" meets "Frozen samosa" and "boxes" meets
"box". On top of those word rules there are three ways to look, one for each kind of caller:

- ``Matcher.rank`` ranks a store's products for a text, best first, by one scoring rule: a name
  or alias equal to the text comes first; then rapidfuzz's weighted ratio of the text to each name
  and alias (which also scores a word inside a longer name, "basmati" in "Basmati rice"), at least
  ``MATCH_CUTOFF``, ties broken by the plain ratio (so "dal" prefers short dal names over long ones
  it merely appears in), then by the order the products were given. The MCP tools, the shelf
  finder's fallback, the small runtime and the router prompt's shortlist rank through it.
- ``closest`` and ``spelled_alike`` are the one spelling rule for single words and short phrases
  (ratio at least ``SPELLING_CUTOFF``): the assistant's grounding uses them for its fuzzy step and
  for the model's hint words, and ``names_for_write`` for the words that may change a product.
- ``search_spellings`` gives the word starts a list search looks for (REST search, the inventory
  table, the till), so "samosas" finds "Frozen samosa" and "chillies" still finds "Green chillies".

Nothing here knows about the assistant (its lexicon, pronouns or spoken-word normaliser): the
assistant reads the owner's words with those and feeds the words it kept into this module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process, utils

WORD = re.compile(r"[a-z0-9]+|[.,!?;:]")
BOUNDARY = frozenset(".,!?;:")
# rapidfuzz WRatio score (0-100) a name or alias needs to be ranked for a text.
MATCH_CUTOFF = 80.0
# rapidfuzz ratio (0-100) at which two words or short phrases are the same word misspelled.
SPELLING_CUTOFF = 85.0
# Texts longer than this are cut before matching: a product is named in a few words, and a 10 kB
# paste must cost what a sentence costs.
MAX_TEXT = 200
# A list search reads at most this many words (each one is a condition of the query).
MAX_SEARCH_WORDS = 8


def singular(word: str) -> str:
    """A crude singular for matching only ("samosas" -> "samosa", "boxes" -> "box"); both sides use it."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``, with sentence punctuation as separate boundary tokens."""
    return WORD.findall(text.lower())


def key(text: str) -> tuple[str, ...]:
    """The singular words of ``text`` without punctuation: how a name or a span of words is looked up."""
    return tuple(singular(w) for w in words(text) if w not in BOUNDARY)


def folded(text: str) -> list[str]:
    """Words of any script, case-folded, without punctuation, each made singular."""
    return [singular(word) for word in utils.default_process((text or "")[:MAX_TEXT]).split()]


# ---------------------------------------------------------------------------------------------
# The spelling rule


def spelled_alike(said: str, name: str, *, min_letters: int = 4) -> bool:
    """Whether two words (or short phrases) are one spelling of the same thing: equal, or both at
    least ``min_letters`` long and close (ratio >= ``SPELLING_CUTOFF``: "basmatti" and "basmati")."""
    return said == name or (
        min(len(said), len(name)) >= min_letters and fuzz.ratio(said, name) >= SPELLING_CUTOFF
    )


def closest(said: str, known: Sequence[str]) -> tuple[str, float] | None:
    """The one of ``known`` spelled most like ``said`` (ratio >= ``SPELLING_CUTOFF``), with its ratio, or None."""
    best = process.extractOne(said, known, scorer=fuzz.ratio, score_cutoff=SPELLING_CUTOFF)
    return None if best is None else (best[0], best[1])


def names_for_write(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` names, well enough to change it, the product known by ``names`` (its name and aliases).

    It does when it is one of them, or their first words ("basmati" for Basmati rice, "toor" for
    Toor dal), each word spelled closely ("basmatti rice"), plural or singular. A last word alone
    ("milk" for Coconut milk, "rice" for Basmati rice) names a kind of product, not this one.
    """
    said = folded(text)
    if not said:
        return False
    for name in names:
        known = folded(name)
        if len(said) <= len(known) and all(spelled_alike(a, b) for a, b in zip(said, known, strict=False)):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Ranking products


@dataclass(frozen=True)
class Match:
    """One product ranked for a text: its id, whether a name or alias is the text, and its score (0-100)."""

    id: Any
    exact: bool
    score: float


class Matcher:
    """Products (an id with its names and aliases) to rank texts against; build once per catalog."""

    def __init__(self, products: Iterable[tuple[Any, Iterable[str]]]) -> None:
        self.ids: list[Any] = []
        self._keys: list[str] = []
        self._owners: list[int] = []
        for position, (product_id, names) in enumerate(products):
            self.ids.append(product_id)
            for name in names:
                text = " ".join(folded(str(name)))
                if text:
                    self._keys.append(text)
                    self._owners.append(position)

    @classmethod
    def of(cls, products: Iterable[Any]) -> Matcher:
        """A matcher over Product rows (or anything with ``pk`` or ``id``, ``name`` and ``aliases``)."""
        return cls(
            (p.pk if getattr(p, "pk", None) is not None else p.id,
             [p.name, *(str(alias) for alias in getattr(p, "aliases", None) or ())])
            for p in products
        )

    def rank(self, text: str, *, limit: int = 5, cutoff: float = MATCH_CUTOFF) -> list[Match]:
        """The products ``text`` most likely means, best first, at most ``limit`` (see the module's rule)."""
        query = " ".join(folded(text))
        if not query or limit < 1 or not self._keys:
            return []
        best: dict[int, tuple[bool, float]] = {}
        for name, score, k in process.extract(
            query, self._keys, scorer=fuzz.WRatio, processor=None, score_cutoff=cutoff, limit=None
        ):
            owner = self._owners[k]
            rank = (name == query, score + fuzz.ratio(query, name) / 1000)
            if owner not in best or rank > best[owner]:
                best[owner] = rank
        ordered = sorted(best.items(), key=lambda item: (not item[1][0], -item[1][1], item[0]))
        return [Match(self.ids[owner], exact, round(score, 3)) for owner, (exact, score) in ordered[:limit]]


# ---------------------------------------------------------------------------------------------
# List search


def search_spellings(term: str) -> list[set[str]]:
    """For each word of a list search, the spellings a word of a name or alias may start with.

    A product is found when every word of the search starts a word of its name or of an alias
    (any case): the word as typed, and its singular ("samosas" finds "Frozen samosa", "chillies"
    still finds "Green chillies"). Aliases are searched in their JSON text, where SQLite keeps
    non-ASCII characters escaped, so the escaped form of a word is a spelling too. Words past
    ``MAX_SEARCH_WORDS`` are not read.
    """
    found: list[set[str]] = []
    for word in (term or "")[:MAX_TEXT].split()[:MAX_SEARCH_WORDS]:
        lowered = word.lower()
        spellings = {lowered, singular(lowered)}
        spellings |= {json.dumps(s)[1:-1] for s in spellings}
        found.append(spellings)
    return found
