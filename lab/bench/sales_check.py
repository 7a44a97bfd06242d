"""``reply_sales``: a sales answer's numbers against ``get_sales`` for the same store and question.

``{"args": {get_sales arguments}, "say": [result paths]}``. Just before the turn, the bench calls
``get_sales`` itself with ``args`` (through ``execute_tool``, as any caller would; it only reads)
and keeps the result in the snapshot. The check then holds two things:

- every number the reply says is one of that result's: a figure, a change (said without its sign),
  a date's day or year, a number in a product's name; a figure of another period, another product
  or a number the model made up fails;
- each ``say`` path's value is said: ``"revenue"``, ``"focus.units"``, ``"rows.0.name"``,
  ``"comparison.focus.units"``, ``"comparison.change.revenue.delta"``. A zero (a count or an
  amount) may be said as "no ..." or "none".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from assistant.numbers import amounts_in, says_number

ARGUMENTS = frozenset({"period", "compareTo", "item", "category", "groupBy", "sort", "limit"})
_PATH = re.compile(r"[A-Za-z]+(\.(?:[A-Za-z]+|\d+))*")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T")
_NONE = re.compile(r"\b(no|none|nothing|not any)\b")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def sales_result(*, store, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``get_sales`` for ``store`` with ``arguments``, as the bench's own read; a failure is kept as its error."""
    from audit.models import Channel
    from mcp_gateway.execution import execute_tool
    from mcp_gateway.policy import Caller
    from mcp_gateway.registry import MCP_SCOPE

    caller = Caller(channel=Channel.SYSTEM, actor="system:bench", scopes=frozenset({MCP_SCOPE}))
    result = execute_tool("get_sales", dict(arguments), store=store, caller=caller)
    return dict(result.data) if result.ok else {"error": result.message or "get_sales failed"}


def _whole_and_exact(value: Decimal) -> set[Decimal]:
    value = abs(value)
    return {value, value.to_integral_value(rounding="ROUND_DOWN")}


def result_numbers(value: Any) -> set[Decimal]:
    """Every number a reply may say from ``value`` (a get_sales result)."""
    found: set[Decimal] = set()
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key not in ("start", "end", "timezone", "currency"):
                found |= result_numbers(item)
    elif isinstance(value, list):
        for item in value:
            found |= result_numbers(item)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, (int, float, Decimal)):
        found |= _whole_and_exact(Decimal(str(value)))
    elif isinstance(value, str) and not _MOMENT.match(value):
        date = _DATE.fullmatch(value)
        if date:
            found |= {Decimal(int(date.group(1))), Decimal(int(date.group(3)))}
        elif _NUMBER.fullmatch(value):
            found |= _whole_and_exact(Decimal(value))
        else:
            for number in amounts_in(value):
                found |= _whole_and_exact(number.value)
    return found


def _at(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, Mapping) and part in data:
            data = data[part]
        else:
            raise KeyError(path)
    return data


def _said(reply: str, value: Any) -> bool:
    if isinstance(value, str) and not _NUMBER.fullmatch(value):
        return " ".join(value.casefold().split()) in " ".join(reply.casefold().split())
    number = abs(Decimal(str(value)))
    if number == 0:  # "no sales recorded", "no Ghee": nothing, said as such
        return says_number(reply, 0) or bool(_NONE.search(reply.casefold()))
    return says_number(reply, number)


def sales_failure(expected: Mapping[str, Any], *, reply: str, result: Mapping[str, Any] | None) -> str | None:
    """What is wrong with ``reply`` against ``result`` (the bench's own get_sales), or None."""
    if not result:
        return "no get_sales result was read before the turn"
    if "error" in result:
        return f"the bench's own get_sales failed: {result['error']}"
    allowed = result_numbers(result)
    unsupported = sorted({abs(n.value) for n in amounts_in(reply)} - allowed)
    problems = []
    if unsupported:
        problems.append(f"said {', '.join(format(n, 'f') for n in unsupported)}, not in get_sales' result")
    for path in expected.get("say") or ():
        try:
            value = _at(result, path)
        except KeyError:
            problems.append(f"{path} is not in get_sales' result")
            continue
        if value is None or not _said(reply, value):
            problems.append(f"{path} = {value} not said")
    if not problems:
        return None
    reply_text = " ".join(reply.split())
    return "; ".join(problems) + f' in reply "{reply_text[:160]}"'


def suite_problem(value: Any) -> str | None:
    """Why a suite's ``reply_sales`` value is malformed, or None."""
    if not isinstance(value, dict) or set(value) - {"args", "say"} or not isinstance(value.get("args"), dict):
        return 'must be an object {"args": {get_sales arguments}, "say": [result paths]}.'
    unknown = sorted(set(value["args"]) - ARGUMENTS)
    if unknown:
        return f"unknown get_sales argument {unknown[0]!r}; they are: {', '.join(sorted(ARGUMENTS))}."
    say = value.get("say", [])
    if not isinstance(say, list) or not all(isinstance(path, str) and _PATH.fullmatch(path) for path in say):
        return 'say must be a list of result paths such as "revenue" or "rows.0.name".'
    return None
