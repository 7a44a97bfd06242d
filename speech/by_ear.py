"""The hearing's product and number decisions, settled by listening again (``speech.ear``).

Spelling alone proposes: every run of words that is not plain store talk is compared by sound with
the catalog's names and aliases, and the closest few are put back into the sentence in its place.
The ear then scores the heard sentence and each of those wordings against the audio. A catalog
wording that fits nearly as well as the words heard is read as said (the words of a shop are rare
words to Whisper, so a product may trail the heard words a little and still be what was said); one
that trails further is asked about; beyond that the words stay as heard. A product the beam named
is only changed for another one the audio clearly prefers. A count that Whisper may have confused
with its teen/ty partner ("17" / "70") is asked about only when the audio does not clearly prefer
the number heard.

Margins are in nats (total log-probability of the wording) and were chosen on the spoken set's
development part by ``python -m lab.speech.ear_sweep`` (README, "Speech"). The catalog's pull is
strong (a product may trail the heard words by 4.5 nats): Whisper's own language model sets rare
shop words below common English ones ("otta" against "otter"). It was 7.5 with tiny.en's own
decoder; the adapted one (``SHELFWISE_STT_DECODER``) knows the shop's words, and at 7.5 it read
"any thing we're low on" as hing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from speech.hearing import Choice

PRODUCTS_PER_SPAN = 6  # the catalog's closest sound-alike products the ear is asked about, per span
FORMS_PER_PRODUCT = 3  # ... each in its closest spoken forms ("gud", "gur", "jaggery")
TAKE = 4.5  # a catalog wording trailing the heard words by at most this is read as said
ASK = 9.5  # trailing by at most this, it is asked about
ASK_UNKNOWN = 17.5  # ... or by this much, in place of words that name no product the store carries
ASK_SPELLING = 0.45  # ... and only about a product whose name is spelt at least this much alike
SWITCH = 5.0  # another product must beat the one the beam named by this much
MAX_WORDINGS = 18  # the ear is asked about this many catalog wordings per utterance at most, closest spelt first
NUMBER_SURE = 2.0  # the heard number must beat its teen/ty partner by this much to go unasked
# An order is the one request whose verb the ear may restore: it only drafts (nothing is placed without
# the owner's approval), where a misheard "set" or "change" would write a count.
ORDER_VERBS = ("order", "reorder", "restock")
ORDER_SPELLING = 0.5  # the words heard where the verb is said must be spelt at least this much like it
ORDER_TAKE = 3.0  # ... and the verb may trail them by at most this much
_LEAD = frozenset("actually just ok okay so and alright right please um uh hey now then well".split())
_VERB_FORMS = frozenset(
    f"{verb}{ending}" for verb in ORDER_VERBS for ending in ("", "s", "ed", "ing")
) | frozenset("where what how is are do does did can could have has who which why when".split())


def _bare(word: str) -> str:
    """The word as the plain-word list spells it ("What's" → "whats")."""
    return word.strip(".,!?;:'\"").lower().replace("'", "").replace("\u2019", "")


def spans(text: str, plain: frozenset[str], longest: int) -> list[tuple[int, int]]:
    """``(start, end)`` word indices of runs (up to ``longest`` words) that are not plain words or numbers."""
    words = [_bare(w) for w in text.split()]
    found = []
    for i in range(len(words)):
        for j in range(i + 1, min(i + longest, len(words)) + 1):
            if any(not w or w in plain or any(ch.isdigit() for ch in w) for w in words[i:j]):
                break
            found.append((i, j))
    return found


def replaced(text: str, start: int, end: int, term: str) -> str:
    """``text`` with words ``start:end`` replaced by ``term``, keeping the sentence's last punctuation."""
    words = text.split()
    last = words[end - 1]
    tail = last[len(last.rstrip(".,!?;:")) :]
    return " ".join([*words[:start], term + tail, *words[end:]])


