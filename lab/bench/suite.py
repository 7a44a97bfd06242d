"""A benchmark suite: owner turns run in order in one conversation on a freshly seeded demo store.

The file is JSON::

    {"version": 1, "name": "owner-session-v1", "store": "demo", "turns": [
      {"say": "how many bags of chana dahl are left", "category": "lookup",
       "expect": {"tools": ["get_inventory"], "reply_stock_of": "Chana dal", "ledger_unchanged": true}},
      ...]}

Each ``expect`` key is one machine-evaluated check (``lab.bench.checks`` says what each
means). Loading validates everything up front, so a typo in the suite fails before any model
runs, with a message naming the turn and the key.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The client-side actions the assistant records as tool calls (``TurnContext.simulator_call``).
SIMULATOR_TOOLS = frozenset({"play_demo", "play_guide"})
MEDIA_KINDS = frozenset({"photo", "video", "audio"})
GUARD_VERDICTS = frozenset({"safe", "unsafe"})
EXPECT_KEYS = (
    "tools", "tools_not", "args", "reply_any", "reply_all", "reply_none", "reply_stock_of", "reply_price_of",
    "reply_sales", "media", "guard", "pending_draft", "orders_added", "stock_after", "ledger_unchanged",
)
TURN_KEYS = frozenset({"say", "category", "expect", "id", "note"})
STORES = ("demo",)


class SuiteError(ValueError):
    """The suite file is not valid; the message names the file, the turn and the key."""


@dataclass(frozen=True)
class SuiteTurn:
    """One owner turn: what is said, its category, and the checks on the answer."""

    index: int  # 1-based position in the suite
    say: str
    category: str
    expect: Mapping[str, Any]


@dataclass(frozen=True)
class Suite:
    name: str
    version: int
    store: str
    turns: tuple[SuiteTurn, ...]
    source: str = ""

    def limited(self, limit: int | None) -> Suite:
        """The first ``limit`` turns (a smoke run); the whole suite when ``limit`` is None."""
        if limit is None:
            return self
        return Suite(name=self.name, version=self.version, store=self.store, turns=self.turns[:limit],
                     source=self.source)

    def of_category(self, category: str) -> Suite:
        """Only the turns of ``category``, in order (each keeps its index in the whole suite)."""
        return Suite(name=self.name, version=self.version, store=self.store, source=self.source,
                     turns=tuple(turn for turn in self.turns if turn.category == category))


def demo_catalog_names() -> frozenset[str]:
    from ledger.demo import CATALOG

    return frozenset(item.name for item in CATALOG)


def known_tools() -> frozenset[str]:
    """The gateway's tools and the client-side actions a turn can record."""
    from mcp_gateway.registry import tool_list

    return frozenset(spec.name for spec in tool_list()) | SIMULATOR_TOOLS


