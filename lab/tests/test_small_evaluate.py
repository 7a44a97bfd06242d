"""``smallmodel eval``'s scoring, with the small model replaced at its process boundary by a scripted
``FakeBackend`` (the same interface as llama.cpp's): what counts as an exact first call and a faithful
answer, and that an answer after a result gets the runtime's line budget, not one line's."""

from __future__ import annotations

from assistant.modes.small import runtime
from inference.fake import FakeBackend
from lab.small.evaluate import evaluate_records

RESULT = "34 products: " + ", ".join(f"Product {n}" for n in range(34))
RECORD = {"id": "dev-1", "lines": [
    {"tag": "Owner", "text": "what all do we carry", "train": False},
    {"tag": "Call", "text": 'get_inventory {"filter": "all"}', "train": True},
    {"tag": "Result", "text": RESULT, "train": False},
    {"tag": "Answer", "text": "We carry 34 products: Product 0, Product 1.", "train": True},
]}


def test_an_exact_first_call_and_a_faithful_answer_count_and_the_answer_gets_the_runtimes_budget():
    fake = FakeBackend([' Call: get_inventory {"filter": "all"}', " Answer: We carry 34 products: Product 0, Product 1."])
    counts = evaluate_records([RECORD], fake, catalog_names=[])
    assert (counts["first_call"], counts["first_call_exact"], counts["answers"], counts["answers_correct"]) == (1, 1, 1, 1)
    call, answer = fake.requests
    assert call.max_tokens == runtime.LINE_TOKENS
    assert answer.max_tokens == runtime.line_budget([{"tag": "Result", "text": RESULT}]) > runtime.LINE_TOKENS


def test_a_wrong_tool_and_a_wrong_number_are_failures():
    fake = FakeBackend([' Call: get_inventory {"item": "Atta"}', " Answer: We carry 35 products."])
    counts = evaluate_records([RECORD], fake, catalog_names=[])
    assert counts["first_call_tool"] == 1 and counts["first_call_exact"] == 0
    assert counts["answers_correct"] == 0
    assert [failure["step"] for failure in counts["failures"]] == ["call", "answer"]
