"""One turn's ``expect``, evaluated against its answer and the ledger just before and after it.

Every check reads what really happened: the tool calls in the ``TurnResult``, the reply text,
and ``LedgerSnapshot``s of the store's books taken around the turn. A failed check gives a
short line saying which check failed and what was seen; a turn passes when none fails.

The checks:

- ``action``: the turn's action (``find_product``, ``draft_restock``, ``confirm``...) is this one.
- ``product``: some tool call's arguments name this product (``item``, or ``item`` inside a list
  such as place_reorder's ``items``), case-insensitively.
- ``tools``: each listed tool was called and at least one of its calls succeeded.
- ``tools_not``: none of the listed tools was called, even unsuccessfully (a refused write is
  still a wrong decision); ``"*"`` means no tool call at all (client-side actions included).
- ``args``: ``{tool: subset}``: some call of that tool has arguments containing the subset.
  Strings match case-insensitively, numbers by value, ``true``/``false`` exactly; a list in the
  subset (place_reorder's ``items``) matches when each of its entries matches a different entry
  of the call's list (a subset of a list of objects, in any order).
- ``reply_any`` / ``reply_all``: at least one / all of the phrases are in the reply,
  case-insensitive substrings.
- ``reply_none``: none of the phrases is in the reply. A short phrase (one word of at most four
  letters, such as "yes") must be a whole word, so "eyes" does not trip "yes"; longer phrases are
  substrings, so "aisles" does trip "aisle".
- ``reply_stock_of`` / ``reply_price_of``: the product's stock / price as the ledger had it
  BEFORE the turn is said, in digits or words ("twenty-eight", "$8.99", "eight ninety-nine";
  see ``assistant.numbers``).
- ``media``: the answer has a media item of that kind.
- ``guard``: the input guard's verdict ("unsafe" or "safe").
- ``pending_draft``: whether the store has a draft waiting for a yes after the turn.
- ``orders_added``: how many orders the turn placed.
- ``stock_after``: ``{product: count}`` after the turn.
- ``reply_sales``: ``{"args": {...}, "say": [...]}``: every number the reply says is one of
  ``get_sales``' own result for those arguments, read just before the turn, and the ``say`` paths'
  values are said (``lab.bench.sales_check``).
- ``ledger_unchanged``: the turn wrote nothing to the books: no stock journal entry, no new
  draft, no draft decided (confirmed, declined...), no new order.

Phrases and replies are compared after folding case and typographic quotes ("don’t" = "don't").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from assistant.numbers import says_number
from assistant.types import TurnResult
from lab.bench.sales_check import sales_failure, sales_result

SHORT_WORD = 4
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


@dataclass(frozen=True)
class LedgerSnapshot:
    """The parts of a store's books the checks read, at one moment."""

    stock: Mapping[str, int]
    price: Mapping[str, Decimal]
    journal_entries: int
    orders: int
    drafts: Mapping[int, str] = field(default_factory=dict)  # id -> status
    pending_draft: int | None = None
    sales: Mapping[str, Any] | None = None  # get_sales' result for a turn's reply_sales arguments


def ledger_snapshot(*, store, sales_args: Mapping[str, Any] | None = None) -> LedgerSnapshot:
    """Read the store's stock, prices, journal size, drafts and orders (inside the store's context),
    and ``get_sales`` for ``sales_args`` when given."""
    from ledger import selectors
    from ledger.models import Order, Product, ReorderDraft, StockEntry
    from tenants.context import use_store

    with use_store(store):
        products = list(Product.objects.filter(store=store).values_list("name", "stock", "price"))
        pending = selectors.draft_pending(store=store)
        return LedgerSnapshot(
            stock={name: stock for name, stock, _price in products},
            price={name: price for name, _stock, price in products},
            journal_entries=StockEntry.objects.filter(store=store).count(),
            orders=Order.objects.filter(store=store).count(),
            drafts=dict(ReorderDraft.objects.filter(store=store).values_list("id", "status")),
            pending_draft=pending.pk if pending is not None else None,
            sales=sales_result(store=store, arguments=sales_args) if sales_args is not None else None,
        )


@dataclass(frozen=True)
class _Seen:
    result: TurnResult
    before: LedgerSnapshot
    after: LedgerSnapshot

    @property
    def calls(self) -> list[dict[str, Any]]:
        return list(self.result.tool_calls or [])

    @property
    def called(self) -> list[str]:
        return [call.get("tool", "") for call in self.calls]


