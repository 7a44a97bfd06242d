"""Requests and responses in the OpenAI chat/completions JSON shape.

The in-process llama.cpp server and every OpenAI-compatible HTTP server (vLLM, llama.cpp
server, Ollama) speak this shape, so both backends build their bodies and read their answers
here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    ErrorCode,
    InferenceError,
    ModelRequest,
    ModelResponse,
    parse_json,
    tool_calls_from_openai,
)


def request_body(request: ModelRequest, *, model: str | None = None) -> dict[str, Any]:
    """The body for ``chat/completions`` (messages) or ``completions`` (prompt)."""
    body: dict[str, Any] = {"temperature": request.temperature, "max_tokens": request.max_tokens}
    if model:
        body["model"] = model
    if request.prompt is not None:
        body["prompt"] = request.prompt
    else:
        body["messages"] = [dict(m) for m in request.messages]
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if request.seed is not None:
        body["seed"] = request.seed
    if request.stop:
        body["stop"] = list(request.stop)
    if request.json_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": dict(request.json_schema), "strict": True},
        }
    if request.tools:
        body["tools"] = [dict(t) for t in request.tools]
    if request.grammar is not None:
        body["grammar"] = request.grammar  # llama.cpp's server field
    return body


def response_from_body(
    data: Mapping[str, Any], *, request: ModelRequest, duration_ms: float, model: str
) -> ModelResponse:
    """Read an OpenAI-shaped answer.

    Raises:
        InferenceError: the answer has no choices (``bad_response``).
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise InferenceError(ErrorCode.BAD_RESPONSE, f"The {request.role} model answered without choices.")
    choice = choices[0]
    message = choice.get("message")
    if isinstance(message, Mapping):
        text = message.get("content") or ""
        tool_calls = tool_calls_from_openai(message.get("tool_calls"))
    else:
        text = choice.get("text") or ""
        tool_calls = ()
    usage = data.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens")
    if cached is None:  # llama.cpp also reports it in its own timings
        cached = (data.get("timings") or {}).get("cache_n")
    return ModelResponse(
        text=text,
        parsed=parse_json(text) if request.json_schema is not None else None,
        tool_calls=tool_calls,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        duration_ms=duration_ms,
        cached_tokens=None if cached is None else int(cached),
        finish_reason=choice.get("finish_reason"),
        model=str(data.get("model") or model),
        raw=data,
    )
