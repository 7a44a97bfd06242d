"""The benchmark: its checks, its suite loader, its number reading, its statistics, and one real run.

The checks are tested on hand-built answers and ledger snapshots, each both ways (it passes when
the turn did what was expected, and fails with a line saying what was seen when it did not).
The end-to-end test runs a 3-turn suite through the real pipeline and the real ``bench`` command
on a fresh demo store; only the models are replaced, at their process boundary, by FakeBackends
(router, guard, general) that implement the backend interface and record the prompts they got.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from types import SimpleNamespace

import pytest

from assistant.numbers import said_values, says_number
from assistant.types import TurnResult
from lab.bench.checks import LedgerSnapshot, arguments_match, turn_failures
from lab.bench.report import run_stats, runs_stats, runs_text, stats_text
from lab.bench.routing import (
    RoutingItem,
    item_matches,
    numbers_match,
    route_score,
    routing_summary,
)
from lab.bench.suite import SuiteError, suite_load, suite_parse
from shelfwise.stats import percentile, rate_text, wilson

CATALOG = frozenset({"Atta", "Toor dal", "Chana dal", "Turmeric powder", "Mustard oil", "Frozen samosas"})
TOOLS = frozenset({"get_inventory", "update_inventory", "place_reorder", "reconcile_inventory", "play_guide"})


def _result(**fields) -> TurnResult:
    return TurnResult(conversation="c1", turn=1, mode="router", transcript="t", normalized="t", **fields)


def _call(tool: str, ok: bool = True, **arguments) -> dict:
    return {"tool": tool, "arguments": arguments, "result": {}, "ok": ok, **({} if ok else {"error": "refused"})}


def _snap(*, stock=None, price=None, journal=0, orders=0, drafts=None, pending=None) -> LedgerSnapshot:
    return LedgerSnapshot(
        stock=stock if stock is not None else {"Atta": 33, "Chana dal": 22, "Toor dal": 4},
        price=price if price is not None else {"Chana dal": Decimal("7.99"), "Toor dal": Decimal("8.99")},
        journal_entries=journal, orders=orders, drafts=drafts or {}, pending_draft=pending,
    )


def _fails(expect: dict, result: TurnResult, before: LedgerSnapshot | None = None,
           after: LedgerSnapshot | None = None) -> list[str]:
    before = before or _snap()
    return turn_failures(expect, result=result, before=before, after=after or before)


# ---------------------------------------------------------------------------------------------
# Tools and arguments


def test_tools_pass_when_called_successfully_and_fail_when_missing_or_failed():
    looked_up = _result(tool_calls=[_call("get_inventory", item="Chana dal")])
    assert _fails({"tools": ["get_inventory"]}, looked_up) == []

    nothing = _result()
    assert _fails({"tools": ["get_inventory"]}, nothing) == ["tools: get_inventory not called (called: none)"]

    refused = _result(tool_calls=[_call("update_inventory", ok=False, item="Atta", stock=15)])
    [failure] = _fails({"tools": ["update_inventory"]}, refused)
    assert failure.startswith("tools: update_inventory called but failed (refused)")


def test_tools_not_fails_on_any_call_of_a_listed_tool_even_a_refused_one():
    refused = _result(tool_calls=[_call("get_inventory"), _call("place_reorder", ok=False, confirmed=False)])
    assert _fails({"tools_not": ["place_reorder", "update_inventory"]}, refused) == ["tools_not: place_reorder called"]
    assert _fails({"tools_not": ["update_inventory"]}, refused) == []


def test_tools_not_star_means_no_tool_call_at_all():
    assert _fails({"tools_not": "*"}, _result()) == []
    played = _result(tool_calls=[_call("play_guide", topic="inventory")])
    assert _fails({"tools_not": "*"}, played) == ["tools_not: expected no tool call, got play_guide"]


def test_args_match_a_subset_of_some_call_case_insensitively():
    result = _result(tool_calls=[_call("get_inventory", item="Atta"), _call("get_inventory", item="chana dal ")])
    assert _fails({"args": {"get_inventory": {"item": "Chana dal"}}}, result) == []
    [failure] = _fails({"args": {"get_inventory": {"item": "Toor dal"}}}, result)
    assert failure == "args: get_inventory {item: Toor dal} not matched (got {item: Atta}; {item: chana dal })"


def test_args_match_list_arguments_as_a_subset_of_a_list_of_objects():
    drafted = _result(tool_calls=[_call(
        "place_reorder", confirmed=False,
        items=[{"item": "Mustard oil", "qty": 21}, {"item": "Toor dal", "qty": 42, "note": "x"}],
    )])
    assert _fails({"args": {"place_reorder": {"items": [{"item": "Toor dal", "qty": 42}], "confirmed": False}}}, drafted) == []
    wrong_qty = {"args": {"place_reorder": {"items": [{"item": "Toor dal", "qty": 40}]}}}
    assert _fails(wrong_qty, drafted)[0].startswith("args: place_reorder")
    confirmed = {"args": {"place_reorder": {"confirmed": True}}}
    assert _fails(confirmed, drafted)[0].startswith("args: place_reorder {confirmed: True} not matched")


def test_argument_matching_rules():
    assert arguments_match({"stock": 15}, {"stock": "15"})
    assert arguments_match({"stock": 15}, {"stock": 15.0})
    assert not arguments_match({"confirmed": False}, {"confirmed": 0})  # booleans only match booleans
    assert not arguments_match({"stock": 1}, {"stock": True})
    # each expected entry needs its own actual entry
    assert not arguments_match({"items": [{"item": "Atta"}, {"item": "Atta"}]}, {"items": [{"item": "Atta"}]})
    assert arguments_match({"items": [{"item": "Atta"}, {"item": "Ghee"}]},
                           {"items": [{"item": "Ghee"}, {"item": "atta"}]})
    assert arguments_match({"filter": None}, {})
    assert not arguments_match({"item": "Atta"}, {})


# ---------------------------------------------------------------------------------------------
# The reply


def test_reply_any_and_reply_all_are_case_insensitive_substrings():
    result = _result(reply="Turmeric powder is in Aisle 1, spice rack, row 1. It don’t run out.")
    assert _fails({"reply_any": ["aisle one", "AISLE 1"]}, result) == []
    [failure] = _fails({"reply_any": ["aisle 2"]}, result)
    assert failure == "reply_any: none of 'aisle 2' in reply \"Turmeric powder is in Aisle 1, spice rack, row 1. It don’t run out.\""
    assert _fails({"reply_all": ["turmeric", "don't"]}, result) == []  # typographic quotes are folded
    [failure] = _fails({"reply_all": ["turmeric", "cooler", "freezer"]}, result)
    assert failure.startswith("reply_all: missing 'cooler', 'freezer' in reply")


def test_reply_none_matches_short_words_whole_so_eyes_is_not_yes():
    assert _fails({"reply_none": ["yes", "in stock"]}, _result(reply="Ghee is good for the eyes, ask a doctor.")) == []
    [failure] = _fails({"reply_none": ["yes", "in stock"]}, _result(reply="Yes, ghee is in stock."))
    assert failure.startswith("reply_none: 'yes', 'in stock' in reply")
    # longer phrases are substrings: "aisles" trips "aisle"
    assert _fails({"reply_none": ["aisle"]}, _result(reply="It's in one of the aisles."))[0].startswith("reply_none")


def test_reply_stock_of_reads_the_stock_before_the_turn_and_accepts_spoken_numbers():
    before = _snap(stock={"Chana dal": 28})
    after = _snap(stock={"Chana dal": 15})
    for reply in ("We have 28 bags of Chana dal.", "There are twenty-eight bags.", "twenty eight left"):
        assert _fails({"reply_stock_of": "Chana dal"}, _result(reply=reply), before, after) == []
    [failure] = _fails({"reply_stock_of": "Chana dal"}, _result(reply="We have 15 bags."), before, after)
    assert failure == 'reply_stock_of: Chana dal stock 28 not said in reply "We have 15 bags."'
    # a larger number that ends in the words is not the number
    assert _fails({"reply_stock_of": "Chana dal"}, _result(reply="one hundred twenty-eight"), before, after)


def test_reply_price_of_accepts_every_way_to_say_a_price():
    for reply in ("$8.99 a bag", "It's 8.99.", "eight ninety-nine", "8 dollars 99", "eight dollars and ninety-nine cents"):
        assert _fails({"reply_price_of": "Toor dal"}, _result(reply=reply)) == [], reply
    [failure] = _fails({"reply_price_of": "Toor dal"}, _result(reply="Toor dal is $7.99."))
    assert failure == 'reply_price_of: Toor dal price 8.99 not said in reply "Toor dal is $7.99."'


# ---------------------------------------------------------------------------------------------
# Media, guard and the books


def test_media_checks_the_kind_is_present():
    photo = _result(media=[{"kind": "photo", "url": "/m/a.png", "title": "Atta"}])
    assert _fails({"media": "photo"}, photo) == []
    assert _fails({"media": "audio"}, photo) == ["media: no audio (got photo)"]


def test_guard_checks_the_input_verdict():
    blocked = _result(guard={"input": {"verdict": "unsafe", "category": "crime"}, "output": None})
    assert _fails({"guard": "unsafe"}, blocked) == []
    passed = _result(guard={"input": {"verdict": "safe"}, "output": None})
    assert _fails({"guard": "unsafe"}, passed) == ["guard: input guard said safe, expected unsafe"]


def test_pending_draft_reads_the_ledger_after_the_turn():
    result = _result()
    with_draft, without = _snap(pending=7), _snap()
    assert _fails({"pending_draft": True}, result, without, with_draft) == []
    assert _fails({"pending_draft": False}, result, with_draft, without) == []
    assert _fails({"pending_draft": True}, result, with_draft, without) == [
        "pending_draft: expected a draft waiting for a yes, found none"
    ]
    assert _fails({"pending_draft": False}, result, without, with_draft) == [
        "pending_draft: expected no pending draft, found draft #7"
    ]


def test_orders_added_counts_the_orders_the_turn_placed():
    assert _fails({"orders_added": 1}, _result(), _snap(orders=2), _snap(orders=3)) == []
    assert _fails({"orders_added": 0}, _result(), _snap(orders=2), _snap(orders=3)) == ["orders_added: expected 0, got 1"]


def test_stock_after_compares_the_counts_after_the_turn():
    after = _snap(stock={"Atta": 15, "Toor dal": 4})
    assert _fails({"stock_after": {"Atta": 15}}, _result(), _snap(), after) == []
    assert _fails({"stock_after": {"Atta": 15, "Toor dal": 0}}, _result(), _snap(), after) == [
        "stock_after: Toor dal is 4, expected 0"
    ]


def test_ledger_unchanged_fails_on_journal_entries_drafts_decided_or_made_and_orders():
    before = _snap(journal=100, orders=1, drafts={3: "pending"})
    assert _fails({"ledger_unchanged": True}, _result(), before, before) == []
    after = _snap(journal=101, orders=2, drafts={3: "confirmed", 4: "pending"})
    assert _fails({"ledger_unchanged": True}, _result(), before, after) == [
        "ledger_unchanged: 1 stock journal entry; new draft #4; draft #3 pending -> confirmed; 1 new order"
    ]
    assert _fails({"ledger_unchanged": False}, _result(), before, after) == []


def test_a_turn_passes_only_when_every_check_passes_and_each_failure_is_listed():
    result = _result(reply="Okay.", tool_calls=[_call("update_inventory", item="Atta", stock=15)])
    failures = _fails({"tools_not": ["update_inventory"], "reply_any": ["ok"], "media": "photo"}, result)
    assert [line.split(":")[0] for line in failures] == ["tools_not", "media"]


# ---------------------------------------------------------------------------------------------
# Spoken numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("twenty-eight", 28), ("Twenty eight bags", 28), ("28", 28), ("we have 28.", 28),
        ("eight ninety-nine", "8.99"), ("$8.99", "8.99"), ("8 dollars 99", "8.99"), ("8.99", "8.99"),
        ("eight dollars and ninety-nine cents", "8.99"), ("three forty-nine each", "3.49"),
        ("eight point nine nine", "8.99"), ("eight oh five", "8.05"),
        ("$6", 6), ("six dollars", 6), ("$6.00", 6), ("a dozen jars", 12), ("one hundred and five", 105),
        ("$1,234.50", "1234.5"), ("forty-two bags", 42), ("zero left", 0),
    ],
)
def test_spoken_numbers_are_read_in_digits_and_words(text, value):
    assert says_number(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("one hundred twenty-eight", 28), ("280 bags", 28), ("2.8 lb", 28), ("$7.99", "8.99"),
        ("eight bags at ninety-nine cents", "8.99"), ("six", 60), ("sixty", 6), ("someone", 1),
    ],
)
def test_numbers_not_said_are_not_found(text, value):
    assert not says_number(text, value)


def test_spoken_values_lists_every_number_and_price():
    assert said_values("Toor dal: 4 bags at eight ninety-nine") == {Decimal(4), Decimal(8), Decimal(99), Decimal("8.99")}


# ---------------------------------------------------------------------------------------------
# Statistics


def test_wilson_interval_matches_the_published_figure():
    low, high = wilson(79, 100)
    assert (round(100 * low, 1), round(100 * high, 1)) == (70.0, 85.8)  # seed 001, Table 2
    assert wilson(30, 30)[1] == pytest.approx(1.0) and wilson(0, 30)[0] == pytest.approx(0.0)
    assert wilson(0, 0) == (0.0, 1.0)
    assert rate_text(29, 30) == "29/30 = 96.7% (95% CI 83.3%–99.4%)"


def test_percentile_interpolates_between_ranks():
    assert percentile([], 50) is None
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile(list(range(1, 31)), 90) == pytest.approx(27.1)


def _row(index, passed, ms, *, category="lookup", stages=None, calls=()):
    return SimpleNamespace(index=index, category=category, say="", passed=passed, failures=[] if passed else ["x: y"],
                           latency_ms=ms, stages=stages or {}, model_calls=list(calls))


def test_run_stats_split_latency_by_stage_and_model_calls_by_role():
    turns = [
        _row(1, True, 1000, stages={"input_guard": 100, "mode": 800}, calls=[{"role": "router", "ms": 500}]),
        _row(2, False, 3000, category="general", stages={"input_guard": 300, "mode": 2500},
             calls=[{"role": "router", "ms": 700}, {"role": "general", "ms": 1500}]),
        _row(3, True, 2000, stages={"input_guard": 200}),
    ]
    stats = run_stats(turns)
    assert (stats.passed, stats.total, stats.median_ms) == (2, 3, 2000)
    assert stats.by_category == {"lookup": (2, 2), "general": (0, 1)}
    assert (stats.stages["input_guard"].median_ms, stats.stages["mode"].median_ms, stats.stages["mode"].count) == (200, 1650, 2)
    assert stats.model_roles["router"].median_ms == 600 and stats.model_roles["general"].count == 1
    text = stats_text(stats)
    assert "Passed: 2/3 = 66.7%" in text and "median 2.00 s" in text
    assert "router 600 / 680 (n=2)" in text


def test_runs_summary_gives_each_run_and_the_turns_that_varied_or_always_failed():
    runs = [[_row(1, True, 1), _row(2, False, 1), _row(3, False, 1)],
            [_row(1, True, 1), _row(2, True, 1), _row(3, False, 1)]]
    summary = runs_stats(runs)
    assert summary.per_run == [(1, 3), (2, 3)]
    assert (summary.pooled.passed, summary.pooled.total) == (3, 6)
    assert (summary.flaky, summary.always_failed) == ([2], [3])
    text = runs_text(summary)
    assert "Runs: run 1 1/3, run 2 2/3" in text and "varied between runs: #2" in text and "every run: #3" in text


# ---------------------------------------------------------------------------------------------
# The suite loader


def _suite(expect: dict, **turn) -> dict:
    return {"name": "t", "store": "demo", "turns": [{"say": "how many bags of atta", "category": "lookup",
                                                     "expect": expect, **turn}]}


def _load_error(data: dict) -> str:
    with pytest.raises(SuiteError) as error:
        suite_parse(data, source="mini.json", catalog=CATALOG, tools=TOOLS)
    return str(error.value)


def test_the_owner_session_suite_loads_with_its_forty_turns_in_sixteen_categories(db):
    suite = suite_load("packs/bundled/grocery/evaluation/suites/owner_session.json")
    assert len(suite.turns) == 40
    assert len({turn.category for turn in suite.turns}) == 16
    periods = suite.of_category("sales_period").turns
    assert len(periods) == 10 and periods[0].index == 31 and all("reply_sales" in turn.expect for turn in periods)
    assert suite.turns[3].expect["reply_stock_of"] == "Chana dal"


def test_an_unknown_expect_key_is_named_with_its_turn():
    message = _load_error(_suite({"reply_stok_of": "Atta"}))
    assert message.startswith('mini.json, turn 1 ("how many bags of atta"): unknown expect key \'reply_stok_of\'')
    assert "did you mean 'reply_stock_of'?" in message


def test_a_product_not_in_the_catalog_is_named_with_its_turn_and_key():
    assert _load_error(_suite({"reply_stock_of": "Saffron"})) == (
        'mini.json, turn 1 ("how many bags of atta"): expect key \'reply_stock_of\': '
        "'Saffron' is not a product of the demo catalog."
    )
    assert "did you mean 'Toor dal'?" in _load_error(_suite({"args": {"place_reorder": {"items": [{"item": "Tor dal"}]}}}))
    assert "did you mean 'Atta'?" in _load_error(_suite({"stock_after": {"atta": 15}}))


def test_malformed_values_and_turns_are_refused():
    assert "unknown tool 'get_inventroy'" in _load_error(_suite({"tools": ["get_inventroy"]}))
    assert 'must be "*"' in _load_error(_suite({"tools_not": "all"}))
    assert "must be true or false" in _load_error(_suite({"pending_draft": "no"}))
    assert "whole number" in _load_error(_suite({"orders_added": -1}))
    assert "must be one of audio, photo, video" in _load_error(_suite({"media": "gif"}))
    assert "'expect' must be an object" in _load_error(_suite({}))
    assert "unknown turn key 'expects'" in _load_error(_suite({"tools": ["get_inventory"]}, expects={}))
    assert "'turns' must be a non-empty list" in _load_error({"name": "t", "turns": []})


def test_a_missing_or_broken_suite_file_says_so(tmp_path):
    with pytest.raises(SuiteError, match="no such suite file"):
        suite_load(tmp_path / "nope.json", catalog=CATALOG, tools=TOOLS)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SuiteError, match="not valid JSON"):
        suite_load(broken, catalog=CATALOG, tools=TOOLS)


# ---------------------------------------------------------------------------------------------
# Routing-set scoring (pure)


def _grounding(*names, group=None, unknown=None):
    return SimpleNamespace(products=tuple(SimpleNamespace(name=n) for n in names), group=group, unknown=unknown)


def test_routing_item_checks_follow_the_gold_words():
    find = RoutingItem(id="r1", say="where's the basmati", action="find_product", item="Basmati rice")
    assert item_matches(find, _grounding("Basmati rice"))
    assert not item_matches(find, _grounding("Sona masoori rice", "Basmati rice"))
    absent = RoutingItem(id="r2", say="do we have pizza", action="find_product", not_carried="pizza")
    assert item_matches(absent, _grounding(unknown="pizza"))
    assert not item_matches(absent, _grounding("Paneer", unknown="pizza"))
    both = RoutingItem(id="r3", say="reorder mustard oil and toor dal", action="draft_restock",
                       items=({"item": "Mustard oil", "qty": None}, {"item": "Toor dal", "qty": None}))
    assert item_matches(both, _grounding("Toor dal", "Mustard oil"))
    assert not item_matches(both, _grounding("Toor dal"))
    all_low = RoutingItem(id="r4", say="restock everything low", action="draft_restock")
    assert item_matches(all_low, _grounding())
    assert not item_matches(all_low, _grounding(unknown="everything"))
    group = RoutingItem(id="r5", say="what lentils do we have", action="list_products", group="Lentils")
    assert item_matches(group, _grounding(group="Lentils")) and not item_matches(group, _grounding(group="Spices"))
    count = RoutingItem(id="r6", say="set ghee to twenty-four", action="update_count", item="Ghee", count=24)
    assert numbers_match(count, (24,)) and not numbers_match(count, ()) and numbers_match(find, ()) is None


def test_routing_summary_counts_accuracy_confusion_and_drops_to_chat():
    items = [
        RoutingItem(id="1", say="where's the atta", action="find_product", item="Atta"),
        RoutingItem(id="2", say="where's the ghee", action="find_product", item="Ghee"),
        RoutingItem(id="3", say="capital of france", action="general"),
        RoutingItem(id="4", say="how did we do today", action="todays_sales"),
    ]
    decisions = ["find_product", "find_product", "general", "general"]
    groundings = [_grounding("Atta"), _grounding("Atta"), None, None]
    scores = [
        route_score(item, words=SimpleNamespace(numbers=()), decision=SimpleNamespace(action=action),
                    grounding=grounding, ms=ms)
        for item, action, grounding, ms in zip(items, decisions, groundings, [100, 200, 300, 400], strict=True)
    ]
    summary = routing_summary(scores)
    assert (summary.total, summary.action_ok, summary.item_ok) == (4, 3, 2)
    assert summary.per_action["find_product"].action_ok == 2 and summary.per_action["find_product"].item_ok == 1
    assert summary.confusion == [(("todays_sales", "general"), 1)]
    assert (summary.dropped_to_chat, summary.action_requests) == (1, 3)
    assert summary.median_ms == 250
    assert [s.item.id for s in summary.misses] == ["2", "4"]
    invalid = route_score(items[0], words=None, decision=None, grounding=None, ms=1)
    assert invalid.predicted == "(invalid)" and not invalid.action_ok



# ---------------------------------------------------------------------------------------------
# End to end: the bench command, the real pipeline, fake models


MINI_SUITE = {
    "version": 1, "name": "mini", "store": "demo", "turns": [
        {"say": "how many bags of chana dahl are left", "category": "lookup",
         "expect": {"tools": ["get_inventory"], "args": {"get_inventory": {"item": "Chana dal"}},
                    "tools_not": ["update_inventory", "place_reorder"], "reply_stock_of": "Chana dal",
                    "guard": "safe", "ledger_unchanged": True}},
        {"say": "okay restock all the low stuff", "category": "restock",
         "expect": {"tools": ["place_reorder"], "args": {"place_reorder": {"confirmed": False}},
                    "tools_not": ["update_inventory"], "pending_draft": True, "orders_added": 0,
                    "stock_after": {"Toor dal": 4}}},
        {"say": "yes go ahead and place it", "category": "approval",
         "expect": {"tools_not": ["update_inventory"], "reply_any": ["placed", "order"], "pending_draft": False,
                    "orders_added": 1, "stock_after": {"Toor dal": 4}}},
    ],
}
ROUTES = {  # a word of the request -> the router's answer
    "chana": {"action": "find_product", "item": "chana dal", "ask": "count"},
    "restock": {"action": "draft_restock"},
    "basmati": {"action": "find_product", "item": "basmati", "ask": "where"},  # the warm-up turn
}


def _request_text(request) -> str:
    content = str(request.messages[-1]["content"])
    return content.rsplit("Request:", 1)[-1].removesuffix("JSON:").strip()


def _route(request) -> dict:
    text = _request_text(request)
    return next(answer for word, answer in ROUTES.items() if word in text)


@pytest.fixture
def fake_models():
    """The router answers by request; the guard's judge says safe; nothing should ask the general model."""
    from inference.base import ModelResponse, Role
    from inference.config import backend_override
    from inference.fake import FakeBackend

    def route(request):  # as llama.cpp answers: most of the prompt from its prefix cache
        answer = _route(request)
        return ModelResponse(text=json.dumps(answer), parsed=answer, prompt_tokens=1500, cached_tokens=1480)

    router = FakeBackend(default=route)
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    general = FakeBackend()  # no script: a call would fail loudly
    with backend_override(Role.ROUTER, router), backend_override(Role.GUARD, guard), \
            backend_override(Role.GENERAL, general):
        yield SimpleNamespace(router=router, guard=guard, general=general)


