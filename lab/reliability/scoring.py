"""Seed 001's scorer: strict and recovered JSON validity, then the staged check of one call.

Recovery (the seed notebook's parser): remove Markdown code-fence markers, take the text from the
first ``{`` to the last ``}`` (greedy), ``json.loads`` it. Strict validity re-parses the whole
stripped response with neither step. A parsed object is then checked in order, and only the first
failure is recorded (the taxonomy is not multi-label; a later fault may hide behind an earlier one):

1. ``parse``: nothing recoverable, or the JSON is not an object;
2. ``tool``: the ``tool`` value is not the expected name;
3. ``missing_parameter``: ``parameters`` is absent, not an object, or lacks an expected key;
4. ``value``: a value differs (strings case-insensitively, numbers within relative tolerance 1e-3).

Extra parameter keys are recorded apart: the notebook's success ignores them, ``schema_exact``
also requires that there are none.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

STAGES = ("parse", "tool", "missing_parameter", "value")
REL_TOL = 1e-3
_FENCE = re.compile(r"```[A-Za-z0-9_-]*")


def strict_parse(text: str) -> Any:
    """The whole stripped response as JSON, or None when it is not valid JSON."""
    try:
        return json.loads(text.strip())
    except ValueError:
        return None


def recover(text: str) -> Any:
    """The recovered JSON value (fences removed, first ``{`` to last ``}``), or None when there is none."""
    unfenced = _FENCE.sub("", text)
    start, end = unfenced.find("{"), unfenced.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return json.loads(unfenced[start:end + 1])
    except ValueError:
        return None


def value_matches(expected: Any, actual: Any) -> bool:
    """Strings equal ignoring case; numbers within ``REL_TOL`` (a numeric string counts as its number)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float):
        if isinstance(actual, str):
            try:
                actual = float(actual.strip())
            except ValueError:
                return False
        if not isinstance(actual, int | float):
            return False
        return math.isclose(float(expected), float(actual), rel_tol=REL_TOL)
    if isinstance(expected, str):
        return isinstance(actual, str) and expected.lower() == actual.lower()
    return bool(expected == actual)


@dataclass(frozen=True)
class Outcome:
    """One response scored against its expected call."""

    strict_valid: bool
    recovered_valid: bool  # recovered JSON that is an object
    tool_correct: bool
    parameters_complete: bool
    success: bool  # the notebook's fully_correct: extra keys allowed
    schema_exact: bool  # success and no extra parameter keys
    first_failure: str | None  # one of STAGES, None on success
    extra_keys: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "extra_keys": list(self.extra_keys)}


def score(text: str, *, tool: str, parameters: dict[str, Any]) -> Outcome:
    """Score ``text`` against the expected ``tool`` and ``parameters``."""
    strict = strict_parse(text)
    strict_valid = isinstance(strict, dict)
    found = recover(text)
    if not isinstance(found, dict):
        return Outcome(strict_valid, False, False, False, False, False, "parse")
    if found.get("tool") != tool:
        return Outcome(strict_valid, True, False, False, False, False, "tool")
    given = found.get("parameters")
    if not isinstance(given, dict) or any(key not in given for key in parameters):
        return Outcome(strict_valid, True, True, False, False, False, "missing_parameter")
    extra = tuple(sorted(key for key in given if key not in parameters))
    if not all(value_matches(value, given[key]) for key, value in parameters.items()):
        return Outcome(strict_valid, True, True, True, False, False, "value", extra)
    return Outcome(strict_valid, True, True, True, True, not extra, None, extra)
