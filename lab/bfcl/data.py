"""BFCL v4's single-turn, non-web categories, read from the ``bfcl-eval`` package's data files."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import resources
from typing import Any

# (category, how it is scored): "ast" by BFCL's AST checker against possible answers,
# "irrelevance" passes when no call is made, "relevance" when at least one is.
CATEGORIES: dict[str, str] = {
    "simple_python": "ast", "multiple": "ast", "parallel": "ast", "parallel_multiple": "ast",
    "live_simple": "ast", "live_multiple": "ast", "live_parallel": "ast", "live_parallel_multiple": "ast",
    "irrelevance": "irrelevance", "live_irrelevance": "irrelevance", "live_relevance": "relevance",
}


# The dev slice: the first entries of each category, which the harness was looked at and changed on.
# A scored sample (``sample``) never includes them.
DEV_SLICE = 5


class BfclDataError(Exception):
    """The package or a category's file is missing; the message says what to install or choose."""


@dataclass(frozen=True)
class Entry:
    id: str
    category: str
    messages: tuple[dict[str, str], ...]  # the one turn: BFCL's messages (a system message in some live entries)
    functions: tuple[dict[str, Any], ...]
    answer: tuple[dict[str, Any], ...] | None  # possible answers (ast categories)

    @property
    def scoring(self) -> str:
        return CATEGORIES[self.category]


def _lines(name: str) -> list[dict[str, Any]]:
    try:
        root = resources.files("bfcl_eval") / "data"
    except ModuleNotFoundError:
        raise BfclDataError("bfcl-eval is not installed: pip install --no-deps -r requirements-nodeps.txt") from None
    path = root.joinpath(*name.split("/"))
    if not path.is_file():
        raise BfclDataError(f"bfcl-eval has no data file {name}.")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def entries(category: str, *, limit: int | None = None) -> list[Entry]:
    """The category's entries in the package's order (the first ``limit``), with their possible answers.

    Raises:
        BfclDataError: an unknown category, or the package is missing.
    """
    if category not in CATEGORIES:
        raise BfclDataError(f"Unknown category {category!r}; the categories are: {', '.join(CATEGORIES)}.")
    rows = _lines(f"BFCL_v4_{category}.json")[:limit]
    answers: dict[str, Any] = {}
    if CATEGORIES[category] == "ast":
        answers = {row["id"]: row["ground_truth"] for row in _lines(f"possible_answer/BFCL_v4_{category}.json")}
    return [
        Entry(id=row["id"], category=category, messages=tuple(row["question"][0]), functions=tuple(row["function"]),
              answer=tuple(answers[row["id"]]) if row["id"] in answers else None)
        for row in rows
    ]


def sample(category: str, size: int, *, seed: int, skip: int = 0) -> list[Entry]:
    """The first ``size`` entries of a seeded random draw of the category, never from the dev slice,
    less the first ``skip`` of them (entries already looked at).

    The draw is a seeded shuffle, so a larger ``size`` keeps the smaller one's entries first: a run
    can grow piece by piece and stay one sample.

    Raises:
        BfclDataError: an unknown category, or the package is missing.
    """
    rest = entries(category)[DEV_SLICE:]
    random.Random(f"bfcl/{seed}/{category}").shuffle(rest)
    return rest[skip:size]
