"""The classify-then-extract harness (``harness-select``): the enum plan, the calls-only grammar,
validation and one repair, and BFCL's checker on what it returns.

The model is replaced at its process boundary by ``inference.fake.FakeBackend`` (the interface of
the real backends, recording every request); the grammars themselves are exercised on the real
model by ``bfcl run``, not here.
"""

from __future__ import annotations

import json

import pytest

from inference.fake import FakeBackend
from lab.bfcl import select_harness
from lab.bfcl.checker import score
from lab.bfcl.data import entries
from lab.bfcl.runner import answerer
from lab.tests.test_bfcl import RIGHT_CALL, TEMPLATE, _clock

pytest.importorskip("bfcl_eval")


def test_the_plan_is_an_enum_of_the_shortlisted_names_or_none():
    [entry] = entries("simple_python", limit=1)
    fake = FakeBackend([{"calls": [{"function": "calculate_triangle_area", "for": "the triangle"}]}, RIGHT_CALL])
    answer = select_harness.harness_select(fake, entry, _clock(), chat_template=TEMPLATE)
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}] and answer.model_calls == 2
    assert score(entry, answer.calls) == (True, "")
    plan, calls = fake.requests
    item = plan.json_schema["properties"]["calls"]["items"]
    assert item["properties"]["function"] == {"enum": ["calculate_triangle_area", "none"]}
    assert plan.grammar is None and "calculate_triangle_area(base, height, unit)" in plan.messages[0]["content"]
    assert "calculate_triangle_area (the triangle)" in calls.prompt and calls.json_schema is None and "prose" not in calls.grammar and "start: call0\n" in calls.grammar
    assert '"const": "calculate_triangle_area"' in calls.grammar and "The base of the triangle." in calls.prompt


def test_none_makes_no_call_and_no_second_request_so_an_irrelevant_request_passes():
    [irrelevant] = entries("irrelevance", limit=1)
    fake = FakeBackend([{"calls": [{"function": "none", "for": "the triangle"}]}])
    answer = select_harness.harness_select(fake, irrelevant, _clock(), chat_template=TEMPLATE)
    assert answer.calls == [] and answer.model_calls == 1 and len(fake.requests) == 1
    assert score(irrelevant, answer.calls) == (True, "")


def test_a_parallel_plan_fixes_the_number_and_order_of_the_calls():
    [entry] = entries("parallel", limit=1)
    name = entry.functions[0]["name"]
    grammar = select_harness.extract_grammar([name, name, name], list(entry.functions))
    assert grammar.count("<tool_call>") == 3 and 'start: call0 "\\n" call1 "\\n" call2\n' in grammar
    two = {"calls": [{"function": name, "for": "Taylor Swift"}, {"function": name, "for": "Maroon 5"}]}
    assert select_harness.plan_read(json.dumps(two), [name]) == [(name, "Taylor Swift"), (name, "Maroon 5")]
    assert select_harness.plan_read(json.dumps({"calls": [{"function": "other", "for": "the triangle"}]}), [name]) is None
    assert select_harness.plan_read("not json", [name]) is None


def test_fewer_calls_than_planned_are_repaired_once_then_count_as_no_call():
    [entry] = entries("simple_python", limit=1)
    plan = {"calls": [{"function": "calculate_triangle_area", "for": "one"}, {"function": "calculate_triangle_area", "for": "two"}]}
    second = RIGHT_CALL.replace('"base":10', '"base":4')
    fake = FakeBackend([plan, RIGHT_CALL, RIGHT_CALL + "\n" + second])
    answer = select_harness.harness_select(fake, entry, _clock(), chat_template=TEMPLATE)
    assert answer.model_calls == 3 and len(answer.calls) == 2 and answer.text.startswith("plan: ")
    assert "2 calls were planned, 1 written" in fake.requests[2].prompt
    twice = select_harness.harness_select(FakeBackend([plan, RIGHT_CALL, RIGHT_CALL]), entry, _clock(),
                                          chat_template=TEMPLATE)
    assert twice.calls is None and twice.model_calls == 3 and "planned" in twice.error


def test_a_plan_that_does_not_parse_is_no_call_and_the_condition_needs_a_template():
    [entry] = entries("simple_python", limit=1)
    answer = select_harness.harness_select(FakeBackend(["{"]), entry, _clock(), chat_template=TEMPLATE)
    assert answer.calls is None and answer.error == "the select step gave no plan"
    with pytest.raises(ValueError, match="chat template"):
        answerer("harness-select", chat_template=None)
