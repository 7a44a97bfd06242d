"""The scripted fake that replaces the model in pipeline tests: answers in order and records every request."""

from __future__ import annotations

import pytest

from inference.base import (
    ErrorCode,
    InferenceBackend,
    InferenceError,
    ModelRequest,
    ModelResponse,
    Role,
    ToolCall,
)
from inference.config import backend_override, get_backend
from inference.fake import FakeBackend

SCHEMA = {"type": "object", "properties": {"action": {"enum": ["general", "find_product"]}}, "required": ["action"]}


def _ask(text: str, **fields) -> ModelRequest:
    return ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": text}], **fields)


def test_the_fake_implements_the_backend_interface():
    assert isinstance(FakeBackend(), InferenceBackend)


def test_scripted_answers_come_back_in_order_and_every_request_is_recorded():
    fake = FakeBackend([{"action": "find_product"}, "Namaste! How can I help?"])

    routed = fake.complete(_ask("where is the gur", json_schema=SCHEMA))
    chatted = fake.complete(_ask("hello"))

    assert (routed.text, routed.parsed) == ('{"action":"find_product"}', {"action": "find_product"})
    assert (chatted.text, chatted.parsed) == ("Namaste! How can I help?", None)
    assert [r.messages[0]["content"] for r in fake.requests] == ["where is the gur", "hello"]
    assert fake.requests[0].json_schema == SCHEMA
    assert fake.remaining == 0


def test_text_is_parsed_when_the_request_asked_for_a_schema():
    fake = FakeBackend(['{"action": "general"}', "not json"])

    assert fake.complete(_ask("thanks", json_schema=SCHEMA)).parsed == {"action": "general"}
    assert fake.complete(_ask("thanks", json_schema=SCHEMA)).parsed is None


def test_a_callable_answers_from_the_request():
    fake = FakeBackend(default=lambda request: {"echo": request.messages[-1]["content"]})

    assert fake.complete(_ask("order more toor dal")).parsed == {"echo": "order more toor dal"}
    assert fake.complete(_ask("thanks")).parsed == {"echo": "thanks"}


def test_scripted_errors_are_raised_and_tool_calls_returned():
    call = ToolCall(name="get_inventory", arguments={"item": "atta"}, arguments_json='{"item":"atta"}')
    fake = FakeBackend([InferenceError(ErrorCode.TIMEOUT, "slow"), call, ModelResponse(text="done", completion_tokens=1)])

    with pytest.raises(InferenceError) as error:
        fake.complete(_ask("how much atta"))
    assert error.value.code == ErrorCode.TIMEOUT
    assert fake.complete(_ask("how much atta")).tool_calls == (call,)
    assert fake.complete(_ask("how much atta")).model == "fake"


def test_running_out_of_script_fails_loudly():
    fake = FakeBackend(["only answer"])
    fake.complete(_ask("one"))

    with pytest.raises(InferenceError, match="no scripted answer left for request 2"):
        fake.complete(_ask("two"))


def test_an_override_serves_the_role_and_is_undone_afterwards():
    fake = FakeBackend(["ok"])

    with backend_override("general", fake):
        assert get_backend("general") is fake
        get_backend(Role.GENERAL).warm_up()

    assert fake.warm_ups == 1
    assert get_backend("general") is not fake


def test_a_request_takes_messages_or_a_prompt_but_not_both():
    with pytest.raises(ValueError, match="either messages or a prompt"):
        ModelRequest(role=Role.ROUTER, messages=[{"role": "user", "content": "x"}], prompt="x")
    with pytest.raises(ValueError, match="either messages or a prompt"):
        ModelRequest(role=Role.ROUTER)
    with pytest.raises(ValueError):
        ModelRequest(role="nobody", prompt="x")
