"""The ways a model answers a BFCL entry: ``plain`` prompting, the ``harness`` and ``harness-json``.

- ``plain``: BFCL's own default system prompt for prompting models (its ``_DEFAULT_SYSTEM_PROMPT``
  with the functions as JSON), the entry's messages, free text decoded by BFCL's rules.
- ``harness``: the harness in the model's own tool-calling format (``lab.bfcl.native_harness``);
  ``harness-tag`` the same with calls only in the template's tag (no fenced JSON).
- ``harness-select``: classify, then extract (``lab.bfcl.select_harness``): an enum step chooses the
  calls (or none), then only those calls are written, in the model's own format.
- ``harness-json``: the first harness, kept to compare: seed 002's harness, in the parts that apply to a fixed function list: a lexical
  shortlist (the ``SHORTLIST`` functions whose names and descriptions share most words with the
  question, when there are more), the output constrained to a JSON schema of the shortlisted
  functions (``{"calls": [{"name": ..., "arguments": {...}}]}``, an empty list when none fits;
  a grammar on llama.cpp, ``response_format`` on servers), validation against that schema, and
  one repair (the error is sent back once); what still does not validate counts as no call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inference.base import InferenceBackend, InferenceError, ModelRequest, Role
from lab.bfcl.checker import DecodeError, decode_calls
from lab.bfcl.data import Entry

CONDITIONS = ("plain", "harness", "harness-tag", "harness-select", "harness-json")
MAX_TOKENS = 400
SHORTLIST = 4
# BFCL's default system prompt for prompting models (bfcl_eval/constants/default_prompts.py).
PLAIN_SYSTEM = (
    "You are an expert in composing functions. You are given a question and a set of possible functions. Based on "
    "the question, you will need to make one or more function/tool calls to achieve the purpose.\n"
    "If none of the functions can be used, point it out. If the given question lacks the parameters required by "
    "the function, also point it out.\nYou should only return the function calls in your response.\n\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1="
    "params_value1, params_name2=params_value2...), func_name2(params)]\nYou SHOULD NOT include any other text in "
    "the response.\n\nAt each turn, you should try your best to complete the tasks requested by the user within the "
    "current turn. Continue to output functions to call until you have fulfilled the user's request to the best of "
    "your ability. Once you have no more functions to call, the system will consider the current turn complete and "
    "proceed to the next turn or task.\n\nHere is a list of functions in JSON format that you can invoke.\n{functions}\n"
)
HARNESS_SYSTEM = (
    "You turn a request into function calls. Answer with one JSON object {{\"calls\": [...]}}: each call is "
    "{{\"name\": a function's name, \"arguments\": its arguments}}, with the values the request gives. If no "
    "function fits the request, answer {{\"calls\": []}}.\nThe functions:\n{functions}\n"
)
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "integer": "integer", "string": "string",
          "boolean": "boolean", "array": "array", "object": "object", "number": "number"}
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Answer:
    text: str  # the model's last answer
    calls: list[dict[str, dict[str, Any]]] | None  # decoded, BFCL's format; None: nothing decodable
    model_calls: int
    ms: float
    error: str = ""


def _messages(system: str, entry: Entry, functions: list[dict[str, Any]]) -> list[dict[str, str]]:
    listed = json.dumps(functions, ensure_ascii=False)
    own_system = [m["content"] for m in entry.messages if m.get("role") == "system"]
    system_text = system.format(functions=listed) + ("\n" + "\n".join(own_system) if own_system else "")
    return [{"role": "system", "content": system_text},
            *({"role": m["role"], "content": m["content"]} for m in entry.messages if m.get("role") != "system")]


def json_type(spec: Any) -> dict[str, Any]:
    """A BFCL parameter description as JSON schema (``dict``, ``float``, ``tuple``, ``any`` translated)."""
    if not isinstance(spec, dict):
        return {}
    out: dict[str, Any] = {}
    kind = _TYPES.get(str(spec.get("type", "")))
    if kind:
        out["type"] = kind
    if isinstance(spec.get("enum"), list):
        out["enum"] = spec["enum"]
    if kind == "array" and isinstance(spec.get("items"), dict):
        out["items"] = json_type(spec["items"])
    if kind == "object" and isinstance(spec.get("properties"), dict):
        out["properties"] = {name: json_type(sub) for name, sub in spec["properties"].items()}
        required = [name for name in spec.get("required", []) if name in out["properties"]]
        if required:
            out["required"] = required
    return out


def calls_schema(functions: list[dict[str, Any]]) -> dict[str, Any]:
    """The harness's output schema: a list of calls, each one of the functions with its arguments' schema."""
    options = [{"type": "object", "additionalProperties": False, "required": ["name", "arguments"],
                "properties": {"name": {"const": f["name"]}, "arguments": json_type(f.get("parameters") or {})}}
               for f in functions]
    return {"type": "object", "additionalProperties": False, "required": ["calls"],
            "properties": {"calls": {"type": "array", "items": {"anyOf": options} if options else {}}}}


def shortlist(entry: Entry, size: int = SHORTLIST) -> list[dict[str, Any]]:
    """The functions sharing most words with the question (all of them when there are at most ``size``)."""
    functions = list(entry.functions)
    if len(functions) <= size:
        return functions
    asked = set(_WORD.findall(" ".join(m.get("content", "") for m in entry.messages).lower()))

    def overlap(function: dict[str, Any]) -> int:
        words = _WORD.findall(f"{function.get('name', '')} {function.get('description', '')}".replace("_", " ").lower())
        return len(asked & set(words))

    ranked = sorted(range(len(functions)), key=lambda i: (-overlap(functions[i]), i))
    return [functions[i] for i in sorted(ranked[:size])]


def _complete(backend: InferenceBackend, messages: list[dict[str, str]], schema: dict[str, Any] | None):
    request = ModelRequest(role=Role.GENERAL, messages=tuple(messages), max_tokens=MAX_TOKENS, json_schema=schema,
                           schema_name="calls")
    return backend.complete(request)


def plain(backend: InferenceBackend, entry: Entry, clock: Callable[[], float]) -> Answer:
    started = clock()
    try:
        text = _complete(backend, _messages(PLAIN_SYSTEM, entry, list(entry.functions)), None).text
    except InferenceError as exc:
        return Answer(text="", calls=None, model_calls=1, ms=(clock() - started) * 1000, error=str(exc)[:200])
    try:
        calls: list[dict[str, dict[str, Any]]] | None = decode_calls(text)
    except DecodeError as exc:
        calls, error = None, str(exc)
    else:
        error = ""
    return Answer(text=text, calls=calls, model_calls=1, ms=(clock() - started) * 1000, error=error)


def _validated(text: str, schema: dict[str, Any]) -> tuple[list[dict[str, dict[str, Any]]] | None, str]:
    import jsonschema

    try:
        data = json.loads(text)
        jsonschema.validate(data, schema)
    except ValueError as exc:
        return None, f"not JSON ({exc})"[:200]
    except jsonschema.ValidationError as exc:
        return None, f"does not fit the schema: {exc.message}"[:200]
    return [{call["name"]: call["arguments"]} for call in data["calls"]], ""


def harness_json(backend: InferenceBackend, entry: Entry, clock: Callable[[], float]) -> Answer:
    started = clock()
    functions = shortlist(entry)
    schema = calls_schema(functions)
    messages = _messages(HARNESS_SYSTEM, entry, functions)
    text, error, made = "", "", 0
    for _attempt in range(2):  # the answer, then one repair
        made += 1
        try:
            text = _complete(backend, messages, schema).text
        except InferenceError as exc:
            return Answer(text=text, calls=None, model_calls=made, ms=(clock() - started) * 1000, error=str(exc)[:200])
        calls, error = _validated(text, schema)
        if calls is not None:
            return Answer(text=text, calls=calls, model_calls=made, ms=(clock() - started) * 1000)
        messages = [*messages, {"role": "assistant", "content": text},
                    {"role": "user", "content": f"That answer {error}. Answer again with the JSON object only."}]
    return Answer(text=text, calls=None, model_calls=made, ms=(clock() - started) * 1000, error=error)

