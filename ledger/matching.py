"""Product matching below the assistant: the word rules every product matcher shares.

Spoken or typed words and catalog names are compared word by word, after the same two steps on
both sides: lower-cased words (punctuation kept as its own boundary token) and a crude singular,
so "samosas" meets "Frozen samosa" and "boxes" meets "box". The assistant's grounding builds on
these; nothing here knows about the assistant (its lexicon, pronouns or spoken-word normaliser).
"""

from __future__ import annotations

import re

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
