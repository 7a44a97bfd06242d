"""The harness in the model's own tool-calling format (the ``harness`` condition).

Seed 002's harness, with the decision whether to call left where the model learned it: the
shortlisted functions are declared with the model's own chat template (Qwen2.5: a ``<tools>``
block in the system message; calls come back as ``<tool_call>{"name", "arguments"}</tool_call>``),
and the answer is decoded under a grammar that allows either plain prose (no call) or one or more
tool-call blocks whose JSON fits one shortlisted function's parameters (names, types, required
keys, no undeclared keys). A call is accepted in the two shapes Qwen2.5-Coder writes: the tag,
and a fenced JSON object (```json {"name", "arguments"} ```, its habit, which llama.cpp's own Qwen
parser also reads), after a sentence or not; prose holds no fence, brace or tag, so an answer that
starts to write a call is held to the functions' schemas. (Seen on the dev slice: with free prose
the model explained and then fenced its call, read as no call.) The system message says, as BFCL's
own prompt does, to answer in words when no function fits. The calls are validated against the
schemas and the answer is repaired once with the problem stated; what still does not validate
counts as no call.

Why not the JSON list of ``harness-json`` (``lab.bfcl.conditions``): there the decision to call
nothing was the token after ``{"calls":[``, taken greedily under a prompt that spelt out the empty
answer, and on the dev slice (the first five entries of each category) the model took it on five
requests that needed a call. Here declining means writing prose in the model's own format, as the
leaderboard's function-calling mode asks of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from inference.base import InferenceBackend, InferenceError, ModelRequest, Role
from lab.bfcl.conditions import MAX_TOKENS, Answer, json_type, shortlist
from lab.bfcl.data import Entry

STOP = ("<|im_end|>",)
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>|```(?:json)?\s*(.*?)\s*```", re.DOTALL)
SYSTEM = "Call the functions the request needs, with the values it gives. If none of the functions fits, say so in words."


def arguments_schema(function: dict[str, Any]) -> dict[str, Any]:
    """A function's parameters as JSON schema, closed: a key the function does not declare does not fit."""
    schema = json_type(function.get("parameters") or {"type": "dict"})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def described(spec: Any) -> dict[str, Any]:
    """A BFCL parameter as JSON schema with its descriptions and defaults: what the model reads about it."""
    if not isinstance(spec, dict):
        return {}
    out = json_type(spec)
    out.update({key: spec[key] for key in ("description", "default") if key in spec})
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: described(sub) for name, sub in spec.get("properties", {}).items()}
    if isinstance(out.get("items"), dict):
        out["items"] = described(spec.get("items"))
    return out


def tool_declaration(function: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool, the shape chat templates render in their tools block, parameters described.

    The declaration keeps every parameter's description and default (the ``plain`` prompt shows them
    too: "the city and state, e.g. Seattle, WA", "default 'Close'"); the grammar needs only the types.
    """
    parameters = described(function.get("parameters") or {"type": "dict"})
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    parameters["additionalProperties"] = False
    return {"type": "function", "function": {"name": function["name"], "description": function.get("description", ""),
                                             "parameters": parameters}}


def call_grammar(functions: list[dict[str, Any]], *, fenced: bool = True) -> str:
    """LLGuidance grammar: prose, or (after a sentence or not) calls, tagged (or fenced), each one function's."""
    one_call = {"anyOf": [{"type": "object", "additionalProperties": False, "required": ["name", "arguments"],
                           "properties": {"name": {"const": f["name"]}, "arguments": arguments_schema(f)}}
                          for f in functions],
                "x-guidance": {"whitespace_flexible": False}}
    body = json.dumps(one_call)
    return ("%llguidance {}\n"
            "start: prose | prose? calls\n"
            "prose: /[^<`{\\[\\s][^<`{]*/\n"
            'calls: call ("\\n" call)*\n'
            + ("call: tagged | fenced\n" if fenced else "call: tagged\n")
            + f'tagged: "<tool_call>\\n" %json {body} "\\n</tool_call>"\n'
            + (f'fenced: "```json\\n" %json {body} "\\n```"\n' if fenced else ""))


def parse(text: str) -> list[dict[str, Any]]:
    """The calls in an answer, tagged or fenced, in order; a body that is not a call object is kept as a problem."""
    calls = []
    for tagged, fenced in _CALL.findall(text):
        try:
            value = json.loads(tagged or fenced)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not isinstance(
                value.get("arguments", {}), dict):
            calls.append({"name": "", "arguments": {}, "problem": "a call must be a JSON object with a name and arguments"})
            continue
        calls.append({"name": value["name"], "arguments": value.get("arguments", {}), "problem": ""})
    return calls


def problems(calls: list[dict[str, Any]], functions: list[dict[str, Any]]) -> str:
    """What is wrong with the parsed calls ("" when every one names a listed function with fitting arguments)."""
    import jsonschema

    by_name = {f["name"]: f for f in functions}
    for call in calls:
        if call["problem"]:
            return call["problem"]
        if call["name"] not in by_name:
            return f"there is no function named {call['name']!r}"
        try:
            jsonschema.validate(call["arguments"], arguments_schema(by_name[call["name"]]))
        except jsonschema.ValidationError as exc:
            return f"the arguments of {call['name']} do not fit: {exc.message}"[:200]
    return ""


def harness(backend: InferenceBackend, entry: Entry, clock: Callable[[], float], *, chat_template: str,
            fenced: bool = True) -> Answer:
    """Shortlist, the model's own template, grammar-constrained decoding, validation and one repair."""
    from assistant.modes.native import template

    started = clock()
    functions = shortlist(entry)
    tools = [tool_declaration(f) for f in functions]
    own_system = [m["content"] for m in entry.messages if m.get("role") == "system"]
    messages: list[dict[str, Any]] = [{"role": "system", "content": "\n".join([*own_system, SYSTEM])},
                                      *({"role": m["role"], "content": m["content"]} for m in entry.messages
                                        if m.get("role") != "system")]
    grammar = call_grammar(functions, fenced=fenced)
    text, error, made = "", "", 0
    for _attempt in range(2):  # the answer, then one repair
        made += 1
        request = ModelRequest(role=Role.GENERAL, prompt=template.render(messages, tools, template=chat_template),
                               max_tokens=MAX_TOKENS, grammar=grammar, stop=STOP)
        try:
            text = backend.complete(request).text
        except InferenceError as exc:
            return Answer(text=text, calls=None, model_calls=made, ms=(clock() - started) * 1000, error=str(exc)[:200])
        parsed = parse(text)
        error = problems(parsed, functions)
        if not error:
            calls = [{call["name"]: call["arguments"]} for call in parsed]
            return Answer(text=text, calls=calls, model_calls=made, ms=(clock() - started) * 1000)
        messages = [*messages, {"role": "assistant", "content": text},
                    {"role": "user", "content": f"That tool call was invalid: {error}. Call again, or answer in words."}]
    return Answer(text=text, calls=None, model_calls=made, ms=(clock() - started) * 1000, error=error)
