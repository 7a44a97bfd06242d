"""The OpenAI-compatible backend over real HTTP, against a small server in this process that records requests."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from inference.base import ErrorCode, InferenceError, ModelRequest, Role
from inference.config import backends_reset, get_backend
from inference.openai_http import OpenAIHttpBackend

ACTION_SCHEMA = {
    "type": "object",
    "properties": {"action": {"enum": ["general", "find_product"]}},
    "required": ["action"],
}


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ModelServer:
    """Answers with queued (status, body) pairs and records each request it got."""

    url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    answers: list[tuple[int, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    hold: bool = False

    def answer(self, body: Any, status: int = 200) -> None:
        self.answers.append((status, body))


def _chat_answer(content: str = "", tool_calls: list | None = None, **usage: Any) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "qwen-served",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 6, "total_tokens": 126, **usage},
    }


@pytest.fixture
def model_server():
    state = ModelServer()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            state.requests.append(
                Recorded(self.command, self.path, dict(self.headers), json.loads(raw) if raw else None)
            )
            if state.hold:
                state.release.wait(timeout=5)
            status, body = state.answers.pop(0) if state.answers else (500, {"error": {"message": "nothing queued"}})
            payload = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _handle

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _backend(server: ModelServer, **kwargs: Any) -> OpenAIHttpBackend:
    options = {"role": Role.ROUTER, "base_url": server.url, "model": "qwen-served", "setting": "SHELFWISE_ROUTER_URL"}
    return OpenAIHttpBackend(**(options | kwargs))


def test_a_schema_goes_out_as_response_format_and_the_answer_is_parsed(model_server):
    model_server.answer(_chat_answer('{"action":"find_product"}', prompt_tokens_details={"cached_tokens": 100}))
    request = ModelRequest(
        role=Role.ROUTER,
        messages=[{"role": "system", "content": "Pick an action."}, {"role": "user", "content": "where is the gur"}],
        json_schema=ACTION_SCHEMA,
        max_tokens=20,
        stop=["\n\n"],
        schema_name="route",
    )

    response = _backend(model_server).complete(request)

    assert response.parsed == {"action": "find_product"}
    assert (response.prompt_tokens, response.completion_tokens, response.cached_tokens) == (120, 6, 100)
    assert response.finish_reason == "stop"
    assert response.duration_ms > 0
    sent = model_server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.body == {
        "model": "qwen-served",
        "messages": [{"role": "system", "content": "Pick an action."}, {"role": "user", "content": "where is the gur"}],
        "temperature": 0.0,
        "max_tokens": 20,
        "stop": ["\n\n"],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "route", "schema": ACTION_SCHEMA, "strict": True},
        },
    }


def test_a_raw_prompt_goes_to_the_completions_endpoint(model_server):
    model_server.answer({"choices": [{"index": 0, "text": "get_inventory item=atta", "finish_reason": "stop"}], "usage": {}})

    response = _backend(model_server).complete(ModelRequest(role=Role.SMALL, prompt="> how much atta\n", max_tokens=16))

    assert response.text == "get_inventory item=atta"
    assert response.parsed is None
    assert model_server.requests[0].path == "/v1/completions"
    assert model_server.requests[0].body["prompt"] == "> how much atta\n"


def test_tools_are_sent_and_tool_calls_come_back_with_parsed_arguments(model_server):
    tool = {
        "type": "function",
        "function": {
            "name": "get_inventory",
            "description": "Look up a product's stock and shelf.",
            "parameters": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]},
        },
    }
    model_server.answer(
        _chat_answer(
            tool_calls=[
                {"id": "call_1", "type": "function", "function": {"name": "get_inventory", "arguments": '{"item": "atta"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "get_inventory", "arguments": "{not json"}},
            ]
        )
    )

    response = _backend(model_server).complete(
        ModelRequest(role=Role.NATIVE, messages=[{"role": "user", "content": "how much atta"}], tools=[tool])
    )

    assert model_server.requests[0].body["tools"] == [tool]
    first, second = response.tool_calls
    assert (first.id, first.name, first.arguments) == ("call_1", "get_inventory", {"item": "atta"})
    assert (second.arguments, second.arguments_json) == (None, "{not json")
    assert response.finish_reason == "tool_calls"


def test_the_api_key_is_sent_as_a_bearer_token(model_server):
    model_server.answer(_chat_answer("hi"))

    _backend(model_server, api_key="s3cret").complete(ModelRequest(role=Role.GENERAL, messages=[{"role": "user", "content": "hi"}]))

    assert model_server.requests[0].headers["Authorization"] == "Bearer s3cret"


def test_an_unreachable_server_names_the_setting_to_fix():
    with socket.socket() as sock:  # a port that was free a moment ago and now has no listener
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = OpenAIHttpBackend(
        role=Role.GUARD, base_url=f"http://127.0.0.1:{port}/v1", model="m", setting="SHELFWISE_GUARD_URL", timeout_s=2
    )

    with pytest.raises(InferenceError) as error:
        backend.complete(ModelRequest(role=Role.GUARD, messages=[{"role": "user", "content": "hi"}]))

    assert error.value.code == ErrorCode.UNAVAILABLE
    assert "SHELFWISE_GUARD_URL" in error.value.message
    assert f"127.0.0.1:{port}" in error.value.message


def test_a_slow_server_times_out_with_the_timeout_setting_named(model_server):
    model_server.hold = True
    model_server.answer(_chat_answer("late"))

    with pytest.raises(InferenceError) as error:
        _backend(model_server, timeout_s=0.3).complete(ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": "hi"}]))

    assert error.value.code == ErrorCode.TIMEOUT
    assert "SHELFWISE_ROUTER_TIMEOUT" in error.value.message


def test_a_server_error_carries_the_servers_message(model_server):
    model_server.answer({"error": {"message": "the prompt exceeds the context size"}}, status=400)

    with pytest.raises(InferenceError) as error:
        _backend(model_server).complete(ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": "hi"}]))

    assert error.value.code == ErrorCode.BAD_REQUEST
    assert "400: the prompt exceeds the context size" in error.value.message


def test_a_wrong_path_hints_at_the_v1_base(model_server):
    model_server.answer("Not Found", status=404)

    with pytest.raises(InferenceError, match=r"Check SHELFWISE_ROUTER_URL \(it should end in /v1\)"):
        _backend(model_server).complete(ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": "hi"}]))


def test_an_answer_without_choices_is_a_bad_response(model_server):
    model_server.answer({"object": "chat.completion", "choices": []})

    with pytest.raises(InferenceError) as error:
        _backend(model_server).complete(ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": "hi"}]))

    assert error.value.code == ErrorCode.BAD_RESPONSE


def test_warm_up_checks_that_the_server_serves_the_model(model_server):
    model_server.answer({"object": "list", "data": [{"id": "qwen-served"}]})
    model_server.answer({"object": "list", "data": [{"id": "llama-other"}]})
    backend = _backend(model_server)

    backend.warm_up()
    with pytest.raises(InferenceError, match="serves llama-other, not qwen-served. Check SHELFWISE_ROUTER_MODEL"):
        backend.warm_up()
    assert [(r.method, r.path) for r in model_server.requests] == [("GET", "/v1/models"), ("GET", "/v1/models")]


def test_a_role_configured_for_a_server_uses_it(model_server, monkeypatch):
    monkeypatch.setenv("SHELFWISE_GUARD_BACKEND", "openai")
    monkeypatch.setenv("SHELFWISE_GUARD_URL", model_server.url + "/")
    monkeypatch.setenv("SHELFWISE_GUARD_MODEL", "guard-model")
    monkeypatch.setenv("SHELFWISE_GUARD_API_KEY", "k")
    backends_reset()
    model_server.answer(_chat_answer('{"safe":true}'))
    try:
        backend = get_backend("guard")
        response = backend.complete(
            ModelRequest(role=Role.GUARD, messages=[{"role": "user", "content": "how much atta"}], json_schema={"type": "object"})
        )
    finally:
        backends_reset()

    assert backend.kind == "openai"
    assert response.parsed == {"safe": True}
    assert model_server.requests[0].body["model"] == "guard-model"
    assert model_server.requests[0].headers["Authorization"] == "Bearer k"
