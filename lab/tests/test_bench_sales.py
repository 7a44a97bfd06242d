"""The owner-session check of sales answers (``reply_sales``): pure rules, then through the bench with the
real pipeline on the demo store (the router model faked at its process boundary)."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest

from lab.bench.sales_check import result_numbers, sales_failure, suite_problem
from lab.bench.suite import SuiteError, suite_parse

RESULT = {
    "currency": "USD", "timezone": "America/Chicago",
    "period": {"label": "yesterday", "unit": "day", "from": "2026-12-02", "to": "2026-12-02", "days": 1,
               "running": False, "start": "2026-12-02T00:00:00-06:00", "end": "2026-12-03T00:00:00-06:00"},
    "receipts": 34, "revenue": "961.38", "unitsSold": 112, "averageBasket": "28.28", "revenuePerDay": "961.38",
    "givenBack": "0.00",
    "focus": {"name": "Ghee", "units": 8, "revenue": "143.92"},
    "comparison": {"receipts": 30, "revenue": "900.00", "focus": {"name": "Ghee", "units": 0, "revenue": "0.00"},
                   "change": {"focusUnits": {"delta": 8, "percent": None}, "revenue": {"delta": "61.38", "percent": 6.8}}},
}


def test_the_result_gives_its_figures_changes_without_sign_and_a_dates_day_and_year_but_not_times():
    numbers = result_numbers({**RESULT, "change": {"revenue": {"delta": "-61.38", "percent": -6.8}}})
    assert {34, 112} <= numbers and {961, 961.38, 61.38, 6.8, 2, 2026} <= {float(n) for n in numbers}
    assert 3 not in numbers and 12 not in numbers  # the month is said by name; the end moment never


def test_a_reply_passes_when_its_numbers_are_the_results_and_the_asked_figures_are_said():
    reply = "Yesterday (Wed 2 Dec), we sold 8 Ghee for $143.92. The day before: no Ghee, so up 8."
    assert sales_failure({"say": ["focus.units", "focus.revenue", "comparison.focus.units"]}, reply=reply,
                         result=RESULT) is None
    assert sales_failure({"say": ["focus.name"]}, reply="Ghee sold eight.", result=RESULT) is None
    nothing = {**RESULT, "comparison": {**RESULT["comparison"], "revenue": "0.00"}}
    assert sales_failure({"say": ["comparison.revenue"]}, reply="Last week: no sales recorded.", result=nothing) is None
    assert sales_failure({"say": ["comparison.revenue"]}, reply="Last week: 34 receipts.", result=nothing) is not None


def test_a_number_not_in_the_result_or_a_figure_not_said_fails_and_says_which():
    made_up = sales_failure({"say": ["focus.units"]}, reply="Yesterday we sold 8 Ghee, about 9 jars.", result=RESULT)
    assert made_up.startswith("said 9, not in get_sales' result")
    missing = sales_failure({"say": ["revenue"]}, reply="Yesterday: 34 receipts.", result=RESULT)
    assert missing.startswith("revenue = 961.38 not said")
    assert "not in get_sales' result" in sales_failure({"say": ["rows.0.name"]}, reply="34", result=RESULT)
    assert sales_failure({}, reply="34", result={"error": "no such period"}).startswith("the bench's own get_sales failed")
    assert sales_failure({}, reply="34", result=None).startswith("no get_sales result")


def test_the_suite_refuses_a_malformed_reply_sales_naming_the_turn():
    assert suite_problem({"args": {"period": "yesterday"}, "say": ["revenue", "rows.0.name"]}) is None
    assert "unknown get_sales argument 'when'" in suite_problem({"args": {"when": "yesterday"}})
    assert "result paths" in suite_problem({"args": {}, "say": ["rows..0"]})
    assert "must be an object" in suite_problem(["yesterday"])
    turn = {"say": "how much atta", "category": "sales_period",
            "expect": {"reply_sales": {"args": {"period": "this month", "item": "Atta flour"}, "say": []}}}
    with pytest.raises(SuiteError, match="turn 1.*reply_sales.*Atta flour"):
        suite_parse({"version": 1, "name": "s", "store": "demo", "turns": [turn]}, catalog={"Atta"}, tools={"get_sales"})


def _router(request):
    text = str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1]
    if "atta" in text:
        return {"action": "sales_period", "item": "atta"}
    return {"action": "sales_period"}


SUITE = {"version": 1, "name": "periods", "store": "demo", "turns": [
    {"say": "hello there", "category": "greeting", "expect": {"reply_any": ["never said"]}},  # left out by --category
    {"say": "how did we do yesterday", "category": "sales_period",
     "expect": {"tools": ["get_sales"], "ledger_unchanged": True,
                "reply_sales": {"args": {"period": "yesterday"}, "say": ["receipts", "revenue"]}}},
    {"say": "how many bags of atta did we sell last week", "category": "sales_period",
     "expect": {"tools": ["get_sales"],
                "reply_sales": {"args": {"period": "last week", "item": "Atta"}, "say": ["focus.units"]}}},
    {"say": "how did we do yesterday", "category": "sales_period",  # checked against the wrong period: must fail
     "expect": {"reply_sales": {"args": {"period": "last week"}, "say": ["revenue"]}}},
]}


@pytest.mark.django_db
def test_the_bench_checks_sales_replies_against_its_own_get_sales_on_the_demo_store(tmp_path):
    from django.core.management import CommandError, call_command

    from assistant.models import BenchmarkRun
    from inference.base import Role
    from inference.config import backend_override
    from inference.fake import FakeBackend

    suite = tmp_path / "periods.json"
    suite.write_text(json.dumps(SUITE))
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    with backend_override(Role.ROUTER, FakeBackend(default=_router)), backend_override(Role.GUARD, guard):
        with pytest.raises(CommandError, match="no category 'sales'; it has: greeting, sales_period"):
            call_command("bench", "--suite", str(suite), "--category", "sales", stdout=io.StringIO())
        call_command("bench", "--suite", str(suite), "--mode", "router", "--category", "sales_period", "--no-warm",
                     "--no-progress", stdout=io.StringIO())

    turns = list(BenchmarkRun.objects.get().results.order_by("index"))
    assert [t.index for t in turns] == [2, 3, 4]
    assert [(t.passed, t.answer["action"]) for t in turns[:2]] == [(True, "sales_period"), (True, "sales_period")], \
        [t.failures for t in turns]
    assert "receipts" in turns[0].answer["reply"] and "Atta" in turns[1].answer["reply"]
    assert not turns[2].passed and "reply_sales: " in turns[2].failures[0] and "not said" in turns[2].failures[0]


def test_seen_reads_the_snapshot_taken_before_the_turn():
    from lab.bench.checks import LedgerSnapshot, turn_failures

    before = LedgerSnapshot(stock={}, price={}, journal_entries=0, orders=0, sales=RESULT)
    after = LedgerSnapshot(stock={}, price={}, journal_entries=0, orders=0)
    result = SimpleNamespace(reply="34 receipts, $961.38 in sales.", tool_calls=[], media=[], guard={})
    assert turn_failures({"reply_sales": {"args": {}, "say": ["revenue"]}}, result=result, before=before, after=after) == []