def decide_product(hearing, text: str, ear) -> Choice:
    """``text`` with its product words as the audio supports them (see the module rules)."""
    from assistant.grounding import ground
    from speech.hearing import Choice as Heard

    grounding = ground(text, catalog=hearing.catalog, lexicon=hearing.lexicon)
    named, unknown = grounding.product, grounding.unknown
    words = text.split()
    candidates: list[tuple[str, str, str, str, float, int, int]] = []  # (wording, heard words, term, product, spelling, span)
    for start, end in spans(text, hearing.plain, hearing.longest):
        heard = " ".join(_bare(w) for w in words[start:end])
        if named is not None and not _names(hearing, heard, named.name):
            continue  # a product was named: only its own words are heard again
        for term, product, spelling in hearing.sounds_alike(heard, PRODUCTS_PER_SPAN, FORMS_PER_PRODUCT):
            if term != heard:
                candidates.append((replaced(text, start, end, term), heard, term, product, spelling, start, end))
    if not candidates:
        return Heard(text=text)
    # Each wording costs the ear a decoder pass over the sentence (about 6 ms here): the closest spelt
    # ones only. On dev, 18 of a mean 37 lost nothing (206 right, 53 wrong against 205 and 55).
    candidates = sorted(candidates, key=lambda c: -c[4])[:MAX_WORDINGS]
    scores = ear([text, *(c[0] for c in candidates)])
    base = scores[0]
    top, gain = max(zip(candidates, scores[1:], strict=True), key=lambda pair: pair[1])
    wording, heard, term, product, spelling, start, end = top
    wording = _as_named(hearing, text, wording, start, end, product)
    trail = base - gain
    correction = {"heard": heard, "product": product, "score": round(-trail, 2)}
    if named is not None:
        if product == named.name or trail > -SWITCH:
            return Heard(text=text)
        return Heard(text=text, corrections=[correction],
                     doubt={"kind": "product", "question": f"Did you mean {product.lower()}?", "text": wording})
    if trail <= TAKE:
        return Heard(text=wording, corrections=[correction])
    if trail <= (ASK_UNKNOWN if unknown and heard in unknown else ASK) and spelling >= ASK_SPELLING:
        return Heard(text=text, corrections=[correction],
                     doubt={"kind": "product", "question": f"Did you mean {product.lower()}?", "text": wording})
    return Heard(text=text)


def decide_order(text: str, ear) -> str:
    """``text`` with its leading words read as an order verb where they are spelt like one and the
    audio supports it ("Or under 15 packs of elaichi." → "Order 15 packs of elaichi.", "Actually,
    just rewordered the toor dal." → "... reorder the toor dal.")."""
    from speech.hearing import similarity

    words = text.split()
    start = 0
    while start < len(words) and _bare(words[start]) in _LEAD:
        start += 1
    if start >= len(words) or _bare(words[start]) in _VERB_FORMS:
        return text
    wordings = []
    for end in range(start + 1, min(start + 2, len(words)) + 1):
        heard = " ".join(_bare(w) for w in words[start:end])
        if any(ch.isdigit() for ch in heard):
            break
        for verb in ORDER_VERBS:
            if similarity(heard, verb) >= ORDER_SPELLING:
                said = verb.capitalize() if start == 0 else verb
                wordings.append(" ".join([*words[:start], said, *words[end:]]))
    if not wordings:
        return text
    base, *scores = ear([text, *wordings])
    best, score = max(zip(wordings, scores, strict=True), key=lambda pair: pair[1])
    return best if base - score <= ORDER_TAKE else text


def _as_named(hearing, text: str, wording: str, start: int, end: int, product: str) -> str:
    """``wording``, or ``text`` with the product's catalog name in the span where the spoken form the
    ear heard would not read as that product there ("the real count on bison": the lexicon reads
    "bison" as besan only where a product is said, and "on" is not such a place)."""
    from assistant.grounding import ground

    found = ground(wording, catalog=hearing.catalog, lexicon=hearing.lexicon)
    if found.product is not None and found.product.name == product and not found.ambiguous:
        return wording
    return replaced(text, start, end, product)


def _names(hearing, words: str, product: str) -> bool:
    from assistant.grounding import ground

    found = ground(words, catalog=hearing.catalog, lexicon=hearing.lexicon).product
    return found is not None and found.name == product


def number_settled(text: str, said: int, other: int, ear) -> bool:
    """Whether the audio clearly prefers ``said`` over ``other`` where ``text`` writes it as digits."""
    pattern = re.compile(rf"(?<![\d.,]){said}(?![\d])")
    if not pattern.search(text):
        return False  # written in words or not at all: the question stays
    heard, partner = ear([text, pattern.sub(str(other), text, count=1)])
    return heard - partner >= NUMBER_SURE
