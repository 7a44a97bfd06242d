"""The interface every inference backend implements: one request in, one response out.

A ``ModelRequest`` says what a role needs from a model (chat messages or a raw prompt, a JSON
schema to constrain the output, OpenAI-style tools); a ``ModelResponse`` carries the text, the
parsed JSON when a schema was asked for, tool calls, token counts and timing for the audit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


class Role(StrEnum):
    """What a model call is for; each role is configured separately (see ``config``)."""

    ROUTER = "router"
    GUARD = "guard"
    GENERAL = "general"
    NATIVE = "native"
    SMALL = "small"


class ErrorCode(StrEnum):
    UNAVAILABLE = "unavailable"  # server unreachable, model file missing or unloadable
    TIMEOUT = "timeout"
    BAD_REQUEST = "bad_request"  # the backend refused the request (e.g. prompt longer than the context)
    SERVER_ERROR = "server_error"
    BAD_RESPONSE = "bad_response"  # an answer that is not the documented shape


class InferenceError(Exception):
    """A model call failed; ``code`` is an ``ErrorCode``, ``message`` says what to check."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@dataclass(frozen=True)
class ModelRequest:
    """One model call.

    Exactly one of ``messages`` (chat, rendered with the model's own chat template) and
    ``prompt`` (raw text completion, already formatted) is given. ``json_schema`` constrains
    the output where the backend can (a grammar on llama.cpp, ``response_format`` on servers);
    ``tools`` are OpenAI-style function definitions for native tool calling.
    """

    role: Role
    messages: tuple[Mapping[str, Any], ...] = ()
    prompt: str | None = None
    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float | None = None  # nucleus sampling; None leaves the server's default
    seed: int | None = None  # the sampler's seed, for reproducible sampled runs (the lab's benchmarks)
    json_schema: Mapping[str, Any] | None = None
    stop: tuple[str, ...] = ()
    tools: tuple[Mapping[str, Any], ...] | None = None
    schema_name: str = "answer"
    # A raw grammar (LLGuidance lark with ``%llguidance {}``, or GBNF) for what ``json_schema`` cannot say, e.g.
    # "prose, or tool-call blocks": llama.cpp (in process or its server) decodes under it; other servers ignore it.
    grammar: str | None = None

    def __post_init__(self) -> None:
        # Accept lists from callers but keep the request immutable.
        object.__setattr__(self, "role", Role(self.role))
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "stop", tuple(self.stop))
        if self.tools is not None:
            object.__setattr__(self, "tools", tuple(self.tools))
        if bool(self.messages) == (self.prompt is not None):
            raise ValueError("A ModelRequest takes either messages or a prompt, not both and not neither.")
        if self.prompt is not None and self.tools:
            raise ValueError("Tools need chat messages, not a raw prompt.")
        if self.grammar is not None and self.json_schema is not None:
            raise ValueError("A request is constrained by a JSON schema or by a grammar, not both.")
        if self.temperature < 0:
            raise ValueError("temperature must not be negative.")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1.")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError("top_p must be above 0 and at most 1.")


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; ``arguments`` is None when its JSON did not parse to an object."""

    name: str
    arguments: dict[str, Any] | None
    arguments_json: str
    id: str | None = None


@dataclass(frozen=True)
class ModelResponse:
    """What came back, with the figures the audit records."""

    text: str
    parsed: Any = None
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: float = 0.0
    cached_tokens: int | None = None
    finish_reason: str | None = None
    model: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class InferenceBackend(Protocol):
    """A model behind one call. Implementations are thread-safe and cheap to call repeatedly."""

    kind: str  # "llamacpp", "openai", "fake"
    model: str  # the model path or name, as recorded in the audit

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Run one request.

        Raises:
            InferenceError: the backend could not answer.
        """
        ...

    def warm_up(self) -> None:
        """Load the model or check the server now, so the first turn does not pay for it.

        Raises:
            InferenceError: the model cannot be loaded or the server cannot be reached.
        """
        ...


def parse_json(text: str) -> Any:
    """The JSON value in ``text``, or None when it is not valid JSON (callers validate and repair)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def tool_calls_from_openai(calls: Sequence[Mapping[str, Any]] | None) -> tuple[ToolCall, ...]:
    """OpenAI ``message.tool_calls`` (arguments as a JSON string) as ``ToolCall`` values."""
    result = []
    for call in calls or ():
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            arguments_json = arguments
            parsed = parse_json(arguments)
        else:  # some servers send an object
            arguments_json = json.dumps(arguments)
            parsed = arguments
        result.append(
            ToolCall(
                name=str(function.get("name", "")),
                arguments=parsed if isinstance(parsed, dict) else None,
                arguments_json=arguments_json,
                id=call.get("id"),
            )
        )
    return tuple(result)