def turn_failures(expect: Mapping[str, Any], *, result: TurnResult, before: LedgerSnapshot,
                  after: LedgerSnapshot) -> list[str]:
    """The checks of ``expect`` that failed, one short line each; empty when the turn passed."""
    seen = _Seen(result=result, before=before, after=after)
    failures: list[str] = []
    for key, expected in expect.items():
        check = CHECKS.get(key)
        if check is None:  # the suite loader rejects these; a hand-built expect must not pass silently
            failures.append(f"{key}: unknown check")
            continue
        problem = check(expected, seen)
        if problem:
            failures.append(f"{key}: {problem}")
    return failures


# ---------------------------------------------------------------------------------------------
# Tools and arguments


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "none"


def _check_action(expected: str, seen: _Seen) -> str | None:
    actual = seen.result.action or "none"
    return None if _fold(actual) == _fold(expected) else f"the turn's action was {actual}, expected {expected}"


def _named_items(arguments: Any) -> list[str]:
    if not isinstance(arguments, Mapping):
        return []
    names = [arguments["item"]] if isinstance(arguments.get("item"), str) else []
    for value in arguments.values():
        if isinstance(value, list):
            names += [entry["item"] for entry in value if isinstance(entry, Mapping) and isinstance(entry.get("item"), str)]
    return names


def _check_product(expected: str, seen: _Seen) -> str | None:
    named = [name for call in seen.calls for name in _named_items(call.get("arguments"))]
    if any(_fold(name).strip() == _fold(expected) for name in named):
        return None
    return f"no tool call named {expected} (named: {_names(named)})"


def _check_tools(expected: Sequence[str], seen: _Seen) -> str | None:
    problems = []
    for tool in expected:
        calls = [call for call in seen.calls if call.get("tool") == tool]
        if not calls:
            problems.append(f"{tool} not called")
        elif not any(call.get("ok") for call in calls):
            error = next((call.get("error") for call in calls if call.get("error")), "") or "not ok"
            problems.append(f"{tool} called but failed ({_clip(error)})")
    if not problems:
        return None
    return "; ".join(problems) + f" (called: {_names(seen.called)})"


def _check_tools_not(expected: Sequence[str] | str, seen: _Seen) -> str | None:
    if expected == "*":
        return f"expected no tool call, got {_names(seen.called)}" if seen.calls else None
    wrong = [tool for tool in dict.fromkeys(seen.called) if tool in expected]
    return f"{_names(wrong)} called" if wrong else None


def _check_args(expected: Mapping[str, Mapping[str, Any]], seen: _Seen) -> str | None:
    problems = []
    for tool, subset in expected.items():
        calls = [call for call in seen.calls if call.get("tool") == tool]
        if any(arguments_match(subset, call.get("arguments") or {}) for call in calls):
            continue
        got = "; ".join(_compact(call.get("arguments")) for call in calls) or "no call"
        problems.append(f"{tool} {_compact(subset)} not matched (got {got})")
    return "; ".join(problems) if problems else None


