"""The in-process llama.cpp backend. The test marked ``model`` runs the real bundled model."""

from __future__ import annotations

import os

import pytest

from inference.base import ErrorCode, InferenceError, ModelRequest, Role
from inference.config import backends_reset, get_backend
from inference.llamacpp import LlamaCppBackend

ACTIONS = [
    "general", "find_product", "list_products", "todays_sales", "store_health", "low_stock",
    "draft_restock", "update_count", "play_demo", "play_guide", "email_report",
]
ROUTER_RULES = (
    "You route a grocery store owner's request to one action.\n"
    "Actions:\n"
    "general: greetings, thanks, and questions that are not about the store's books\n"
    "find_product: where a product is, how many we have, its price, whether we carry it\n"
    "list_products: what the store sells\n"
    "todays_sales: what sold today and the takings\n"
    "store_health: how the store is doing overall\n"
    "low_stock: products running low\n"
    "draft_restock: order or restock products\n"
    "update_count: the owner says how many of a product are actually on the shelf\n"
    "play_demo: show the demo film\n"
    "play_guide: play an audio guide\n"
    "email_report: email a sales or inventory report\n"
    "Answer with the action only."
)


def test_a_file_that_is_not_a_model_is_reported_with_the_setting(tmp_path):
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("not a model")
    backend = LlamaCppBackend(role=Role.ROUTER, model_path=bogus, setting="SHELFWISE_ROUTER_MODEL")

    with pytest.raises(InferenceError) as error:
        backend.warm_up()

    assert error.value.code == ErrorCode.UNAVAILABLE
    assert str(bogus) in error.value.message
    assert "Check SHELFWISE_ROUTER_MODEL" in error.value.message


@pytest.mark.model
def test_the_bundled_model_answers_with_an_action_from_the_enum(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SHELFWISE_ROUTER_", "SHELFWISE_LLAMACPP_")):
            monkeypatch.delenv(name)
    backends_reset()
    backend = get_backend(Role.ROUTER)
    schema = {
        "type": "object",
        "properties": {"action": {"enum": ACTIONS}},
        "required": ["action"],
        "additionalProperties": False,
    }

    def route(words: str):
        return backend.complete(
            ModelRequest(
                role=Role.ROUTER,
                messages=[{"role": "system", "content": ROUTER_RULES}, {"role": "user", "content": words}],
                json_schema=schema,
                max_tokens=16,
            )
        )

    try:
        first = route("where did we put the gur")
        second = route("order more toor dal")
    finally:
        backends_reset()

    assert first.parsed == {"action": "find_product"}
    assert first.text == '{"action":"find_product"}'  # compact: no whitespace tokens to pay for
    assert second.parsed == {"action": "draft_restock"}
    # The system prompt was not evaluated again: only the new request's tokens were.
    assert second.cached_tokens is not None and second.cached_tokens >= first.prompt_tokens - 20
    assert second.completion_tokens < 12