@pytest.mark.django_db
def test_bench_runs_a_suite_through_the_real_pipeline_and_records_every_turn(tmp_path, fake_models):
    from django.core.management import call_command

    from assistant.models import BenchmarkRun
    from ledger.models import Order
    from tenants.models import Store

    suite = tmp_path / "mini.json"
    suite.write_text(json.dumps(MINI_SUITE))
    out_json = tmp_path / "out.json"
    stores_before = set(Store.objects.values_list("pk", flat=True))
    output = io.StringIO()

    call_command("bench", "--suite", str(suite), "--mode", "router", "--variant", "fake", "--json", str(out_json),
                 "--no-progress", stdout=output)

    text = output.getvalue()
    assert "Warming up before timing" in text
    assert f"Passed: {rate_text(3, 3)}" in text
    assert "Turn latency (wall clock, n=3): median" in text
    assert "Per stage (median ms over the turns that ran it): normalize" in text
    assert "Model calls from the audit (median / p90 ms per call): " in text and "router" in text
    run = BenchmarkRun.objects.get()
    assert (run.status, run.turns_total, run.turns_passed, run.variant) == ("done", 3, 3, "fake")
    assert run.median_ms is not None and run.p90_ms >= run.median_ms
    turns = list(run.results.order_by("index"))
    assert [(t.index, t.category, t.passed, t.failures) for t in turns] == [
        (1, "lookup", True, []), (2, "restock", True, []), (3, "approval", True, []),
    ]
    assert turns[0].stages["input_guard"] >= 0 and "mode" in turns[0].stages
    assert {call["role"] for call in turns[0].model_calls} >= {"router"}
    router_call = next(call for call in turns[0].model_calls if call["role"] == "router")
    assert (router_call["prompt_tokens"], router_call["cached_tokens"]) == (1500, 1480)
    assert turns[2].answer["action"] == "confirm"
    # one conversation: the router saw the turns in order; the "yes" was handled in code
    routed = [_route(request)["action"] for request in fake_models.router.requests]
    assert routed == ["find_product", "find_product", "draft_restock"]  # warm-up, lookup, restock
    assert fake_models.general.requests == []
    # the throwaway stores are gone, with their order
    assert set(Store.objects.values_list("pk", flat=True)) == stores_before
    assert not Order.objects.exists()
    saved = json.loads(out_json.read_text())
    assert saved["summary"]["per_run"] == [{"passed": 3, "total": 3}]
    assert saved["runs"][0]["turns"][1]["tools"][-1] == "place_reorder"


