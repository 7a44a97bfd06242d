"""Phrases the store's owner taught the fast path: the matcher learns from the store (issue 18).

In the assistant's history an owner can teach a turn: "words like these mean this action". The
words are kept as the embedding head reads them (``training.head_text``: normalised, the grounded
product words masked), with the router action the owner chose, for that store only. The matcher
then answers a request whose masked words are at least ``SIMILARITY`` alike (cosine of the
matcher's MiniLM embeddings) to a taught phrase with that phrase's action, before its templates
and its head, provided the words fit the action (``core.fit``) and the router's code-side
corrections keep it (``core.stable``): the checks every matcher answer passes. Nothing is taken
on trust: the product, the numbers and the write still come from grounding, the arguments layer
and the gateway, exactly as when the model decides. A phrase that could never pass those checks is
refused when it is taught, with the reason.

``SIMILARITY`` was chosen on the two development sets (``manage.py matcher_eval --taught``):
teaching one set's sentences with their gold actions and scoring the other, both ways, it is the
lowest cosine (in steps of 0.01) at which every taught answer was the right action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from assistant.modes.router.actions import Decision
from shelfwise.versioned import VersionedCache

if TYPE_CHECKING:
    from assistant.grounding import Grounding
    from assistant.matcher.core import Match, Request
    from assistant.models import TaughtPhrase
    from tenants.models import Store

SIMILARITY = 0.84
_CACHED_STORES = 256


class TeachRefused(Exception):
    """A phrase the fast path cannot learn; ``message`` says why, in the owner's words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TurnNotFound(TeachRefused):
    """The turn to teach is not one of this store's."""


@dataclass(frozen=True)
class TaughtSet:
    """One store's taught phrases: masked texts, their actions and unit embeddings (one row each)."""

    texts: tuple[str, ...]
    actions: tuple[str, ...]
    vectors: np.ndarray

    def nearest(self, vector: np.ndarray) -> tuple[int, float] | None:
        """The most similar taught phrase to ``vector`` (a unit embedding) and its cosine, or None."""
        if not self.texts:
            return None
        similarities = self.vectors @ vector
        best = int(np.argmax(similarities))
        return best, float(similarities[best])


def taught_set(pairs: Sequence[tuple[str, str]]) -> TaughtSet:
    """A ``TaughtSet`` of (masked text, action) pairs, embedded with the matcher's encoder."""
    from assistant.guard.encoders import embed

    texts = tuple(text for text, _ in pairs)
    return TaughtSet(texts=texts, actions=tuple(action for _, action in pairs),
                     vectors=np.asarray(embed(list(texts)), dtype=np.float32))


_sets: VersionedCache[TaughtSet] = VersionedCache(_CACHED_STORES)


def taught_for(store_id: int) -> TaughtSet | None:
    """The store's taught phrases (None when it has none); re-embedded only when they changed.

    A phrase is never edited in place (teaching the same words again replaces the row), so the
    count and the highest id together change whenever the set does.
    """
    from django.db.models import Count, Max

    from assistant.models import TaughtPhrase

    stamp = TaughtPhrase.objects.filter(store_id=store_id).aggregate(n=Count("id"), last=Max("id"))
    if not stamp["n"]:
        return None
    return _sets.get(store_id, (int(stamp["n"]), int(stamp["last"])), lambda: taught_set(
        list(TaughtPhrase.objects.filter(store_id=store_id).order_by("id").values_list("text", "action"))))


def taught_match(request: Request, *, taught: TaughtSet, vector: np.ndarray, grounding: Grounding,
                 similarity: float = SIMILARITY) -> Match | None:
    """The action of the taught phrase nearest the request, when alike enough and the words fit it."""
    from assistant.matcher.core import Match, fit
    from assistant.modes.router.prompt import router_pack

    hit = taught.nearest(vector)
    if hit is None or hit[1] < similarity:
        return None
    action = taught.actions[hit[0]]
    if action not in router_pack(request.business_type).action_names:  # the pack has changed since
        return None
    how = fit(action, request.words, grounding)
    if how is None:
        return None
    return Match(decision=Decision(action=action), confidence=hit[1], source="taught", weak=how == "weak")


def teach(*, store: Store, turn_id: int, action: str, actor: str) -> TaughtPhrase:
    """Teach the store's fast path that the words of turn ``turn_id`` mean ``action``.

    Raises ``TeachRefused`` (nothing stored) for a turn this store does not have, an action its
    business type does not know, or words the matcher could never answer as that action.
    """
    from django.db import transaction

    from assistant.catalogs import catalog_for
    from assistant.grounding import ground
    from assistant.lexicon import lexicon_for
    from assistant.matcher.core import Match, Request, fit, stable
    from assistant.matcher.training import head_text
    from assistant.models import TaughtPhrase
    from assistant.modes.router.prompt import router_pack
    from assistant.normalize import normalize
    from audit.models import Turn
    from packs.source import store_pack_key

    turn = Turn.objects.filter(store=store, pk=turn_id).first()
    if turn is None:
        raise TurnNotFound("That turn was not found in this store.")
    key = store_pack_key(store)
    pack = router_pack(key)
    if action not in pack.action_names:
        raise TeachRefused("Choose one of this store's actions.")
    lexicon = lexicon_for(key)
    catalog = catalog_for(store=store, lexicon=lexicon)
    words = normalize(turn.text, lexicon)
    grounding = ground(words.text, catalog=catalog, lexicon=lexicon)
    text = head_text(words.text, grounding)[:500]
    if not text.strip():
        raise TeachRefused("That turn has no words to learn from.")
    if fit(action, words, grounding) is None:
        raise TeachRefused(f"These words cannot mean “{action}” on their own: a product question or an order names "
                           "a product, a count change one product and one number, and other actions no product.")
    request = Request(business_type=key, words=words, catalog=catalog, lexicon=lexicon)
    if not stable(request, Match(decision=Decision(action=action), confidence=1.0, source="taught")):
        raise TeachRefused(f"The assistant's own rules read these words as another action than “{action}”.")
    with transaction.atomic():
        TaughtPhrase.objects.filter(store=store, text=text).delete()
        return TaughtPhrase.objects.create(store=store, said=turn.text[:500], text=text, action=action,
                                           source_turn=turn.pk, taught_by=actor)


def forget(*, store: Store, phrase_id: int) -> bool:
    """Remove one of the store's taught phrases; False when the store has no such phrase."""
    from assistant.models import TaughtPhrase

    deleted, _ = TaughtPhrase.objects.filter(store=store, pk=phrase_id).delete()
    return bool(deleted)
