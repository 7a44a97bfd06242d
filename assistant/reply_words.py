"""Which words a model-written reply may say besides its numbers: names, units, and nothing added.

Code owns every fact spoken back; ``assistant.reply_numbers`` checks the numbers and which product
each belongs to. A reply may also name only the products that the turn's results or the owner's
words name, say only the units they give ("15 kg blocks" when the result says "block" moves a fact),
and add no description of its own ("a popular choice for desserts"): each of its content words must
come from the results (values, and the words of their keys: ``unitsSold`` gives "units" and "sold"),
the owner's words, the catalog's names, or the plain words that replies are made of (the router's
own sentences, ``assistant.sentences``, and ``PLAIN_WORDS``). Used by the hardened native mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ledger.matching import singular

_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Units a product is counted or sold in. A reply may say one only when a result or the owner does.
UNITS = frozenset({
    "kg", "kilo", "kilogram", "gram", "gm", "lb", "pound", "oz", "ounce", "litre", "liter", "ml", "millilitre",
    "milliliter", "bag", "bottle", "pack", "packet", "box", "jar", "block", "tin", "dozen", "piece", "tub",
    "tray", "bunch", "carton", "sack", "pouch", "crate", "loaf", "tube", "sachet", "bucket",
})
# Words a plain answer about the store is made of, beyond the router's sentences: function words,
# the verbs and nouns of stock, sales and orders, and number words (the numbers are checked apart).
PLAIN_WORDS = frozenset("""
a about above across after again all along already also although am among an and another any anything are
around as at away back be because been before being below between both but by can cannot could did do does
doing done down during each either else enough even ever every for from further get gets getting give given
go going good got had has have having he her here hers him his how however i if in into is it its itself just
keep kept last least less let like little lot lots made make many may me might mine more most much must my
near need needs neither next no none nor not nothing now of off on once one only onto or other others our ours
out over own per please quite rather really right same see she should since so some something still such sure
than thank thanks that the their theirs them then there these they this those though through to too under
until up upon us very want was way we well were what whatever when where whether which while who whom whose
why will with within without would yes yet you your yours okay ok alright hi hello currently right now today
tonight tomorrow yesterday week weekend month year day morning evening time times total totals overall around
roughly about approximately exactly just over under nearly almost each apiece
don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn ll re ve s t d m
stock stocked stocks left remaining remain remains available unavailable carry carries carried sell sells
selling sold sale sales buy bought order orders ordered ordering reorder reordered reordering restock
restocked restocking draft drafted drafting approve approved approval confirm confirmed confirmation place
placed placing supplier suppliers price priced prices cost costs costing each unit units item items product
products quantity quantities count counted counts number numbers amount amounts figure figures
shelf shelves aisle aisles rack section top bottom middle left right front back side corner near next cooler
fridge freezer counter storeroom store shop located location find found kept keep spot
revenue earned earning earnings made takings receipt receipts transaction transactions customer customers
basket spend spent average best worst top seller sellers selling category categories compared comparison
compare versus than higher lower more fewer less up down increase decreased increased decrease change changed
changes update updated updating set fixed fix corrected record recorded ledger book books
low running short out sold reorder point par level levels below above at under over enough need needs
report reports sent send sending email emailed inbox guide guides playing play played video demo film tip tips
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
dollar dollars cent cents usd rupee rupees percent suggest suggested great glad happy help sorry
""".split())


@dataclass(frozen=True)
class Beyond:
    """What a reply says that the turn's results and the owner's words do not: the kind and the words."""

    kind: str  # "names", "units" or "words"; empty when nothing
    said: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.said)


_PLAIN = frozenset(singular(word) for word in PLAIN_WORDS)


def _words(text: str) -> set[str]:
    return {singular(word) for word in _WORD.findall(text.lower())}


def _result_words(results: Iterable[Any]) -> set[str]:
    """The words of every value and of every key of the results (``unitsSold``: units, sold)."""
    words: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                words.update(_words(_CAMEL.sub(" ", str(key))))
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
        elif value is not None:
            words.update(_words(json.dumps(value, ensure_ascii=False, default=str)))

    for data in results:
        walk(data)
    return words


@cache
def _sentence_words() -> frozenset[str]:
    """The words of the router's sentences (their ``{fields}`` left out)."""
    from assistant import sentences

    texts = [value for name, value in vars(sentences).items() if name.isupper() and isinstance(value, str)]
    return frozenset(_words(re.sub(r"\{[^}]*\}", " ", " ".join(texts))))


def said_beyond(reply: str, *, results: Sequence[Any], owner_text: str,
                catalog: Iterable[tuple[str, Sequence[str]]]) -> Beyond:
    """The first kind of thing ``reply`` says beyond the results and the owner's words, with the words.

    ``catalog`` is the store's products as (name, local names). Checked in order: a product of the
    catalog the reply names but neither the results nor the owner's words do; a unit neither gives;
    any other word that none of the sources hold (an embellishment).
    """
    known = _result_words(results) | _words(owner_text)
    lowered, blob = f" {' '.join(_WORD.findall(reply.lower()))} ", json.dumps(list(results), ensure_ascii=False).lower()
    owner = f" {' '.join(_WORD.findall(owner_text.lower()))} "
    names: list[str] = []
    catalog_words: set[str] = set()
    for name, aliases in catalog:
        spoken = [" ".join(_WORD.findall(text.lower())) for text in (name, *aliases)]
        catalog_words |= _words(" ".join(spoken))
        if any(f" {text} " in lowered for text in spoken if text) and name.lower() not in blob \
                and not any(f" {text} " in owner for text in spoken if text):
            names.append(name)
    if names:
        return Beyond("names", tuple(names))
    said = _words(reply)
    units = sorted(word for word in said & UNITS if word not in known)
    if units:
        return Beyond("units", tuple(units))
    allowed = known | catalog_words | _PLAIN | _sentence_words()
    extra = sorted(word for word in said if len(word) > 2 and word not in allowed)
    return Beyond("words", tuple(extra)) if extra else Beyond("")
