"""pass^k: the estimator against worked examples and brute force, and ``bench --repeat`` end to end.

The end-to-end tests run the real ``bench`` command through the real pipeline on fresh demo
stores; only the models are replaced at their process boundary by scripted FakeBackends, one of
which answers a turn wrongly on chosen trials, so pass^k has something to measure.
"""

from __future__ import annotations

import io
import itertools
import json
from math import isclose
from types import SimpleNamespace

import pytest

from lab.bench.passk import PassKError, Trial, pass_hat_k, passk_table, passk_text

# ---------------------------------------------------------------------------------------------
# The estimator


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 5, 5, 1.0),
    (5, 3, 1, 0.6),  # pass^1 is the pass rate
    (5, 3, 2, 0.3),  # C(3,2)/C(5,2) = 3/10
    (5, 3, 3, 0.1),  # C(3,3)/C(5,3) = 1/10
    (5, 3, 4, 0.0),  # fewer passes than k: never all k
    (4, 2, 2, 1 / 6),  # C(2,2)/C(4,2)
    (8, 6, 3, 20 / 56),  # C(6,3)/C(8,3)
    (3, 0, 1, 0.0),
])
def test_pass_hat_k_is_c_choose_k_over_n_choose_k(n, c, k, expected):
    assert isclose(pass_hat_k(n, c, k), expected)


@pytest.mark.parametrize(("n", "c"), [(5, 3), (6, 4), (7, 7), (7, 1)])
def test_pass_hat_k_is_the_share_of_k_subsets_of_the_trials_that_all_passed(n, c):
    trials = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(trials, k))
        assert isclose(pass_hat_k(n, c, k), sum(all(s) for s in subsets) / len(subsets))


@pytest.mark.parametrize(("n", "c", "k"), [(5, 3, 0), (5, 3, 6), (5, 6, 2), (5, -1, 1)])
def test_pass_hat_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def _trials(spec: dict[tuple[int, str], list[bool]]) -> list[Trial]:
    return [Trial(index=i, category=cat, say=f"turn {i}", passed=p) for (i, cat), seen in spec.items() for p in seen]


def test_the_table_averages_over_tasks_per_category_and_overall():
    table = passk_table(_trials({
        (1, "lookup"): [True] * 5,
        (2, "lookup"): [True, True, True, False, False],  # 3/5: 0.6, 0.3, 0.1, 0, 0
        (3, "restock"): [True, False, True, True, True],  # 4/5: 0.8, 0.6, 0.4, 0.2, 0
    }), k=5)
    assert table.k == 5 and table.trials == 5
    assert [t.c for t in table.tasks] == [5, 3, 4]
    assert table.tasks[1].values == pytest.approx((0.6, 0.3, 0.1, 0.0, 0.0))
    assert table.by_category["lookup"][0] == 2
    assert table.by_category["lookup"][1] == pytest.approx((0.8, 0.65, 0.55, 0.5, 0.5))
    assert table.by_category["restock"][1] == pytest.approx((0.8, 0.6, 0.4, 0.2, 0.0))
    assert table.overall == pytest.approx(((1 + 0.6 + 0.8) / 3, (1 + 0.3 + 0.6) / 3, (1 + 0.1 + 0.4) / 3,
                                           (1 + 0 + 0.2) / 3, 1 / 3))
    text = passk_text(table)
    assert "overall" in text and "pass^5" in text
    assert "Turns that failed at least one trial (2):" in text and "#2" in text and "3/5 passed" in text
    saved = table.as_dict()
    assert saved["overall"]["pass^1"] == pytest.approx(0.8) and saved["per_task"][2]["passed"] == 4


def test_k_defaults_to_the_fewest_trials_and_cannot_exceed_them():
    trials = _trials({(1, "a"): [True, True, False], (2, "a"): [True, True]})
    assert passk_table(trials).k == 2
    with pytest.raises(PassKError, match="pass\\^3 needs at least 3 trials of every task; task #2 has 2"):
        passk_table(trials, k=3)
    with pytest.raises(PassKError, match="No trials"):
        passk_table([])


def test_two_different_tasks_under_one_index_are_refused():
    trials = [Trial(1, "a", "hi", True), Trial(1, "a", "hello", True)]
    with pytest.raises(PassKError, match="not of the same suite"):
        passk_table(trials)


# ---------------------------------------------------------------------------------------------
# bench --repeat, the real pipeline, scripted models

SUITE = {"version": 1, "name": "mini-passk", "store": "demo", "turns": [
    {"say": "how many bags of chana dahl are left", "category": "lookup",
     "expect": {"tools": ["get_inventory"], "args": {"get_inventory": {"item": "Chana dal"}},
                "reply_stock_of": "Chana dal", "ledger_unchanged": True}},
    {"say": "where do we keep the basmati", "category": "lookup",
     "expect": {"tools": ["get_inventory"], "args": {"get_inventory": {"item": "Basmati rice"}}}},
]}


def _request_text(request) -> str:
    return str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1].removesuffix("JSON:").strip()


