"""Every model call of a turn, collected for the audit without threading a recorder through.

The pipeline opens ``collect()`` around a turn; any code that calls a model (guard, router,
general assistant, native loop, small model) reports the request and response with
``record()``. Outside a turn (an evaluation script), ``record`` is a no-op.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from inference.base import ModelRequest, ModelResponse


@dataclass(frozen=True)
class ModelExchange:
    """One model call: what was asked, what came back, how long it took."""

    role: str
    purpose: str
    request: dict[str, Any]
    response: dict[str, Any]
    duration_ms: float
    prompt_tokens: int
    completion_tokens: int
    backend: str
    model: str


_exchanges: ContextVar[list[ModelExchange] | None] = ContextVar("shelfwise_model_exchanges", default=None)
_sink: ContextVar[Callable[[ModelExchange], None] | None] = ContextVar("shelfwise_model_sink", default=None)


def _request_dict(request: ModelRequest) -> dict[str, Any]:
    data = asdict(request)
    data["role"] = str(request.role)
    data["messages"] = [dict(message) for message in request.messages]
    data["tools"] = [dict(tool) for tool in request.tools] if request.tools else None
    return data


def record(request: ModelRequest, response: ModelResponse, *, purpose: str = "", backend: str = "", model: str = "") -> None:
    """Add one model call to the running turn's log (no-op outside ``collect``)."""
    exchanges = _exchanges.get()
    if exchanges is None:
        return
    exchange = ModelExchange(
        role=str(request.role),
        purpose=purpose or str(request.role),
        request=_request_dict(request),
        response={
            "text": response.text,
            "parsed": response.parsed,
            "tool_calls": [asdict(call) for call in response.tool_calls],
            "finish_reason": response.finish_reason,
            "cached_tokens": response.cached_tokens,
        },
        duration_ms=response.duration_ms,
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        backend=backend,
        model=model or response.model,
    )
    exchanges.append(exchange)
    sink = _sink.get()
    if sink is not None:
        sink(exchange)


@contextmanager
def collect(on_record: Callable[[ModelExchange], None] | None = None) -> Iterator[list[ModelExchange]]:
    """Collect the model calls made inside the block, in order; ``on_record`` sees each as it happens."""
    exchanges: list[ModelExchange] = []
    token = _exchanges.set(exchanges)
    sink_token = _sink.set(on_record)
    try:
        yield exchanges
    finally:
        _sink.reset(sink_token)
        _exchanges.reset(token)


def ask(request: ModelRequest, *, purpose: str = "") -> ModelResponse:
    """Run ``request`` on its role's configured backend and log the exchange for the audit.

    Raises:
        InferenceError: the backend could not answer.
    """
    from inference.config import get_backend

    backend = get_backend(request.role)
    response = backend.complete(request)
    record(request, response, purpose=purpose, backend=backend.kind, model=backend.model)
    return response