def arguments_match(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` contains ``expected``: dicts by subset, lists as sub-multisets, scalars by value."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            (key in actual and arguments_match(value, actual[key])) if value is not None
            else actual.get(key) is None
            for key, value in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and _sub_multiset(expected, list(actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, str):
        return isinstance(actual, str) and _fold(expected).strip() == _fold(actual).strip()
    if isinstance(expected, (int, float, Decimal)):
        number = _number(actual)
        return number is not None and number == Decimal(str(expected))
    return expected == actual


def _sub_multiset(expected: list[Any], actual: list[Any]) -> bool:
    """Each expected entry matches a different actual entry (a small backtracking search)."""
    if not expected:
        return True
    first, rest = expected[0], expected[1:]
    for i, candidate in enumerate(actual):
        if arguments_match(first, candidate) and _sub_multiset(rest, actual[:i] + actual[i + 1:]):
            return True
    return False


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        return None


# ---------------------------------------------------------------------------------------------
# The reply


def _fold(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def _contains(reply: str, phrase: str, *, whole_short_words: bool = False) -> bool:
    needle = _fold(phrase)
    if whole_short_words and re.fullmatch(rf"[^\W_]{{1,{SHORT_WORD}}}", needle):
        return re.search(rf"(?<![^\W_]){re.escape(needle)}(?![^\W_])", reply) is not None
    return needle in reply


def _check_reply_any(expected: Sequence[str], seen: _Seen) -> str | None:
    reply = _fold(seen.result.reply)
    if any(_contains(reply, phrase) for phrase in expected):
        return None
    return f"none of {_quoted(expected)} in {_said(seen)}"


def _check_reply_all(expected: Sequence[str], seen: _Seen) -> str | None:
    reply = _fold(seen.result.reply)
    missing = [phrase for phrase in expected if not _contains(reply, phrase)]
    return f"missing {_quoted(missing)} in {_said(seen)}" if missing else None


def _check_reply_none(expected: Sequence[str], seen: _Seen) -> str | None:
    reply = _fold(seen.result.reply)
    present = [phrase for phrase in expected if _contains(reply, phrase, whole_short_words=True)]
    return f"{_quoted(present)} in {_said(seen)}" if present else None


def _check_reply_stock_of(product: str, seen: _Seen) -> str | None:
    if product not in seen.before.stock:
        return f"{product} is not in the store"
    stock = seen.before.stock[product]
    if says_number(seen.result.reply, stock):
        return None
    return f"{product} stock {stock} not said in {_said(seen)}"


def _check_reply_price_of(product: str, seen: _Seen) -> str | None:
    if product not in seen.before.price:
        return f"{product} is not in the store"
    price = seen.before.price[product]
    if says_number(seen.result.reply, price):
        return None
    return f"{product} price {price} not said in {_said(seen)}"


# ---------------------------------------------------------------------------------------------
# Media, guard and the books


def _check_reply_sales(expected: Mapping[str, Any], seen: _Seen) -> str | None:
    return sales_failure(expected, reply=seen.result.reply, result=seen.before.sales)


def _check_media(kind: str, seen: _Seen) -> str | None:
    kinds = [item.get("kind", "") for item in seen.result.media or []]
    return None if kind in kinds else f"no {kind} (got {_names(kinds)})"


def _check_guard(verdict: str, seen: _Seen) -> str | None:
    got = (seen.result.guard or {}).get("input") or {}
    actual = got.get("verdict", "none")
    return None if actual == verdict else f"input guard said {actual}, expected {verdict}"


def _check_pending_draft(expected: bool, seen: _Seen) -> str | None:
    pending = seen.after.pending_draft
    if expected and pending is None:
        return "expected a draft waiting for a yes, found none"
    if not expected and pending is not None:
        return f"expected no pending draft, found draft #{pending}"
    return None


def _check_orders_added(expected: int, seen: _Seen) -> str | None:
    added = seen.after.orders - seen.before.orders
    return None if added == expected else f"expected {expected}, got {added}"


def _check_stock_after(expected: Mapping[str, int], seen: _Seen) -> str | None:
    wrong = [
        f"{product} is {seen.after.stock.get(product, 'missing')}, expected {count}"
        for product, count in expected.items()
        if seen.after.stock.get(product) != count
    ]
    return "; ".join(wrong) if wrong else None


def _check_ledger_unchanged(expected: bool, seen: _Seen) -> str | None:
    if not expected:
        return None
    before, after = seen.before, seen.after
    changes = []
    entries = after.journal_entries - before.journal_entries
    if entries:
        changes.append(f"{entries} stock journal entr{'y' if entries == 1 else 'ies'}")
    new = sorted(set(after.drafts) - set(before.drafts))
    if new:
        changes.append(f"new draft{'s' if len(new) > 1 else ''} #{', #'.join(map(str, new))}")
    decided = sorted(pk for pk, status in before.drafts.items() if after.drafts.get(pk) != status)
    if decided:
        changes.append(", ".join(f"draft #{pk} {before.drafts[pk]} -> {after.drafts.get(pk, 'gone')}" for pk in decided))
    orders = after.orders - before.orders
    if orders:
        changes.append(f"{orders} new order{'s' if orders > 1 else ''}")
    return "; ".join(changes) if changes else None


CHECKS: dict[str, Callable[[Any, _Seen], str | None]] = {
    "action": _check_action,
    "product": _check_product,
    "tools": _check_tools,
    "tools_not": _check_tools_not,
    "args": _check_args,
    "reply_any": _check_reply_any,
    "reply_all": _check_reply_all,
    "reply_none": _check_reply_none,
    "reply_stock_of": _check_reply_stock_of,
    "reply_price_of": _check_reply_price_of,
    "reply_sales": _check_reply_sales,
    "media": _check_media,
    "guard": _check_guard,
    "pending_draft": _check_pending_draft,
    "orders_added": _check_orders_added,
    "stock_after": _check_stock_after,
    "ledger_unchanged": _check_ledger_unchanged,
}


# ---------------------------------------------------------------------------------------------
# Short renderings for failure lines


def _clip(text: str, limit: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _said(seen: _Seen) -> str:
    return f'reply "{_clip(seen.result.reply)}"'


def _quoted(phrases: Sequence[str]) -> str:
    return ", ".join(f"'{phrase}'" for phrase in phrases)


def _compact(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {_compact(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_compact(item) for item in value) + "]"
    return str(value)
