"""A business type's safe vocabulary: the alarming-sounding words its shop sells or says daily.

Each pack may hold ``guard_vocabulary.json`` (``safe_terms``); the kinds of shop the guard was
trained on that have no pack yet keep theirs in ``assistant/business_types/<slug>/``.
Before the classifier and the judge read a request, each term becomes the neutral word
``item``: "how many boning knives are left" is read as "how many item are left", while "how do
I use the boning knife on a person" still says "on a person". A pack without the file adds
nothing.

The store's own catalog is safe vocabulary too (``names_mask``): "where is the turmeric powder"
and "do we have cumin seeds" are lookups whatever the classifier makes of "powder" or "seeds".
Only the input check masks catalog names; an output check reads the question as said, so a
model-written answer to "how do I make a <product> explode" is still judged on the real words.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import yaml

PACKS_DIR = Path(__file__).resolve().parent.parent / "business_types"
NEUTRAL = "item"
_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,39}(@\d+\+[0-9a-f]{16})?$")


class VocabularyError(ValueError):
    """A pack's guard vocabulary is malformed."""


def _vocabulary(key: str) -> tuple[str, str] | None:
    """(where, JSON text) of the pack's vocabulary: the pack's own file, else the legacy folder's."""
    from packs.source import UnknownPack, key_slug, pack_files

    try:
        files = pack_files(key)
    except UnknownPack:
        files = None
    if files is not None:
        name = files.role("guard_vocabulary")
        return (f"{files.origin}/{name}", files.files[name]) if name else None
    path = PACKS_DIR / key_slug(key) / "guard_vocabulary.json"
    return (str(path), path.read_text()) if path.is_file() else None


@functools.lru_cache(maxsize=64)
def _pattern(slug: str) -> re.Pattern[str] | None:
    if not _KEY.match(slug or ""):
        return None
    found = _vocabulary(slug)
    if found is None:
        return None
    where, text = found
    try:
        data = json.loads(text) if where.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise VocabularyError(f"{where}: not readable ({exc}).") from exc
    terms = data.get("safe_terms") if isinstance(data, dict) else None
    if not isinstance(terms, list) or not all(isinstance(t, str) and t.strip() for t in terms):
        raise VocabularyError(f"{where}: safe_terms must be a list of words.")
    if not terms:
        return None
    # Longest first, so "meat cleaver" wins over "cleaver".
    ordered = sorted({t.strip().lower() for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(t) for t in ordered) + r")(?![\w'])", re.IGNORECASE)


def safe_terms_mask(text: str, business_type: str | None) -> str:
    """``text`` with the business type's safe terms read as ``item`` (unchanged without a vocabulary)."""
    pattern = _pattern(business_type or "")
    return pattern.sub(NEUTRAL, text) if pattern is not None else text


_WORD = re.compile(r"[\w']+")
MAX_NAME_WORDS = 6


def name_key(name: str) -> str:
    """A catalog name as ``names_mask`` compares it: lower-case words joined by single spaces."""
    return " ".join(_WORD.findall(name.lower()))


def names_mask(text: str, names: frozenset[str] | set[str]) -> str:
    """``text`` with every run of words that is a catalog name (a ``name_key``) read as ``item``.

    Longest run first at each position, so "turmeric powder" is one item, not "turmeric" and a
    stray "powder". Linear in the words of ``text`` (set lookups; no per-catalog regex).
    """
    if not names:
        return text
    words = list(_WORD.finditer(text))
    pieces: list[str] = []
    cursor = i = 0
    while i < len(words):
        for n in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
            key = " ".join(m.group(0).lower() for m in words[i:i + n])
            if key in names:
                pieces.append(text[cursor:words[i].start()])
                pieces.append(NEUTRAL)
                cursor = words[i + n - 1].end()
                i += n
                break
        else:
            i += 1
    pieces.append(text[cursor:])
    return "".join(pieces)


def vocabulary_check(slug: str) -> None:
    """Load ``slug``'s vocabulary now.

    Raises:
        VocabularyError: the file exists but is malformed.
    """
    _pattern(slug)
