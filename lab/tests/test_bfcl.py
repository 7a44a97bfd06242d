"""BFCL on the project's backends: BFCL's data and AST checker (the bfcl-eval package), its decoding
rules, the two harnesses (the model's own tool-call format under a grammar; the JSON list), the
sample outside the dev slice, and the command.

The model is replaced at its process boundary by ``inference.fake.FakeBackend`` (the command's
``backend_for`` hands it out, as in the reliability benchmark's tests); what it answers for the
command's run is built from BFCL's own possible answers, so the checker has something right to pass
and something wrong (prose) to fail.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from inference.fake import FakeBackend
from lab.bfcl import conditions, native_harness
from lab.bfcl.checker import DecodeError, decode_calls, score
from lab.bfcl.data import DEV_SLICE, BfclDataError, Entry, entries, sample
from lab.reliability import models as model_registry
from shelfwise.stats import mcnemar_exact

pytest.importorskip("bfcl_eval")


def _clock():
    ticks = iter(range(10_000))
    return lambda: next(ticks) / 1000


@pytest.mark.parametrize("text, calls", [
    ("[calculate_triangle_area(base=10, height=5)]", [{"calculate_triangle_area": {"base": 10, "height": 5}}]),
    ("```\nmath.factorial(number=5)\n```", [{"math.factorial": {"number": 5}}]),
    ("[f(a=-3, b=[1, 2], c={'k': 'v'}, d=2*3), g(x='y')]",
     [{"f": {"a": -3, "b": [1, 2], "c": {"k": "v"}, "d": 6}}, {"g": {"x": "y"}}]),
])
def test_answers_decode_as_bfcl_reads_them(text, calls):
    assert decode_calls(text) == calls


@pytest.mark.parametrize("text", ["Sure! The area is 25.", "[1, 2]", "f(a=1"])
def test_prose_and_broken_calls_do_not_decode(text):
    with pytest.raises(DecodeError):
        decode_calls(text)


def test_bfcls_own_checker_scores_a_real_entry_both_ways():
    [entry] = entries("simple_python", limit=1)
    assert entry.id == "simple_python_0" and entry.answer
    assert score(entry, [{"calculate_triangle_area": {"base": 10, "height": 5}}]) == (True, "")
    passed, error = score(entry, [{"calculate_triangle_area": {"base": 10, "height": 6}}])
    assert not passed and error.startswith("value_error")
    assert score(entry, None) == (False, "ast_decoder:decoder_failed")


def test_irrelevance_passes_without_a_call_and_relevance_with_one():
    [irrelevant] = entries("irrelevance", limit=1)
    assert score(irrelevant, None) == (True, "") and score(irrelevant, []) == (True, "")
    assert score(irrelevant, [{"determine_body_mass_index": {"weight": 1, "height": 2}}])[0] is False
    [relevant] = entries("live_relevance", limit=1)
    assert score(relevant, [{"generate_image": {"prompt": "x"}}]) == (True, "")
    assert score(relevant, None) == (False, "relevance:no_call")


def test_an_unknown_category_is_named():
    with pytest.raises(BfclDataError, match="Unknown category 'simple_rust'"):
        entries("simple_rust")


def test_the_harness_schema_takes_bfcl_types_and_refuses_another_function():
    import jsonschema

    [entry] = entries("simple_python", limit=1)
    schema = conditions.calls_schema(list(entry.functions))
    jsonschema.validate({"calls": [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]}, schema)
    jsonschema.validate({"calls": []}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"calls": [{"name": "area", "arguments": {}}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"calls": [{"name": "calculate_triangle_area", "arguments": {"base": "ten"}}]}, schema)
    assert conditions.json_type({"type": "dict", "properties": {"x": {"type": "float"}, "t": {"type": "tuple",
                                 "items": {"type": "integer"}}}, "required": ["x"]}) == {
        "type": "object", "properties": {"x": {"type": "number"}, "t": {"type": "array", "items": {"type": "integer"}}},
        "required": ["x"]}


def test_the_shortlist_keeps_the_functions_the_question_names():
    many = [entry for entry in entries("live_multiple", limit=60) if len(entry.functions) > conditions.SHORTLIST][0]
    kept = conditions.shortlist(many)
    assert len(kept) == conditions.SHORTLIST and all(f in many.functions for f in kept)
    named = Entry(id="x", category="live_multiple", messages=({"role": "user", "content": "book a taxi to the airport"},),
                  functions=tuple({"name": f"tool_{i}", "description": "plays music"} for i in range(6))
                  + ({"name": "taxi.book", "description": "Book a taxi ride to a place"},), answer=None)
    assert "taxi.book" in {f["name"] for f in conditions.shortlist(named)}
    [few] = entries("simple_python", limit=1)
    assert conditions.shortlist(few) == list(few.functions)


def test_the_json_harness_repairs_once_then_gives_up():
    [entry] = entries("simple_python", limit=1)
    right = {"calls": [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]}
    fake = FakeBackend(["Here you go: area(10, 5)", json.dumps(right)])
    answer = conditions.harness_json(fake, entry, _clock())
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}] and answer.model_calls == 2
    assert all(request.json_schema is not None for request in fake.requests)
    assert "not JSON" in fake.requests[1].messages[-1]["content"]

    twice = conditions.harness_json(FakeBackend(["nope", "still nope"]), entry, _clock())
    assert twice.calls is None and twice.model_calls == 2 and score(entry, twice.calls)[0] is False


# A stand-in for a GGUF's chat template, in Qwen2.5's shape (tools in the system message, <tool_call> blocks);
# the harness renders whatever template the model file carries.
TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}\n{% endif %}"
    "<tools>{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools><|im_end|>\n{%- endif %}"
    "{%- for message in messages if message['role'] != 'system' %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{%- endfor %}<|im_start|>assistant\n"
)
RIGHT_CALL = '<tool_call>\n{"name":"calculate_triangle_area","arguments":{"base":10,"height":5}}\n</tool_call>'


def test_the_harness_declares_the_shortlist_in_the_models_template_and_constrains_the_calls():
    [entry] = entries("simple_python", limit=1)
    fake = FakeBackend([RIGHT_CALL])
    answer = native_harness.harness(fake, entry, _clock(), chat_template=TEMPLATE)
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}] and answer.model_calls == 1
    assert score(entry, answer.calls) == (True, "")
    [request] = fake.requests
    assert request.json_schema is None and request.grammar.startswith("%llguidance")
    assert '"const": "calculate_triangle_area"' in request.grammar and "start: prose | prose? calls" in request.grammar
    assert '"name": "calculate_triangle_area"' in request.prompt and entry.messages[0]["content"] in request.prompt
    assert "The base of the triangle." in request.prompt  # the parameters' descriptions, as plain prompting shows them


def test_the_harness_reads_a_fenced_call_after_a_sentence_as_qwen_writes_it():
    [entry] = entries("simple_python", limit=1)
    fenced = 'You can use calculate_triangle_area:\n\n```json\n' + RIGHT_CALL.split("\n")[1] + "\n```"
    answer = native_harness.harness(FakeBackend([fenced]), entry, _clock(), chat_template=TEMPLATE)
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}]


def test_the_harness_reads_prose_as_no_call_so_an_irrelevant_request_passes():
    [irrelevant] = entries("irrelevance", limit=1)
    answer = native_harness.harness(FakeBackend(["None of these functions can do that."]), irrelevant, _clock(),
                                    chat_template=TEMPLATE)
    assert answer.calls == [] and score(irrelevant, answer.calls) == (True, "")
    [entry] = entries("simple_python", limit=1)
    assert score(entry, native_harness.harness(FakeBackend(["The area is 25."]), entry, _clock(),
                                               chat_template=TEMPLATE).calls)[0] is False


def test_the_harness_repairs_an_undeclared_argument_once_then_gives_up():
    [entry] = entries("simple_python", limit=1)
    extra = RIGHT_CALL.replace('"height":5', '"height":5,"colour":"red"')
    fake = FakeBackend([extra, RIGHT_CALL])
    answer = native_harness.harness(fake, entry, _clock(), chat_template=TEMPLATE)
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}] and answer.model_calls == 2
    assert "That tool call was invalid: the arguments of calculate_triangle_area do not fit" in fake.requests[1].prompt
    twice = native_harness.harness(FakeBackend([extra, extra]), entry, _clock(), chat_template=TEMPLATE)
    assert twice.calls is None and twice.model_calls == 2 and "do not fit" in twice.error


def test_the_sample_is_seeded_grows_by_extension_and_leaves_out_the_dev_slice():
    dev = {entry.id for entry in entries("parallel", limit=DEV_SLICE)}
    ten = [entry.id for entry in sample("parallel", 10, seed=2026)]
    assert ten == [entry.id for entry in sample("parallel", 10, seed=2026)] and len(set(ten)) == 10
    assert [entry.id for entry in sample("parallel", 4, seed=2026)] == ten[:4] and not dev & set(ten)
    assert [entry.id for entry in sample("parallel", 4, seed=2026, skip=2)] == ten[2:4]
    assert ten != [entry.id for entry in sample("parallel", 10, seed=7)]
    assert len(sample("live_relevance", 100, seed=2026)) == len(entries("live_relevance")) - DEV_SLICE


def test_plain_sends_bfcls_prompt_and_decodes_the_free_text():
    [entry] = entries("simple_python", limit=1)
    fake = FakeBackend(["[calculate_triangle_area(base=10, height=5)]"])
    answer = conditions.plain(fake, entry, _clock())
    assert answer.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}]
    [request] = fake.requests
    assert request.json_schema is None
    assert request.messages[0]["content"].startswith("You are an expert in composing functions.")
    assert '"calculate_triangle_area"' in request.messages[0]["content"]
    assert request.messages[1] == {"role": "user", "content": entry.messages[0]["content"]}


def _oracle(chosen):
    """A scripted model: prose under plain prompting, BFCL's first possible answer under the harness."""

    def answer(request):
        if request.grammar is None:
            return "I would call a function for that."
        [entry] = [entry for entry in chosen if entry.messages[-1]["content"] in request.prompt]
        calls = [{"name": name, "arguments": {key: values[0] for key, values in arguments.items() if values[0] != ""}}
                 for option in entry.answer for name, arguments in option.items()]
        return "\n".join(f"<tool_call>\n{json.dumps(call)}\n</tool_call>" for call in calls)

    return answer