class FlakyRouter:
    """Answers the chana question right except on the listed calls of it (1-based), where it plays the demo video."""

    def __init__(self, wrong_on: set[int]) -> None:
        self.wrong_on, self.chana_calls = wrong_on, 0

    def __call__(self, request) -> dict:
        text = _request_text(request)
        if "chana" in text:
            self.chana_calls += 1
            if self.chana_calls in self.wrong_on:
                return {"action": "play_demo"}
            return {"action": "find_product", "item": "chana dal", "ask": "count"}
        return {"action": "find_product", "item": "basmati", "ask": "where"}


@pytest.fixture
def models():
    from inference.base import Role
    from inference.config import backend_override
    from inference.fake import FakeBackend

    script = FlakyRouter(wrong_on={2})
    router = FakeBackend(default=script)
    with backend_override(Role.ROUTER, router), \
            backend_override(Role.GUARD, FakeBackend(default={"verdict": "safe", "category": "none"})), \
            backend_override(Role.GENERAL, FakeBackend()):
        yield SimpleNamespace(router=router, script=script)


@pytest.fixture(autouse=True)
def _no_fast_path(monkeypatch):
    monkeypatch.setenv("SHELFWISE_FAST_PATH", "0")  # every decision is the (scripted) router model's


@pytest.mark.django_db
def test_bench_repeat_reports_pass_k_per_turn_category_and_overall(tmp_path, models):
    from django.core.management import call_command

    from assistant.models import BenchmarkRun

    suite = tmp_path / "mini.json"
    suite.write_text(json.dumps(SUITE))
    out_json, output = tmp_path / "out.json", io.StringIO()
    call_command("bench", "--suite", str(suite), "--repeat", "3", "--no-warm", "--no-progress",
                 "--json", str(out_json), stdout=output)

    text = output.getvalue()
    assert models.script.chana_calls == 3
    assert "== pass^k (3 runs) ==" in text
    # turn 1 passed 2 of 3 (pass^1 2/3, pass^2 1/3, pass^3 0); turn 2 passed all three
    assert "  #1    lookup          2/3 passed  pass^3 0.000" in text
    assert f"{'overall':<24}{2:>5}{(2 / 3 + 1) / 2:>9.3f}{(1 / 3 + 1) / 2:>9.3f}{0.5:>9.3f}" in text
    saved = json.loads(out_json.read_text())
    assert saved["passk"]["k"] == 3 and saved["passk"]["by_category"]["lookup"]["pass^3"] == 0.5
    assert [t["passed"] for t in saved["passk"]["per_task"]] == [2, 3]
    groups = {run.settings["passk_group"] for run in BenchmarkRun.objects.all()}
    assert len(groups) == 1 and BenchmarkRun.objects.count() == 3


@pytest.mark.django_db
def test_pieces_under_one_group_add_up(tmp_path, models):
    from django.core.management import call_command

    suite = tmp_path / "mini.json"
    suite.write_text(json.dumps(SUITE))
    call_command("bench", "--suite", str(suite), "--repeat", "2", "--group", "g1", "--no-warm", "--no-progress",
                 stdout=io.StringIO())
    output = io.StringIO()
    call_command("bench", "--suite", str(suite), "--repeat", "2", "--group", "g1", "--k", "4", "--no-warm",
                 "--no-progress", stdout=output)

    text = output.getvalue()
    assert "== pass^k (group g1: 4 stored runs, 2 of them just now) ==" in text
    assert "  #1    lookup          3/4 passed  pass^4 0.000" in text


def test_bench_refuses_bad_repeat_arguments(db, tmp_path):
    from django.core.management import CommandError, call_command

    suite = tmp_path / "mini.json"
    suite.write_text(json.dumps(SUITE))
    with pytest.raises(CommandError, match="--repeat must be at least 1"):
        call_command("bench", "--suite", str(suite), "--repeat", "0")
    with pytest.raises(CommandError, match="--k must be between 1 and --repeat \\(2\\)"):
        call_command("bench", "--suite", str(suite), "--repeat", "2", "--k", "3")
    with pytest.raises(CommandError, match="--start and --fast-path are for --routing"):
        call_command("bench", "--suite", str(suite), "--start", "2")


ROUTING = {"actions": ["general", "find_product"], "items": [
    {"id": "a", "say": "how many bags of chana dahl are left", "action": "find_product", "item": "Chana dal"},
    {"id": "b", "say": "where's the basmati", "action": "find_product", "item": "Basmati rice"},
    {"id": "c", "say": "what's the capital of france", "action": "general"},
]}


@pytest.mark.django_db
def test_bench_routing_repeats_each_utterance_and_reports_pass_k(tmp_path, models):
    from django.core.management import call_command

    from assistant.models import BenchmarkRun

    routing = tmp_path / "routing.json"
    routing.write_text(json.dumps(ROUTING))
    output = io.StringIO()
    call_command("bench", "--routing", str(routing), "--start", "1", "--limit", "2", "--repeat", "2",
                 "--no-warm", "--no-progress", stdout=output)

    text = output.getvalue()
    assert "utterances 1-2 of 3, 2 trial(s) each" in text
    assert "== pass^k (2 runs) ==" in text and "pass^k over 2 trials per utterance" in text
    assert "  #1    find_product    1/2 passed  pass^2 0.000" in text
    runs = list(BenchmarkRun.objects.order_by("run_number"))
    assert [(r.suite, r.turns_total, r.turns_passed) for r in runs] == [("routing:routing", 2, 2),
                                                                        ("routing:routing", 2, 1)]
    assert models.script.chana_calls == 2
