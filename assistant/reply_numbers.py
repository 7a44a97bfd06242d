"""Which numbers a model-written reply may say: code owns every number spoken back.

Each number must come from the owner's words or from one of the turn's tool results, and a number
said next to a product must be one of that product's own (its count, par, reorder point, price,
cost, quantity), not another product's from the same list: "3 samosas" when the result gives the
samosas 2 and the paneer 3 is as wrong as a number no result gave. Used by the hardened native mode
and the small model's runtime; the router's replies are written by code and need no check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from assistant.numbers import amounts_in
from ledger.matching import singular

# A reply's clauses: a number and a product in one clause are said of each other.
_CLAUSE = re.compile(r"[;!?,()]|\.(?!\d)|\b(?:and|but|while|whereas|plus)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


def numbers_in(text: str) -> set[str]:
    """The numbers ``text`` says, in digits or words, one way each ("1,200" = "1200", "8.50" = "8.5",
    "twenty-eight" = "28", "eight ninety-nine" = "8.99")."""
    return {str(number) for number in amounts_in(text)}


def _with_whole_parts(numbers: set[str]) -> set[str]:
    """Add each amount's whole part: "$401" for 401.50 is the same amount said round."""
    return numbers | {number.split(".")[0] for number in numbers}


def _numbers_of(value: Any) -> set[str]:
    return _with_whole_parts(numbers_in(json.dumps(value, ensure_ascii=False, default=str)))


def unsupported_numbers(reply: str, results: Iterable[Any], owner_numbers: Iterable[int]) -> list[str]:
    """Numbers in ``reply`` that appear in none of ``results`` and not in the owner's words."""
    known = {str(number) for number in owner_numbers}
    for data in results:
        known |= _numbers_of(data)
    return sorted(number for number in numbers_in(reply) if number not in known)


def _name(record: dict[str, Any]) -> str | None:
    name = record.get("name") or record.get("item")
    return name if isinstance(name, str) and name.strip() else None


def _records(value: Any) -> Iterator[dict[str, Any]]:
    """Every product record in a tool result: a dict with a ``name`` or ``item`` (its nested values are its own)."""
    if isinstance(value, dict):
        if _name(value):
            yield value
            return
        for inner in value.values():
            yield from _records(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _records(inner)


def _facts(record: dict[str, Any]) -> dict[str, Any]:
    """A record without the values that are not facts one could say of it (ids, links, timestamps)."""
    return {key: value for key, value in record.items()
            if key not in ("id", "draftId") and not key.lower().endswith(("url", "at"))}


def _turn_level(value: Any) -> set[str]:
    """The numbers of a result outside its product records (totals, receipts, counts of items, dates)."""
    if isinstance(value, dict):
        if _name(value):
            return set()
        return set().union(*(_turn_level(inner) for inner in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_turn_level(inner) for inner in value)) if value else set()
    return _numbers_of(value) if value is not None else set()


def _words(text: str) -> set[str]:
    return {singular(word) for word in _WORD.findall(text.lower())}


def misattributed_numbers(reply: str, results: Iterable[Any], owner_numbers: Iterable[int]) -> list[tuple[str, str]]:
    """(product, number) for each number said in a clause about one product that is another product's.

    A clause is about a product when it holds a word of that product's name that no other product
    in the results shares ("samosas" for Frozen samosas; not "dal" when Toor dal and Chana dal are
    both listed). A number is flagged only when it is not that product's, not the owner's, not a
    total of the result, and is some other listed product's: the reply swapped two products' facts.
    """
    owner = {str(number) for number in owner_numbers}
    products: dict[str, set[str]] = {}
    display: dict[str, str] = {}
    turn_level: set[str] = set()
    for data in results:
        turn_level |= _turn_level(data)
        for record in _records(data):
            key = _name(record).strip().lower()
            display.setdefault(key, _name(record).strip())
            products.setdefault(key, set()).update(_numbers_of(_facts(record)))
    if len(products) < 2:
        return []
    name_words = {key: _words(key) for key in products}
    distinctive = {key: {word for word in words if len(word) > 2
                         and not any(word in other for other_key, other in name_words.items() if other_key != key)}
                   for key, words in name_words.items()}
    found: list[tuple[str, str]] = []
    for clause in _CLAUSE.split(reply):
        words = _words(clause)
        about = [key for key, marks in distinctive.items() if marks & words]
        if len(about) != 1:
            continue
        own = products[about[0]]
        for number in sorted(numbers_in(clause)):
            if number in own or number in owner or number in turn_level:
                continue
            if any(number in others for key, others in products.items() if key != about[0]):
                found.append((display[about[0]], number))
    return found
