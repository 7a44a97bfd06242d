"""A scripted stand-in for a model, for tests that need the pipeline to be deterministic."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

from .base import (
    ErrorCode,
    InferenceError,
    ModelRequest,
    ModelResponse,
    ToolCall,
    parse_json,
)

Scripted = str | dict | ModelResponse | ToolCall | InferenceError | Callable[[ModelRequest], Any]


class FakeBackend:
    """Replaces the model at its process boundary: the rest of the pipeline runs for real.

    It implements ``InferenceBackend``, answers each request with the next scripted item, and
    records every request in ``requests`` so a test can assert on the prompts and schemas the
    pipeline sent. A scripted item is text (``str``), a JSON object (``dict``, sent back as
    compact JSON and parsed), a ``ToolCall``, a full ``ModelResponse``, an ``InferenceError``
    to raise, or a callable that takes the request and returns any of these. When the script
    runs out, ``default`` answers (if given); otherwise the call fails loudly.
    """

    kind = "fake"

    def __init__(self, script: Iterable[Scripted] = (), *, default: Scripted | None = None, model: str = "fake") -> None:
        self.model = model
        self.requests: list[ModelRequest] = []
        self.warm_ups = 0
        self._script = list(script)
        self._default = default
        self._lock = threading.Lock()

    def add(self, *items: Scripted) -> None:
        """Append answers to the script."""
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        return len(self._script)

    def warm_up(self) -> None:
        self.warm_ups += 1

    def complete(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self.requests.append(request)
            if self._script:
                item = self._script.pop(0)
            elif self._default is not None:
                item = self._default
            else:
                raise InferenceError(
                    ErrorCode.SERVER_ERROR,
                    f"FakeBackend has no scripted answer left for request {len(self.requests)} ({request.role}).",
                )
        if callable(item) and not isinstance(item, (ModelResponse, ToolCall)):
            item = item(request)
        if isinstance(item, InferenceError):
            raise item
        return self._response(item, request)

    def _response(self, item: Any, request: ModelRequest) -> ModelResponse:
        if isinstance(item, ModelResponse):
            return replace(item, model=item.model or self.model)
        if isinstance(item, ToolCall):
            return ModelResponse(text="", tool_calls=(item,), finish_reason="tool_calls", model=self.model)
        text = json.dumps(item, separators=(",", ":")) if isinstance(item, dict) else str(item)
        parsed = parse_json(text) if request.json_schema is not None or isinstance(item, dict) else None
        return ModelResponse(
            text=text,
            parsed=parsed,
            prompt_tokens=_words(request),
            completion_tokens=len(text.split()),
            finish_reason="stop",
            model=self.model,
        )


def _words(request: ModelRequest) -> int:
    if request.prompt is not None:
        return len(request.prompt.split())
    return sum(len(str(m.get("content", "")).split()) for m in request.messages)


SAFE_VERDICT = {"verdict": "safe", "category": "none"}


@contextmanager
def fake_models(role: Any, *, default: Scripted | None = None, general: Scripted = "Happy to help!") -> Iterator[FakeBackend]:
    """A scripted ``FakeBackend`` serving ``role`` (yielded, for the test to script and inspect; ``default``
    answers once its script runs out), with the guard model judging every text safe and the general
    model answering ``general``. For tests that run a turn: the guard's other layers, grounding, policy,
    gateway and ledger around the models run for real.
    """
    from .base import Role
    from .config import backend_override

    fake = FakeBackend(default=default)
    with ExitStack() as stack:
        stack.enter_context(backend_override(role, fake))
        if Role(role) is not Role.GENERAL:
            stack.enter_context(backend_override(Role.GENERAL, FakeBackend(default=general)))
        if Role(role) is not Role.GUARD:
            stack.enter_context(backend_override(Role.GUARD, FakeBackend(default=SAFE_VERDICT)))
        yield fake