def suite_load(path: str | Path, *, catalog: Iterable[str] | None = None, tools: Iterable[str] | None = None) -> Suite:
    """Read and validate a suite file.

    Raises:
        SuiteError: the file is missing, not JSON, or a turn or check is not valid.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SuiteError(f"{path}: no such suite file.") from None
    except ValueError as exc:
        raise SuiteError(f"{path}: not valid JSON ({exc}).") from None
    return suite_parse(data, source=path.name, catalog=catalog, tools=tools)


def suite_parse(
    data: Any, *, source: str = "suite", catalog: Iterable[str] | None = None, tools: Iterable[str] | None = None
) -> Suite:
    """Validate a suite already parsed from JSON (see ``suite_load``).

    Raises:
        SuiteError: a turn or check is not valid.
    """
    if not isinstance(data, dict):
        raise SuiteError(f"{source}: a suite is a JSON object with 'name', 'store' and 'turns'.")
    store = data.get("store", "demo")
    if store not in STORES:
        raise SuiteError(f"{source}: unknown store {store!r}; suites run on: {', '.join(STORES)}.")
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise SuiteError(f"{source}: 'turns' must be a non-empty list.")
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool):
        raise SuiteError(f"{source}: 'version' must be a whole number.")
    validator = _Validator(
        source=source,
        catalog=frozenset(catalog) if catalog is not None else demo_catalog_names(),
        tools=frozenset(tools) if tools is not None else known_tools(),
    )
    turns = tuple(validator.turn(index, raw) for index, raw in enumerate(raw_turns, start=1))
    name = data.get("name") or Path(source).stem
    return Suite(name=str(name), version=version, store=store, turns=turns, source=source)


class _Validator:
    def __init__(self, *, source: str, catalog: frozenset[str], tools: frozenset[str]) -> None:
        self.source = source
        self.catalog = catalog
        self.tools = tools

    def turn(self, index: int, raw: Any) -> SuiteTurn:
        where = f"{self.source}, turn {index}"
        if not isinstance(raw, dict):
            raise SuiteError(f"{where}: a turn is an object with 'say', 'category' and 'expect'.")
        say = raw.get("say")
        if isinstance(say, str) and say.strip():
            where = f'{where} ("{_short(say)}")'
        else:
            raise SuiteError(f"{where}: 'say' must be a non-empty string.")
        extra = sorted(set(raw) - TURN_KEYS)
        if extra:
            raise SuiteError(f"{where}: unknown turn key {extra[0]!r}; a turn has: {', '.join(sorted(TURN_KEYS))}.")
        category = raw.get("category")
        if not isinstance(category, str) or not category.strip():
            raise SuiteError(f"{where}: 'category' must be a non-empty string.")
        expect = raw.get("expect")
        if not isinstance(expect, dict) or not expect:
            raise SuiteError(f"{where}: 'expect' must be an object with at least one check.")
        for key, value in expect.items():
            check = getattr(self, f"_{key}", None) if key in EXPECT_KEYS else None
            if check is None:
                hint = difflib.get_close_matches(key, EXPECT_KEYS, n=1)
                raise SuiteError(
                    f"{where}: unknown expect key {key!r}"
                    + (f" (did you mean {hint[0]!r}?)" if hint else "")
                    + f"; known keys: {', '.join(EXPECT_KEYS)}."
                )
            problem = check(value)
            if problem:
                raise SuiteError(f"{where}: expect key {key!r}: {problem}")
        return SuiteTurn(index=index, say=say.strip(), category=category.strip(), expect=dict(expect))

    # Each returns a problem, or None when the value is fine.

    def _product(self, name: Any) -> str | None:
        if not isinstance(name, str) or not name:
            return "a product name must be a non-empty string."
        if name in self.catalog:
            return None
        hint = difflib.get_close_matches(name, self.catalog, n=1, cutoff=0.6)
        folded = {item.casefold(): item for item in self.catalog}
        if name.casefold() in folded:
            hint = [folded[name.casefold()]]
        return f"{name!r} is not a product of the demo catalog" + (f" (did you mean {hint[0]!r}?)." if hint else ".")

    def _tool_names(self, value: Any) -> str | None:
        if not isinstance(value, list) or not value or not all(isinstance(tool, str) for tool in value):
            return "must be a non-empty list of tool names."
        unknown = [tool for tool in value if tool not in self.tools]
        if unknown:
            return f"unknown tool {unknown[0]!r}; tools are: {', '.join(sorted(self.tools))}."
        return None

    def _tools(self, value: Any) -> str | None:
        return self._tool_names(value)

    def _tools_not(self, value: Any) -> str | None:
        if value == "*":
            return None
        problem = self._tool_names(value)
        return problem and problem.replace("must be", 'must be "*" (no tool call at all) or')

    def _args(self, value: Any) -> str | None:
        if not isinstance(value, dict) or not value:
            return "must be an object of {tool: {argument: value}}."
        for tool, subset in value.items():
            problem = self._tool_names([tool])
            if problem:
                return problem
            if not isinstance(subset, dict) or not subset:
                return f"the arguments for {tool} must be a non-empty object."
            for name in _product_names(subset):
                problem = self._product(name)
                if problem:
                    return f"{tool}: {problem}"
        return None

    def _phrases(self, value: Any) -> str | None:
        if not isinstance(value, list) or not value or not all(isinstance(p, str) and p.strip() for p in value):
            return "must be a non-empty list of non-empty strings."
        return None

    _reply_any = _reply_all = _reply_none = _phrases

    def _reply_stock_of(self, value: Any) -> str | None:
        return self._product(value)

    _reply_price_of = _reply_stock_of

    def _reply_sales(self, value: Any) -> str | None:
        from lab.bench.sales_check import suite_problem

        problem = suite_problem(value)
        if problem is None and "item" in value["args"]:
            problem = self._product(value["args"]["item"])
        return problem

    def _media(self, value: Any) -> str | None:
        if value not in MEDIA_KINDS:
            return f"must be one of {', '.join(sorted(MEDIA_KINDS))}, not {value!r}."
        return None

    def _guard(self, value: Any) -> str | None:
        if value not in GUARD_VERDICTS:
            return f"must be 'safe' or 'unsafe', not {value!r}."
        return None

    def _bool(self, value: Any) -> str | None:
        if not isinstance(value, bool):
            return f"must be true or false, not {value!r}."
        return None

    _pending_draft = _ledger_unchanged = _bool

    def _orders_added(self, value: Any) -> str | None:
        if not _whole(value):
            return f"must be a whole number of orders (0 or more), not {value!r}."
        return None

    def _stock_after(self, value: Any) -> str | None:
        if not isinstance(value, dict) or not value:
            return "must be an object of {product: count}."
        for name, count in value.items():
            problem = self._product(name)
            if problem:
                return problem
            if not _whole(count):
                return f"the count for {name} must be a whole number (0 or more), not {count!r}."
        return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _product_names(arguments: Mapping[str, Any]) -> list[str]:
    """Product names in a tool's arguments: ``item``, and ``item`` inside list entries (``items``)."""
    names = []
    for key, value in arguments.items():
        if key == "item":
            names.append(value)
        elif isinstance(value, list):
            names.extend(entry["item"] for entry in value if isinstance(entry, dict) and "item" in entry)
    return names


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
