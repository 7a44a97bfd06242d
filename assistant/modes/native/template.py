"""The model's own tool-calling format: its chat template (from the GGUF file) and its tool-call syntax.

Seed 002: render tools with the model's own chat template rather than a hand-written format,
because a model tuned on one tool-call syntax does worse on another. The bundled GGUF carries
its Jinja chat template in its metadata (``tokenizer.chat_template``); it is read once and
rendered by transformers' ``render_jinja_template``, the function behind
``tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=True)``, so no
tokenizer (and no ``gguf`` package) has to be loaded. Qwen2.5 answers tool calls as
``<tool_call>{"name": ..., "arguments": ...}</tool_call>``.
"""

from __future__ import annotations

import json
import re
import struct
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

TEMPLATE_KEY = "tokenizer.chat_template"
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
# GGUF value types (gguf spec): fixed-size scalars by struct format; 8 is a string, 9 an array.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


class TemplateError(Exception):
    """The model file has no usable chat template."""


def _read(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise TemplateError("The GGUF header ends early.")
    return struct.unpack(fmt, data)[0]


def _string(handle: BinaryIO) -> str:
    length = _read(handle, "<Q")
    return handle.read(length).decode("utf-8", errors="replace")


def _skip(handle: BinaryIO, kind: int) -> None:
    if kind in _SCALARS:
        handle.seek(struct.calcsize(_SCALARS[kind]), 1)
    elif kind == 8:
        handle.seek(_read(handle, "<Q"), 1)
    elif kind == 9:
        inner, count = _read(handle, "<I"), _read(handle, "<Q")
        if inner in _SCALARS:
            handle.seek(struct.calcsize(_SCALARS[inner]) * count, 1)
        else:
            for _ in range(count):
                _skip(handle, inner)
    else:
        raise TemplateError(f"Unknown GGUF value type {kind}.")


def gguf_chat_template(path: Path) -> str:
    """The Jinja chat template stored in a GGUF file's metadata.

    Raises:
        TemplateError: not a GGUF file, or it has no chat template.
    """
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise TemplateError(f"{path} is not a GGUF file.")
        _read(handle, "<I")  # version
        _read(handle, "<Q")  # tensor count
        for _ in range(_read(handle, "<Q")):
            key = _string(handle)
            kind = _read(handle, "<I")
            if key == TEMPLATE_KEY and kind == 8:
                return _string(handle)
            _skip(handle, kind)
    raise TemplateError(f"{path} has no {TEMPLATE_KEY}.")


_templates: dict[str, str] = {}
_lock = threading.Lock()


def chat_template() -> str:
    """The native role's chat template, read once per process from its GGUF file.

    Raises:
        TemplateError: the configured model file has no chat template.
        InferenceError: the bundled model cannot be prepared.
    """
    from inference.base import ErrorCode, InferenceError, Role
    from inference.bundle import BundleError, bundle_prepare
    from inference.config import role_config

    config = role_config(Role.NATIVE)
    if config.backend != "llamacpp":
        raise TemplateError("Native tool calling renders prompts locally; it needs the llamacpp backend.")
    with _lock:
        key = config.model or "<bundled>"
        if key not in _templates:
            try:
                path = Path(config.model) if config.model else bundle_prepare().path
            except BundleError as exc:
                raise InferenceError(ErrorCode.UNAVAILABLE, str(exc)) from exc
            _templates[key] = gguf_chat_template(path)
        return _templates[key]


def render(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], *, template: str | None = None) -> str:
    """The prompt text for ``messages`` with ``tools`` declared, ending where the assistant speaks next."""
    from transformers.utils.chat_template_utils import render_jinja_template

    rendered = render_jinja_template(
        conversations=[[dict(message) for message in messages]],
        tools=[dict(tool) for tool in tools] or None,
        chat_template=template if template is not None else chat_template(),
        add_generation_prompt=True,
    )
    # It returns (rendered conversations, generation indices).
    texts = rendered[0] if isinstance(rendered, tuple) else rendered
    return texts[0] if isinstance(texts, list) else texts


def tool_call_message(calls: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """The assistant message that made ``calls``, in the shape chat templates render."""
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": name, "arguments": dict(arguments)}} for name, arguments in calls
        ],
    }


@dataclass(frozen=True)
class ParsedCall:
    """One ``<tool_call>`` block: the name and arguments, or ``problem`` when it did not parse."""

    name: str
    arguments: dict[str, Any]
    problem: str = ""


def parse_output(text: str) -> tuple[str, list[ParsedCall]]:
    """The model's free text (outside tool-call blocks) and its tool calls, in order."""
    calls = []
    bodies = _TOOL_CALL.findall(text)
    if not bodies:
        # Qwen2.5-Coder's template shows the call as {{"name": ...}} and the model sometimes copies that,
        # without the tags: accept one bare call object, as llama.cpp's own Qwen tool parser does.
        bare = text.replace("{{", "{").replace("}}", "}")
        start = bare.find('{"name"')
        if start >= 0:
            try:
                value, end = json.JSONDecoder().raw_decode(bare[start:])
            except ValueError:
                value = None
            if isinstance(value, dict) and "arguments" in value:
                bodies = [json.dumps(value)]
                text = bare[:start] + bare[start + end:]
    for body in bodies:
        try:
            value = json.loads(body)
        except ValueError:
            calls.append(ParsedCall(name="", arguments={}, problem="the tool call is not valid JSON"))
            continue
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            calls.append(ParsedCall(name="", arguments={}, problem="a tool call needs a name and arguments"))
            continue
        arguments = value.get("arguments")
        if isinstance(arguments, str):  # some models double-encode the arguments
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            calls.append(ParsedCall(name=value["name"], arguments={}, problem="arguments must be a JSON object"))
            continue
        calls.append(ParsedCall(name=value["name"], arguments=arguments))
    prose = _TOOL_CALL.sub("", text).replace("</tool_call>", "").replace("<tools>", "").replace("</tools>", "").strip()
    return prose, calls
