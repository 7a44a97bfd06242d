"""The three-mode comparison (``dashboard.comparison``, ``manage.py compare_modes``, ``/ops/metrics/compare/``).

The runs it reads are stored by the real ``bench`` command running a two-turn suite through the
real pipeline in each mode; only the models are replaced, at their process boundary, by
``FakeBackend``s: a router that gets both turns right, a native model that only ever says it has
no tool (the paper's failure), and a small model that calls a tool and answers.
"""

from __future__ import annotations

import io
import json
from contextlib import ExitStack, contextmanager

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from assistant.models import BenchmarkRun
from dashboard.comparison import comparison_build
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from shelfwise.stats import mcnemar_exact, wilson
from tests.factories import UserFactory

SUITE = {"version": 1, "name": "mini-compare", "store": "demo", "turns": [
    {"say": "how many bags of chana dal are left", "category": "lookup",
     "expect": {"tools": ["get_inventory"], "reply_stock_of": "Chana dal", "ledger_unchanged": True}},
    {"say": "play the demo video", "category": "media", "expect": {"media": "video"}},
]}


def _owner_words(request) -> str:
    return str(request.messages[-1]["content"] if request.messages else request.prompt).rsplit("Request:", 1)[-1]


def _router(request) -> dict:
    text = _owner_words(request)
    return {"action": "play_demo"} if "demo" in text else {"action": "find_product", "item": "chana dal", "ask": "count"}


def _small(request) -> str:
    prompt = request.prompt or ""
    if "### Result:" in prompt.rsplit("### Owner:", 1)[-1]:
        return " Answer: Here you are."
    owner = prompt.rsplit("### Owner:", 1)[-1]
    return " Call: play_demo {}" if "demo" in owner else ' Call: get_inventory {"item": "chana dal"}'


@contextmanager
def _models():
    with ExitStack() as stack:
        for role, backend in ((Role.ROUTER, FakeBackend(default=_router)),
                              (Role.NATIVE, FakeBackend(default="I do not have a tool to play videos.")),
                              (Role.SMALL, FakeBackend(default=_small)),
                              (Role.GUARD, FakeBackend(default={"verdict": "safe", "category": "none"})),
                              (Role.GENERAL, FakeBackend(default="Happy to help!"))):
            stack.enter_context(backend_override(role, backend))
        yield


@pytest.fixture
def stored_runs(db, tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", "hardened")
    suite = tmp_path / "mini.json"
    suite.write_text(json.dumps(SUITE))
    with _models():
        for mode, repeat in (("router", "2"), ("native", "1"), ("small", "1")):
            call_command("bench", "--suite", str(suite), "--mode", mode, "--repeat", repeat, "--no-warm",
                         "--no-progress", stdout=io.StringIO())
    return {mode: list(BenchmarkRun.objects.filter(mode=mode).order_by("id")) for mode in ("router", "native", "small")}


def test_the_comparison_reads_each_modes_stored_runs(stored_runs):
    comparison = comparison_build(suite="mini-compare", last=3).as_dict()

    router, native, small = comparison["columns"]
    assert [c["label"] for c in comparison["columns"]] == ["router", "native (hardened)", "small"]
    assert [r["id"] for r in router["runs"]] == [run.pk for run in stored_runs["router"]]
    assert router["overall"]["passed"] == 4 and router["overall"]["total"] == 4
    assert router["overall"]["ci95"] == pytest.approx(list(wilson(4, 4)))
    assert router["categories"]["media"]["passed"] == 2
    assert native["overall"]["passed"] == 0 and native["failed_turns"] == 2
    assert native["failures"]["action or tool"] == 1 and native["failures"]["media"] == 1
    assert native["failures"]["facts said"] == 1
    stored = stored_runs["small"][0]
    assert small["overall"]["passed"] == stored.turns_passed and small["overall"]["total"] == 2
    assert "router" in router["roles"] and "native" in native["roles"] and "small" in small["roles"]
    assert router["roles"]["router"]["n"] == 4  # one router call per turn
    assert router["per_turn"]["tokens_mean"] > 0 and router["per_turn"]["turns_with_tokens"] == 4
    pair = next(p for p in comparison["pairs"] if (p["a"], p["b"]) == ("router", "native (hardened)"))
    assert (pair["pairs"], pair["only_a"], pair["only_b"]) == (2, 2, 0)  # router's run 1 against native's run 1
    assert pair["p"] == pytest.approx(mcnemar_exact(2, 0))


def test_compare_modes_writes_markdown_json_and_charts(stored_runs, tmp_path):
    out = io.StringIO()
    call_command("compare_modes", "--suite", "mini-compare", "--last", "2", "--out", str(tmp_path / "cmp"), stdout=out)

    report = (tmp_path / "cmp" / "report.md").read_text()
    assert "| **pass rate** (95% CI) | 100.0% (51–100) | 0.0% (0–66) |" in report
    assert "| lookup | 100.0% (34–100) | 0.0% (0–79) |" in report
    assert "| router vs native (hardened) | 2 | 2 | 0 | 0.5 |" in report
    assert "![pass_rate](pass_rate.png)" in report
    for chart in ("pass_rate", "categories", "roles", "tokens", "failures"):
        assert (tmp_path / "cmp" / f"{chart}.png").read_bytes().startswith(b"\x89PNG")
    saved = json.loads((tmp_path / "cmp" / "report.json").read_text())
    assert saved["columns"][0]["overall"]["passed"] == 4


def test_compare_modes_says_what_is_wrong_and_writes_nothing(stored_runs, tmp_path):
    with pytest.raises(CommandError, match="--runs takes run ids"):
        call_command("compare_modes", "--runs", "12,x", "--out", str(tmp_path / "a"))
    with pytest.raises(CommandError, match="No finished full run of the suite 'nope'.*Suites with runs: mini-compare"):
        call_command("compare_modes", "--suite", "nope", "--out", str(tmp_path / "b"))
    with pytest.raises(CommandError, match="Compare the last 1 to 20 runs"):
        call_command("compare_modes", "--last", "0", "--out", str(tmp_path / "c"))
    assert not any((tmp_path / name).exists() for name in "abc")


def test_the_compare_page_shows_the_same_figures_to_platform_admins_only(stored_runs, owner):
    admin = Client()
    admin.force_login(UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True))

    page = admin.get("/ops/metrics/compare/", {"suite": "mini-compare", "last": 3})

    assert page.status_code == 200
    html = page.content.decode()
    assert "100.0% (51–100)" in html and "0.0% (0–66)" in html and "native (hardened)" in html
    assert page.context["comparison"]["columns"][0]["overall"]["passed"] == 4
    assert admin.get("/ops/metrics/compare/", {"suite": "nope"}).status_code == 400
    other = Client()
    other.force_login(owner)
    assert other.get("/ops/metrics/compare/", {"suite": "mini-compare"}).status_code == 403


def test_without_stored_runs_the_page_says_how_to_make_some_and_the_command_refuses(db):
    admin = Client()
    admin.force_login(UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True))
    page = admin.get("/ops/metrics/compare/")
    assert page.status_code == 200 and "No finished benchmark run yet" in page.content.decode()
    with pytest.raises(CommandError, match="No finished benchmark run yet"):
        call_command("compare_modes")