def test_the_command_runs_both_conditions_resumes_and_reports(tmp_path, monkeypatch):
    chosen = entries("simple_python", limit=3)
    fake = FakeBackend(default=_oracle(chosen))
    monkeypatch.setattr(model_registry, "backend_for", lambda spec, **options: fake)
    argv = ["--model", "smollm2-135m", "--categories", "simple_python", "--limit", "3", "--out", str(tmp_path)]

    out = io.StringIO()
    call_command("bfcl", "run", *argv, stdout=out)
    assert "plain: 3 answered now" in out.getvalue() and "harness: 3 answered now" in out.getvalue()
    again = io.StringIO()
    call_command("bfcl", "run", *argv, stdout=again)
    assert "plain: 0 answered now" in again.getvalue() and len(fake.requests) == 6 and fake.warm_ups == 2

    report = io.StringIO()
    call_command("bfcl", "report", "--out", str(tmp_path), stdout=report)
    summary = json.loads((tmp_path / "report.json").read_text())["models"]["smollm2-135m"]
    assert summary["conditions"]["harness"]["simple_python"]["passed"] == 3
    assert summary["conditions"]["plain"]["simple_python"]["passed"] == 0
    assert summary["mcnemar"]["harness"]["all"] == {"pairs": 3, "only_plain": 0, "only_harness": 3, "p": mcnemar_exact(0, 3)}
    assert "| simple_python | 0% (0–56), n=3 | 100% (44–100), n=3 | 0 / 3, p = 0.25 (3 pairs) |" in report.getvalue()


def test_the_command_says_what_is_wrong(tmp_path):
    with pytest.raises(CommandError, match="No results under"):
        call_command("bfcl", "report", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="run needs --model"):
        call_command("bfcl", "run", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="--conditions are some of: plain, harness, harness-tag, harness-select, harness-json"):
        call_command("bfcl", "run", "--model", "smollm2-135m", "--conditions", "greedy", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="--limit .* or --sample .*, not both"):
        call_command("bfcl", "run", "--model", "smollm2-135m", "--limit", "2", "--sample", "2", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="Unknown category 'web_search'"):
        call_command("bfcl", "run", "--model", "smollm2-135m", "--categories", "web_search", "--out", str(tmp_path))
