"""A business type's spoken-word knowledge, loaded from its pack.

Each business type's pack (``packs/``) holds ``lexicon.json``: known mishearings and
local names (mapped to catalog words), wake words and fillers, pronouns that point back to the
last product, number words, the words that name a product group, and the vocabulary that is
never a product (units, function words, store talk). It is data, not code, so a vendor adds a
business type without touching Python. The JSON's shape (the pack schema's ``lexicon``) is
checked on load, and a missing or malformed pack fails loudly with the file and the offending
field, never half-loaded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema
import yaml
from django.core.exceptions import ImproperlyConfigured

_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")

Phrase = tuple[str, ...]


class LexiconError(ImproperlyConfigured):
    """A business type's lexicon pack is missing or malformed."""


@dataclass(frozen=True)
class Correction:
    """One spoken form and the catalog words it stands for.

    Attributes:
        source: the heard words, lower case.
        target: the catalog words that replace them.
        kind: ``"mishearing"`` or ``"local name"`` (for the audit).
        product_position: fire only where a product would be said (the heard form is also an
            ordinary English word: "doll", "auto").
    """

    source: Phrase
    target: str
    kind: str
    product_position: bool = False


# Identity hash (eq=False): lexicons are per-process singletons, and grounding caches indexes by them.
@dataclass(frozen=True, eq=False)
class Lexicon:
    """A business type's spoken-word knowledge; build with ``lexicon_for`` or ``lexicon_load``."""

    slug: str
    version: int
    wake_words: tuple[Phrase, ...]  # longest first
    fillers: frozenset[str]
    soft_fillers: tuple[Phrase, ...]
    corrections: Mapping[Phrase, Correction]
    longest_correction: int
    context_before: frozenset[str]
    context_after: frozenset[str]
    qualifiers: frozenset[str]
    pronouns: tuple[Phrase, ...]  # longest first
    groups: Mapping[Phrase, str]  # group words -> catalog category
    generic_words: frozenset[str]
    units: frozenset[str]
    non_product_words: frozenset[str]

    def group_words(self, category: str) -> tuple[str, ...]:
        """The words that name ``category`` (for prompts and tests)."""
        return tuple(" ".join(words) for words, cat in self.groups.items() if cat == category)



def _schema() -> dict[str, Any]:
    from packs.validate import pack_schema

    schema: dict[str, Any] = pack_schema()["$defs"]["lexicon"]
    return schema


def words_of(phrase: str) -> Phrase:
    """A phrase as the lower-case words the normaliser compares ("Tur  Dal" -> ("tur", "dal"))."""
    return tuple(phrase.lower().split())


def _longest_first(phrases: Iterable[str]) -> tuple[Phrase, ...]:
    unique = {words_of(p) for p in phrases if p.strip()}
    return tuple(sorted(unique, key=lambda w: (-len(w), w)))


def _contains(haystack: Phrase, needle: Phrase) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def _corrections(raw: dict[str, Any], where: str) -> dict[Phrase, Correction]:
    """Flatten the mishearing and local-name lists into one lookup; refuse what would loop or clash."""
    table: dict[Phrase, Correction] = {}
    for key, kind in (("mishearings", "mishearing"), ("local_names", "local name")):
        for i, rule in enumerate(raw[key]):
            for heard in rule["from"]:
                source = words_of(heard)
                fix = Correction(source, " ".join(words_of(rule["to"])), kind, rule.get("product_position", False))
                other = table.get(source)
                if other is not None and other.target != fix.target:
                    raise LexiconError(
                        f"{where}: {key}[{i}] maps {heard!r} to {rule['to']!r}, but it already maps to {other.target!r}."
                    )
                table[source] = fix
    # A target must never be heard again as a source, or a second pass would change it again.
    targets = {words_of(c.target) for c in table.values()}
    for source in table:
        for target in targets:
            if _contains(target, source):
                raise LexiconError(
                    f"{where}: {' '.join(source)!r} is both heard (a source) and part of the catalog words "
                    f"{' '.join(target)!r}; remove it from the 'from' lists."
                )
    return table


def lexicon_build(raw: dict[str, Any], where: str) -> Lexicon:
    """The lexicon of a pack's ``lexicon`` part (already shaped by the schema).

    Raises:
        LexiconError: a heard form maps to two targets, or a target would be heard again.
    """
    corrections = _corrections(raw, where)
    context = raw["product_context"]
    groups: dict[Phrase, str] = {}
    for category, names in raw["groups"].items():
        for name in names:
            groups[words_of(name)] = category
    return Lexicon(
        slug=raw["business_type"],
        version=raw["version"],
        wake_words=_longest_first(raw["wake_words"]),
        fillers=frozenset(w.lower() for w in raw["fillers"]),
        soft_fillers=_longest_first(raw["soft_fillers"]),
        corrections=MappingProxyType(corrections),
        longest_correction=max((len(s) for s in corrections), default=0),
        context_before=frozenset(w.lower() for w in context["before"]),
        context_after=frozenset(w.lower() for w in context["after"]),
        qualifiers=frozenset(w.lower() for w in context.get("always_after", ())),
        pronouns=_longest_first(raw["pronouns"]),
        groups=MappingProxyType(groups),
        generic_words=frozenset(w.lower() for w in raw["generic_words"]),
        units=frozenset(w.lower() for w in raw["units"]),
        non_product_words=frozenset(w.lower() for w in raw["non_product_words"]),
    )


def lexicon_load(path: Path) -> Lexicon:
    """Load and validate one lexicon pack file.

    Raises:
        LexiconError: the file is missing, is not JSON, or does not have the pack's shape.
    """
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise LexiconError(f"No lexicon pack at {path}.") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LexiconError(f"Lexicon pack {path} is not readable JSON: {exc}") from exc
    try:
        jsonschema.validate(raw, _schema())
    except jsonschema.ValidationError as exc:
        field = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise LexiconError(f"Lexicon pack {path} is malformed at {field}: {exc.message}") from exc
    return lexicon_build(raw, str(path))


@lru_cache(maxsize=32)
def lexicon_for(pack_key: str) -> Lexicon:
    """The lexicon of a pack (``"grocery"``, the bundled folder, or a store's ``store_pack_key``), loaded once.

    Raises:
        LexiconError: no pack has this key, or its lexicon is missing or malformed.
    """
    from packs.source import UnknownPack, key_slug, pack_files

    try:
        files = pack_files(pack_key)
    except UnknownPack as exc:
        raise LexiconError(f"Business type {pack_key!r} has no lexicon pack: {exc}") from exc
    name = files.role("lexicon")
    if name is None:
        raise LexiconError(f"The pack {files.origin} has no lexicon.json.")
    where = f"{files.origin}/{name}"
    try:
        raw = json.loads(files.files[name]) if name.endswith(".json") else yaml.safe_load(files.files[name])
    except (ValueError, yaml.YAMLError) as exc:
        raise LexiconError(f"Lexicon pack {where} is not readable: {exc}") from exc
    try:
        jsonschema.validate(raw, _schema())
    except jsonschema.ValidationError as exc:
        field = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise LexiconError(f"Lexicon pack {where} is malformed at {field}: {exc.message}") from exc
    lexicon = lexicon_build(raw, where)
    if lexicon.slug != key_slug(pack_key):
        raise LexiconError(f"Lexicon pack {where} says it is for {lexicon.slug!r}, not {key_slug(pack_key)!r}.")
    return lexicon