@pytest.mark.django_db
def test_a_failed_check_is_reported_with_what_was_seen(tmp_path, fake_models):
    from django.core.management import call_command

    from assistant.models import BenchmarkRun

    suite = tmp_path / "mini.json"
    wrong = json.loads(json.dumps(MINI_SUITE))
    wrong["turns"][0]["expect"]["reply_stock_of"] = "Toor dal"  # the reply speaks of chana dal
    suite.write_text(json.dumps(wrong))
    output = io.StringIO()

    call_command("bench", "--suite", str(suite), "--limit", "1", "--no-warm", "--no-progress", stdout=output)

    assert "Passed: 0/1" in output.getvalue()
    assert "FAIL" in output.getvalue() and "reply_stock_of: Toor dal stock 4 not said" in output.getvalue()
    [turn] = BenchmarkRun.objects.get().results.all()
    assert turn.failures[0].startswith("reply_stock_of: Toor dal stock 4 not said in reply")


def test_bench_refuses_a_broken_suite_naming_the_turn(tmp_path, db):
    from django.core.management import CommandError, call_command

    suite = tmp_path / "bad.json"
    suite.write_text(json.dumps({"turns": [{"say": "hi", "category": "greeting", "expect": {"replyany": ["hi"]}}]}))
    with pytest.raises(CommandError, match=r"bad.json, turn 1 \(\"hi\"\): unknown expect key 'replyany'"):
        call_command("bench", "--suite", str(suite))


