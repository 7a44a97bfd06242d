"""The small model's compact one-line protocol (seed 000, section 3.3).

A conversation is plain text, one line per event, each line starting with a tag:

    ### Catalog: Atta; Basmati rice; Chana dal; Turmeric powder
    ### Owner: where did we keep the haldi
    ### Call: get_inventory {"item": "haldi"}
    ### Result: Turmeric powder: stock 12, price $3.49, aisle 1, shelf B
    ### Answer: Turmeric powder is in aisle 1, shelf B.

- ``Catalog``: once, first: a shortlist of the store's product names (at most ``CATALOG_LIMIT``,
  chosen by code for this request: the grounded matches, the last product, then others), so
  the prompt stays short and the model names products the store has.
- Earlier turns (zero, one or two) come as ``Owner`` / [``Call`` / ``Result``]* / ``Answer``
  groups before the current ``Owner`` line.
- ``Call``: a tool name, one space, its arguments as compact JSON on the same line. Tools are
  the MCP tools and the client tools (``assistant.modes.client_tools``). Item arguments carry
  the owner's words or a catalog name; code grounds them.
- ``Result``: one line summarising the tool's result (``result_line``), written by code.
- ``Answer``: the spoken reply; the turn ends there. At most ``MAX_STEPS`` calls per turn.

The model is trained to write ``Call`` and ``Answer`` lines (the loss covers only those); the
runtime writes every other line. Training examples and the runtime both render through this
module, so they cannot drift apart.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

CATALOG = "### Catalog: "
OWNER = "### Owner: "
CALL = "### Call: "
RESULT = "### Result: "
ANSWER = "### Answer: "
TAGS = (CATALOG, OWNER, CALL, RESULT, ANSWER)
CATALOG_LIMIT = 8
MAX_STEPS = 6
RESULT_LIMIT = 300  # characters of a result line

_CALL = re.compile(r"^([a-z_]+)\s*(\{.*\})?\s*$")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]

    def line(self) -> str:
        return CALL + self.name + " " + json.dumps(self.arguments, separators=(", ", ": "), ensure_ascii=False)


def parse_call(text: str) -> Call | None:
    """The call in a ``Call`` line's text (after the tag), or None when it is not ``name {json object}``."""
    match = _CALL.match(text.strip())
    if not match:
        return None
    try:
        arguments = json.loads(match.group(2)) if match.group(2) else {}
    except ValueError:
        return None
    if not isinstance(arguments, dict):
        return None
    return Call(match.group(1), arguments)


def one_line(text: str, limit: int = RESULT_LIMIT) -> str:
    """``text`` on one line, cut at ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
