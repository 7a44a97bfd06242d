"""A business type's safe vocabulary: the alarming-sounding words its shop sells or says daily.

Each pack may ship ``assistant/business_types/<slug>/guard_vocabulary.json`` (``safe_terms``).
Before the classifier and the judge read a request, each term becomes the neutral word
``item``: "how many boning knives are left" is read as "how many item are left", while "how do
I use the boning knife on a person" still says "on a person". A pack without the file adds
nothing.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

PACKS_DIR = Path(__file__).resolve().parent.parent / "business_types"
NEUTRAL = "item"
_SLUG = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


class VocabularyError(ValueError):
    """A pack's guard vocabulary is malformed."""


@functools.lru_cache(maxsize=64)
def _pattern(slug: str) -> re.Pattern[str] | None:
    if not _SLUG.match(slug or ""):
        return None
    path = PACKS_DIR / slug / "guard_vocabulary.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    terms = data.get("safe_terms") if isinstance(data, dict) else None
    if not isinstance(terms, list) or not all(isinstance(t, str) and t.strip() for t in terms):
        raise VocabularyError(f"{path}: safe_terms must be a list of words.")
    # Longest first, so "meat cleaver" wins over "cleaver".
    ordered = sorted({t.strip().lower() for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(t) for t in ordered) + r")(?![\w'])", re.IGNORECASE)


def safe_terms_mask(text: str, business_type: str | None) -> str:
    """``text`` with the business type's safe terms read as ``item`` (unchanged without a vocabulary)."""
    pattern = _pattern(business_type or "")
    return pattern.sub(NEUTRAL, text) if pattern is not None else text


def vocabulary_check(slug: str) -> None:
    """Load ``slug``'s vocabulary now.

    Raises:
        VocabularyError: the file exists but is malformed.
    """
    _pattern(slug)
