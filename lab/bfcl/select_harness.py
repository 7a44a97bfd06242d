"""Classify, then extract (the ``harness-select`` condition): seed 003's split of a call into two steps.

1. **Select.** A short chat turn decoded under a JSON schema: the calls the request needs, one item
   per call, each a value of one enum (the shortlisted names and ``"none"``) with a short label of
   what that call is for. The model chooses among names it is shown; it cannot write a call here.
2. **Extract.** The chosen functions are declared in the model's own chat template (Qwen2.5: the
   ``<tools>`` block), and the answer is decoded under a grammar that is exactly the planned calls,
   in order, each a ``<tool_call>`` whose JSON fits its function (name fixed, arguments to the
   schema): no prose branch, no other function, no other number of calls.

Then validation and one repair, as in ``lab.bfcl.native_harness``; what still does not validate
counts as no call. Why: on the dev slice and draw 2 the one-step harness lost where the model,
given a prose branch, described a call instead of making it, and where after one call it stopped
though the request needed several (``README.md``, "Evaluation lab: BFCL").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from inference.base import InferenceBackend, InferenceError, ModelRequest, Role
from lab.bfcl.conditions import MAX_TOKENS, Answer, shortlist
from lab.bfcl.data import Entry
from lab.bfcl.native_harness import STOP, arguments_schema, parse, problems, tool_declaration

MAX_CALLS = 6  # the most calls a plan may hold; BFCL's parallel entries ask for two to four
LABEL = 60  # the longest label of a planned call
SELECT_TOKENS = 200
NONE = "none"
SELECT_SYSTEM = (
    "You decide which functions a request needs; you do not call them. The functions:\n{functions}\n"
    "- none: no function above can do what the request asks.\n"
    "List the calls the request needs, one item per call: the function, and for: what that call is for, in a "
    "few words. A request that asks the same thing for several items (two cities, three numbers) needs one call "
    "per item. If no function can do what the request asks, answer one item with the function \"none\"."
)
EXTRACT_SYSTEM = "Make exactly these calls, in this order, with the values the request gives: {plan}."


def plan_schema(functions: list[dict[str, Any]]) -> dict[str, Any]:
    """The select step's output: ``{"calls": [{"function": a shortlisted name or "none", "for": label}, ...]}``.

    "none" is one more value of the same enum, so declining is a choice among names, not a structural
    token (the JSON harness's empty list was taken greedily where a call was needed). The label says
    what each call is for, so the number of calls is counted over the things the request names.
    """
    item = {"type": "object", "additionalProperties": False, "required": ["function", "for"],
            "properties": {"function": {"enum": [*(f["name"] for f in functions), NONE]},
                           "for": {"type": "string", "maxLength": LABEL}}}
    return {"type": "object", "additionalProperties": False, "required": ["calls"],
            "properties": {"calls": {"type": "array", "items": item, "minItems": 1, "maxItems": MAX_CALLS}}}


def _listing(functions: list[dict[str, Any]]) -> str:
    lines = []
    for function in functions:
        parameters = ", ".join((function.get("parameters") or {}).get("properties", {}))
        lines.append(f"- {function['name']}({parameters}): {function.get('description', '')}")
    return "\n".join(lines)


def plan_read(text: str, names: list[str]) -> list[tuple[str, str]] | None:
    """The planned calls as (function, what it is for), ``[]`` for none; None when the answer is not a plan."""
    try:
        plan = [(item["function"], str(item.get("for", ""))) for item in json.loads(text)["calls"]]
    except (ValueError, KeyError, TypeError):
        return None
    if not all(name in names or name == NONE for name, _label in plan):
        return None
    return [(name, label) for name, label in plan if name != NONE][:MAX_CALLS]


def extract_grammar(plan: list[str], functions: list[dict[str, Any]]) -> str:
    """LLGuidance grammar: the planned calls, in order, each a ``<tool_call>`` of that one function."""
    by_name = {f["name"]: f for f in functions}
    rules = []
    for index, name in enumerate(plan):
        one_call = {"type": "object", "additionalProperties": False, "required": ["name", "arguments"],
                    "properties": {"name": {"const": name}, "arguments": arguments_schema(by_name[name])},
                    "x-guidance": {"whitespace_flexible": False}}
        rules.append(f'call{index}: "<tool_call>\\n" %json {json.dumps(one_call)} "\\n</tool_call>"\n')
    start = ' "\\n" '.join(f"call{index}" for index in range(len(plan)))
    return "%llguidance {}\nstart: " + start + "\n" + "".join(rules)


def _entry_messages(entry: Entry, system: str) -> list[dict[str, Any]]:
    own_system = [m["content"] for m in entry.messages if m.get("role") == "system"]
    return [{"role": "system", "content": "\n".join([*own_system, system])},
            *({"role": m["role"], "content": m["content"]} for m in entry.messages if m.get("role") != "system")]


def select(backend: InferenceBackend, entry: Entry,
           functions: list[dict[str, Any]]) -> tuple[list[tuple[str, str]] | None, str]:
    """The select step: the planned calls (``[]``: none) and the raw answer; None when it did not parse.

    Raises:
        InferenceError: the model could not answer.
    """
    request = ModelRequest(role=Role.GENERAL, messages=tuple(_entry_messages(
        entry, SELECT_SYSTEM.format(functions=_listing(functions)))), max_tokens=SELECT_TOKENS,
        json_schema=plan_schema(functions), schema_name="plan")
    text = backend.complete(request).text
    return plan_read(text, [f["name"] for f in functions]), text


def harness_select(backend: InferenceBackend, entry: Entry, clock: Callable[[], float], *,
                   chat_template: str) -> Answer:
    """Shortlist, select (enum), extract (the planned calls only, in the model's own format), validate, repair once."""
    from assistant.modes.native import template

    started = clock()
    functions = shortlist(entry)

    def answer(text: str, calls: list[dict[str, Any]] | None, made: int, error: str = "") -> Answer:
        return Answer(text=text, calls=calls, model_calls=made, ms=(clock() - started) * 1000, error=error)

    try:
        plan, chosen = select(backend, entry, functions)
    except InferenceError as exc:
        return answer("", None, 1, str(exc)[:200])
    if plan is None:
        return answer(chosen, None, 1, "the select step gave no plan")
    if not plan:
        return answer(chosen, [], 1)
    chosen = f"plan: {chosen}\n"  # kept before the calls in the recorded answer
    names = [name for name, _label in plan]
    declared = [f for f in functions if f["name"] in names]
    messages = _entry_messages(entry, EXTRACT_SYSTEM.format(plan="; ".join(
        f"{name} ({label})" if label else name for name, label in plan)))
    grammar = extract_grammar(names, functions)
    text, error, made = "", "", 1
    for _attempt in range(2):  # the calls, then one repair
        made += 1
        request = ModelRequest(role=Role.GENERAL, max_tokens=MAX_TOKENS, grammar=grammar, stop=STOP,
                               prompt=template.render(messages, [tool_declaration(f) for f in declared],
                                                      template=chat_template))
        try:
            text = backend.complete(request).text
        except InferenceError as exc:
            return answer(text, None, made, str(exc)[:200])
        parsed = parse(text)
        error = problems(parsed, declared) or ("" if len(parsed) == len(names) else
                                               f"{len(names)} calls were planned, {len(parsed)} written")
        if not error:
            return answer(chosen + text, [{call["name"]: call["arguments"]} for call in parsed], made)
        messages = [*messages, {"role": "assistant", "content": text},
                    {"role": "user", "content": f"Those tool calls were invalid: {error}. Write them again."}]
    return answer(chosen + text, None, made, error)
