"""Product matching below the assistant: the word rules every product matcher shares.

Spoken or typed words and catalog names are compared word by word, after the same two steps on
both sides: lower-cased words (punctuation kept as its own boundary token) and a crude singular,
so "samosas" meets "Frozen samosa" and "boxes" meets "box". The assistant's grounding builds on
these; nothing here knows about the assistant (its lexicon, pronouns or spoken-word normaliser).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz, utils

WORD = re.compile(r"[a-z0-9]+|[.,!?;:]")
BOUNDARY = frozenset(".,!?;:")


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


def _folded(text: str) -> list[str]:
    """Words of any script, case-folded, without punctuation, each made singular."""
    return [singular(word) for word in utils.default_process(text or "").split()]


def _spelled_alike(said: str, name: str) -> bool:
    return said == name or (min(len(said), len(name)) >= 4 and fuzz.ratio(said, name) >= 85)


def names_for_write(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` names, well enough to change it, the product known by ``names`` (its name and aliases).

    It does when it is one of them, or their first words ("basmati" for Basmati rice, "toor" for
    Toor dal), each word spelled closely ("basmatti rice"), plural or singular. A last word alone
    ("milk" for Coconut milk, "rice" for Basmati rice) names a kind of product, not this one.
    """
    said = _folded(text)
    if not said:
        return False
    for name in names:
        known = _folded(name)
        if len(said) <= len(known) and all(_spelled_alike(a, b) for a, b in zip(said, known, strict=False)):
            return True
    return False