@pytest.mark.django_db
def test_route_eval_scores_actions_and_grounded_words_and_counts_drops_to_chat(tmp_path):
    from django.core.management import call_command

    from inference.base import Role
    from inference.config import backend_override
    from inference.fake import FakeBackend

    routing = tmp_path / "routing.json"
    routing.write_text(json.dumps({"actions": ["general", "find_product", "todays_sales", "draft_restock"], "items": [
        {"id": "a", "say": "where's the basmati", "action": "find_product", "item": "Basmati rice", "ask": "where"},
        {"id": "b", "say": "do we have pizza", "action": "find_product", "item": None, "not_carried": "pizza"},
        {"id": "c", "say": "how did we do today", "action": "todays_sales"},
        {"id": "d", "say": "order twenty boxes of frozen samosas", "action": "draft_restock",
         "items": [{"item": "Frozen samosas", "qty": 20}]},
    ]}))
    answers = {  # a word of the request -> the router's answer; the sales question drops to chat
        "basmati": {"action": "find_product", "item": "basmati"},
        "pizza": {"action": "find_product", "item": "pizza"},
        "today": {"action": "general"},
        "samosas": {"action": "draft_restock", "item": "frozen samosas"},
    }
    router = FakeBackend(default=lambda request: next(a for w, a in answers.items() if w in _request_text(request)))
    output = io.StringIO()
    with backend_override(Role.ROUTER, router):
        call_command("route_eval", "--set", str(routing), "--no-warm", "--no-progress", stdout=output)

    text = output.getvalue()
    assert "Action:      3/4 = 75.0%" in text
    assert "Action+item: 3/4 = 75.0%" in text
    assert "Action requests dropped to chat (gold action not general, routed to general): 1 of 4" in text
    assert "  todays_sales -> general: 1" in text
    assert "Spoken counts/quantities read (update_count, draft_restock): 1/1" in text
    assert "Misses (1):\n  c " in text
    assert len(router.requests) == 4
