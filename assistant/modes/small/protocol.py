"""The small model's compact one-line protocol (seed 000, section 3.3).

A conversation is plain text, one line per event, each line starting with a tag:

    ### Catalog: Atta; Basmati rice; Chana dal; Turmeric powder
    ### Owner: where did we keep the haldi
    ### Call: get_inventory {"item": "haldi"}
    ### Result: Turmeric powder: stock 12, price $3.49, aisle 1, shelf B
    ### Answer: Turmeric powder is in aisle 1, shelf B.

- ``Catalog``: once, first: the catalog names the owner's words ground to, then the last
  product, then (``CATALOG_PADDED``, off since the 2026-12-06 adapter) other products up
  to ``CATALOG_LIMIT``. Code grounds every item itself, so unpadded the line only gives the model
  the spelling to copy and is left out when nothing was found (18% fewer tokens per sequence).
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
#: Whether the Catalog line is padded with other products up to ``CATALOG_LIMIT`` (what the adapter
#: shipped before 2026-12-06 was trained on) or names only what code found (``False``, what the
#: shipped adapter was trained on: 18% fewer tokens per training sequence). Data, training and the
#: runtime must agree, so change it only together with the adapter.
CATALOG_PADDED = False
GROUNDED_LIMIT = 5
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


# ---------------------------------------------------------------------------------------------
# Records and training steps (shared by the data generator, the trainer and the runtime)

#: What each tag is called in a record's ``lines`` (``{"tag": "Call", ...}``).
TAG_NAMES = {"Catalog": CATALOG, "Owner": OWNER, "Call": CALL, "Result": RESULT, "Answer": ANSWER}
#: Lines the model writes; every other line is written by code.
MODEL_TAGS = frozenset({"Call", "Answer"})
#: A prompt for the model's next line ends here; the model writes the tag word itself
#: ("Call: ..." or "Answer: ..."), so choosing between a call and an answer is learned too.
NEXT = "### "


def _tag_text(line: Any) -> tuple[str, str]:
    if isinstance(line, dict):
        return str(line["tag"]), str(line["text"])
    tag, text = line[0], line[1]
    return str(tag), str(text)


def render(lines: Any) -> str:
    """The protocol text of ``lines``: one ``### Tag: text`` line each, every line ending in a newline.

    ``lines`` are record lines (``{"tag": "Owner", "text": ...}``) or ``(tag, text)`` pairs; tags
    are the short names of ``TAG_NAMES``. Texts are flattened to one line.
    """
    out = []
    for line in lines:
        tag, text = _tag_text(line)
        out.append(TAG_NAMES[tag] + " ".join(text.split()) + "\n")
    return "".join(out)


def steps(record: Any, *, tag_in_prompt: bool = False) -> list[tuple[str, str]]:
    """The supervised steps of one record: ``(prompt, completion)`` per trainable line, in order.

    A trainable line is a ``Call`` or ``Answer`` line of the record's final turn (its
    ``"train": true``); earlier turns are context only. For each:

    - ``prompt`` = every line before it, rendered (``render``), then ``NEXT`` ("### ");
    - ``completion`` = the line's tag word, ": ", its text and a newline, e.g.
      ``'Call: get_inventory {"item": "Jaggery"}\\n'`` or ``'Answer: Jaggery is in Aisle 1.\\n'``.

    So prompt + completion is the rendered text up to and including that line, and the loss
    goes on the completion only. With ``tag_in_prompt=True`` the tag moves into the prompt
    (prompt ends ``"### Call: "``, completion is the text and newline): the runtime uses that
    form to force a call line. ``record`` is a record dict or just its ``lines`` list.
    """
    lines = record["lines"] if isinstance(record, dict) else record
    out: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        train = line.get("train", False) if isinstance(line, dict) else False
        tag, text = _tag_text(line)
        if not train or tag not in MODEL_TAGS:
            continue
        before = render(lines[:i])
        flat = " ".join(text.split())
        if tag_in_prompt:
            out.append((before + TAG_NAMES[tag], flat + "\n"))
        else:
            out.append((before + NEXT, f"{tag}: {flat}\n"))
    return out


def parse_next(completion: str) -> tuple[str, str] | None:
    """A model's next line (after ``NEXT``) as ``(tag, text)``: ``("Call", ...)`` or ``("Answer", ...)``, else None."""
    first = completion.split("\n", 1)[0].strip()
    for tag in MODEL_TAGS:
        if first.startswith(tag + ":"):
            return tag, first[len(tag) + 1 :].strip()
    return None


def catalog_line_names(
    catalog: Any, text: str, last_product: str | None = None, limit: int | None = None, *, lexicon: Any = None,
    seed: Any = None, padded: bool | None = None,
) -> list[str]:
    """The product names for a turn's ``### Catalog:`` line: the products code found for this turn, best first.

    In order, at most ``limit``: the products the owner's words ground to
    (``assistant.grounding.ground``: named products, then ambiguous ones, then the named group's
    products), then the last product. Code grounds every item itself, so the line only hands the
    model the catalog spelling of what was said (empty, and left out, when the words name no
    product the store has). With ``padded`` (default ``CATALOG_PADDED``) other products follow,
    in an order fixed by ``seed`` (default: the text), up to ``CATALOG_LIMIT``.
    ``catalog`` is an ``assistant.grounding.Catalog``; ``lexicon`` defaults to the catalog's.
    """
    import random
    import zlib

    from assistant.grounding import ground

    padded = CATALOG_PADDED if padded is None else padded
    limit = limit or (CATALOG_LIMIT if padded else GROUNDED_LIMIT)
    lexicon = lexicon or getattr(catalog, "lexicon", None)
    names: list[str] = []

    def add(name: str | None) -> None:
        if name and name not in names and len(names) < limit:
            names.append(name)

    if lexicon is not None and text:
        grounding = ground(text, catalog=catalog, lexicon=lexicon, last_product=last_product)
        for ref in grounding.products + grounding.ambiguous:
            add(ref.name)
        if grounding.group:
            for entry in catalog.entries:
                if entry.category == grounding.group:
                    add(entry.name)
    if last_product:
        entry = catalog.entry_named(last_product)
        add(entry.name if entry is not None else None)
    if padded:
        if len(catalog.entries) > limit:
            for entry in catalog.shortlist(text or "", limit=limit, lexicon=lexicon):
                add(entry.name)
        others = [entry.name for entry in catalog.entries if entry.name not in names]
        random.Random(seed if seed is not None else zlib.crc32((text or "").encode())).shuffle(others)
        for name in others:
            add(name)
    return names
