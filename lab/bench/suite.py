"""A benchmark suite: owner turns run in order in one conversation on a freshly seeded demo store.

The file is JSON::

    {"version": 1, "name": "owner-session-v1", "store": "demo", "turns": [
      {"say": "how many bags of chana dahl are left", "category": "lookup",
       "expect": {"tools": ["get_inventory"], "reply_stock_of": "Chana dal", "ledger_unchanged": true}},
      ...]}

A suite of replayed cases (``"store": "captured"``, written by ``manage.py regressions export``
or read from the marked cases by ``bench --suite regressions``) has ``cases`` instead of
``turns``: each is one checked turn (``say``, ``category``, ``expect``) with the words said before
it (``context``, replayed first and not checked) and the store it runs on (``store``: business
type, time zone, currency and products, ``lab.bench.stores.captured_store_problem``).

A business-type pack's suite may run on ``"store": "sample"``: a fresh store of the pack's type
holding its ``sample_catalog.csv`` (imported by the catalog import: every count 0, no sales), so
its checks name that catalog's products; loading it needs the catalog (``sample_catalog``).

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
    "action", "product", "tools", "tools_not", "args", "reply_any", "reply_all", "reply_none", "reply_stock_of", "reply_price_of",
    "reply_sales", "media", "guard", "pending_draft", "orders_added", "stock_after", "ledger_unchanged",
)
TURN_KEYS = frozenset({"say", "category", "expect", "id", "note"})
CASE_KEYS = TURN_KEYS | {"context", "store", "mode"}
STORES = ("demo", "sample", "captured")
MAX_CONTEXT = 20


class SuiteError(ValueError):
    """The suite file is not valid; the message names the file, the turn and the key."""


@dataclass(frozen=True)
class SuiteTurn:
    """One owner turn: what is said, its category, and the checks on the answer."""

    index: int  # 1-based position in the suite
    say: str
    category: str
    expect: Mapping[str, Any]
    context: tuple[str, ...] = ()  # a replayed case: the words said before it, replayed unchecked
    store: Mapping[str, Any] | None = None  # a replayed case: the store it runs on (captured)
    case: str = ""  # a replayed case's id


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

    @property
    def replayed(self) -> bool:
        """Whether each turn is a replayed case on a store of its own (``store`` "captured")."""
        return self.store == "captured"


def demo_catalog_names() -> frozenset[str]:
    from ledger.demo import CATALOG

    return frozenset(item.name for item in CATALOG)


def known_tools() -> frozenset[str]:
    """The gateway's tools and the client-side actions a turn can record."""
    from mcp_gateway.registry import tool_list

    return frozenset(spec.name for spec in tool_list()) | SIMULATOR_TOOLS


def suite_store(path: str | Path) -> str | None:
    """The store a suite file says it runs on (``"demo"`` when it says none); None when it cannot be read."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # suite_load says what is wrong
    return data.get("store", "demo") if isinstance(data, dict) else None


def suite_load(path: str | Path, *, catalog: Iterable[str] | None = None, tools: Iterable[str] | None = None,
               sample_catalog: Iterable[str] | None = None) -> Suite:
    """Read and validate a suite file (``sample_catalog``: the product names of a pack's sample store).

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
    return suite_parse(data, source=path.name, catalog=catalog, tools=tools, sample_catalog=sample_catalog)


def suite_parse(
    data: Any, *, source: str = "suite", catalog: Iterable[str] | None = None, tools: Iterable[str] | None = None,
    sample_catalog: Iterable[str] | None = None,
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
    listed = "cases" if store == "captured" else "turns"
    raw_turns = data.get(listed)
    if not isinstance(raw_turns, list) or not raw_turns:
        raise SuiteError(f"{source}: '{listed}' must be a non-empty list.")
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool):
        raise SuiteError(f"{source}: 'version' must be a whole number.")
    if store == "sample" and sample_catalog is None:
        raise SuiteError(f"{source}: it runs on its pack's sample catalog ('store': 'sample'): name the pack "
                         "(--pack PATH_OR_SLUG) or keep the file inside its pack folder.")
    validator = _Validator(
        source=source,
        catalog=frozenset(sample_catalog or ()) if store == "sample" else
        frozenset(catalog) if catalog is not None else demo_catalog_names(),
        tools=frozenset(tools) if tools is not None else known_tools(),
        label="pack's sample catalog" if store == "sample" else "demo catalog",
    )
    if store == "captured":
        turns = tuple(validator.case(index, raw) for index, raw in enumerate(raw_turns, start=1))
    else:
        turns = tuple(validator.turn(index, raw) for index, raw in enumerate(raw_turns, start=1))
    name = data.get("name") or Path(source).stem
    return Suite(name=str(name), version=version, store=store, turns=turns, source=source)


class _Validator:
    def __init__(self, *, source: str, catalog: frozenset[str], tools: frozenset[str],
                 label: str = "demo catalog") -> None:
        self.label = label
        self.source = source
        self.catalog = catalog
        self.tools = tools

    def case(self, index: int, raw: Any) -> SuiteTurn:
        """A replayed case: its store first (its products are the catalog its checks name), then its turn."""
        from lab.bench.stores import captured_store_problem

        where = f"{self.source}, case {index}"
        if not isinstance(raw, dict):
            raise SuiteError(f"{where}: a case is an object with 'say', 'category', 'expect' and 'store'.")
        extra = sorted(set(raw) - CASE_KEYS)
        if extra:
            raise SuiteError(f"{where}: unknown case key {extra[0]!r}; a case has: {', '.join(sorted(CASE_KEYS))}.")
        problem = captured_store_problem(raw.get("store"))
        if problem:
            raise SuiteError(f"{where}: store: {problem}")
        context = raw.get("context", [])
        if (not isinstance(context, list) or len(context) > MAX_CONTEXT
                or not all(isinstance(text, str) and text.strip() for text in context)):
            raise SuiteError(f"{where}: 'context' must be a list of at most {MAX_CONTEXT} non-empty strings.")
        own = _Validator(source=self.source, tools=self.tools, label="case's captured products",
                         catalog=frozenset(product["name"] for product in raw["store"]["products"]))
        turn = own.turn(index, {key: raw[key] for key in TURN_KEYS if key in raw}, what="case")
        return SuiteTurn(index=turn.index, say=turn.say, category=turn.category, expect=turn.expect,
                         context=tuple(text.strip() for text in context), store=raw["store"],
                         case=str(raw.get("id") or f"case-{index}"))

    def turn(self, index: int, raw: Any, *, what: str = "turn") -> SuiteTurn:
        where = f"{self.source}, {what} {index}"
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

    def _action(self, value: Any) -> str | None:
        if not isinstance(value, str) or not value.strip() or len(value) > 40:
            return "must be an action's name (find_product, draft_restock, confirm...)."
        return None

    def _product(self, name: Any) -> str | None:
        if not isinstance(name, str) or not name:
            return "a product name must be a non-empty string."
        if name in self.catalog:
            return None
        hint = difflib.get_close_matches(name, self.catalog, n=1, cutoff=0.6)
        folded = {item.casefold(): item for item in self.catalog}
        if name.casefold() in folded:
            hint = [folded[name.casefold()]]
        return f"{name!r} is not a product of the {self.label}" + (f" (did you mean {hint[0]!r}?)." if hint else ".")

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
