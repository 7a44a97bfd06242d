"""The pack's sentence templates (its ``matcher.yaml``), compiled with hassil.

Home Assistant's template language: a template matches a request only when it covers all of
its words, so a match is a strong statement about the sentence's frame; the product words in
``{item}`` are checked by grounding afterwards (``assistant.matcher.core``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class MatcherPack:
    """A business type's matcher data: compiled templates and where its development set is."""

    business_type: str
    intents: Any  # hassil.Intents
    development_set: str | None  # the development set's JSON text (a file of the pack), if it names one
    threshold: float = 1.01  # the embedding head's answers need at least this probability (above 1: never)
    weak_threshold: float = 0.0  # the same where grounding is weak (``core.fit``); ``threshold`` when lower
    agreement: float = 0.0  # a template's action needs at least this probability from the head
    lead_words: tuple[str, ...] = ()  # words that only start a sentence ("okay", "actually just")


@dataclass(frozen=True)
class TemplateHit:
    """One way a template covers the words: the intent and its slot values (text or number)."""

    intent: str
    slots: dict[str, Any]


@lru_cache(maxsize=16)
def matcher_pack(business_type: str) -> MatcherPack | None:
    """The pack's compiled templates (``business_type`` is a pack key); None when it has no matcher file.

    Raises:
        ImproperlyConfigured: the file exists but is not valid YAML or not valid templates.
    """
    from hassil import Intents

    from packs.source import UnknownPack, pack_files

    try:
        files = pack_files(business_type)
    except UnknownPack:
        return None
    name = files.role("matcher")
    if name is None:
        return None
    try:
        data = yaml.safe_load(files.files[name])
        dev = data.get("development_set")
        return MatcherPack(
            business_type=business_type,
            intents=Intents.from_dict(data),
            development_set=files.files[dev] if dev else None,
            threshold=float(data.get("threshold", 1.01)),
            weak_threshold=float(data.get("weak_threshold", 0.0)),
            agreement=float(data.get("agreement", 0.0)),
            lead_words=tuple(str(word) for word in data.get("lead_words") or ()),
        )
    except Exception as exc:  # YAML, hassil, value and missing-file errors all mean the same here: fix the file
        raise ImproperlyConfigured(f"The matcher templates {files.origin}/{name} are malformed: {exc!r}.") from exc


def template_hits(pack: MatcherPack, text: str) -> Iterator[TemplateHit]:
    """Every way the templates cover ``text`` whole (its lead words dropped), in hassil's order."""
    from hassil import recognize_all

    words = text.split()
    while words and words[0].strip(",") in pack.lead_words:
        words.pop(0)
    if not words:
        return
    for result in recognize_all(" ".join(words), pack.intents):
        slots: dict[str, Any] = {}
        for name, entity in result.entities.items():
            value = entity.value
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            slots[name] = value.strip() if isinstance(value, str) else value
        yield TemplateHit(intent=result.intent.name, slots=slots)
