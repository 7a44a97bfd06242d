"""The platform admin's pages over HTTP: stores, audit explorer, a turn's detail, metrics, benchmark runs.

Audit rows come from real turns: ``assistant.pipeline.run_turn`` with the real guard layers,
policy, gateway and ledger. Only the language models are replaced, at their process boundary,
by ``inference.fake.FakeBackend`` through ``inference.config.backend_override``.
Rows for the query-count tests are written with the audit's own writers (``audit.turns``,
``audit.services``) so their number can grow cheaply.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from assistant.models import BenchmarkRun, BenchmarkTurn
from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from audit.models import Record, SqlStatement, Turn
from audit.services import CapturedStatement, tool_call_record
from audit.turns import turn_finish, turn_start
from dashboard import metrics
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend, fake_models
from ledger.demo import install_demo_catalog
from tenants.context import use_store
from tests.factories import StoreFactory, UserFactory

PAGES = ["/ops/", "/ops/audit/", "/ops/audit/calls/", "/ops/metrics/"]


@pytest.fixture
def models():
    """The router answers by the words of the request; the guard's judge says safe."""
    routes = {
        "turmeric": {"action": "find_product", "item": "turmeric powder", "ask": "where"},
        "sales": {"action": "todays_sales"},
        "weather": {"action": "general"},
    }

    def route(request):
        text = str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1]
        return next((answer for word, answer in routes.items() if word in text), {"action": "general"})

    router = FakeBackend(default=route)
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    general = FakeBackend(default="It looks sunny today.")
    with backend_override(Role.ROUTER, router), backend_override(Role.GUARD, guard), \
            backend_override(Role.GENERAL, general):
        yield router


def _demo(store):
    with use_store(store):
        install_demo_catalog(store=store)
    return store


def _say(store, text, conversation=None, mode=Mode.ROUTER):
    return run_turn(store=store, turn=TurnInput(text=text, mode=mode, conversation=conversation, channel="api",
                                                actor="test"))


def _bulk_turns(store, n, *, mode="router", outcome="answered"):
    """``n`` audited turns, each with one tool call of two SQL statements and one model call record."""
    for i in range(n):
        turn = turn_start(store=store, conversation=f"bulk-{store.pk}-{i}", index=1, mode=mode, channel="api",
                          actor="test", text=f"where is product {i}")
        tool_call_record(store=store, channel="assistant", actor="test", name="get_inventory",
                         arguments={"item": f"Product {i}"}, result={"ok": True}, outcome="ok", duration_ms=1.5,
                         statements=[CapturedStatement("SELECT 1", 0.1), CapturedStatement("SELECT 2", 0.2)],
                         conversation=turn.conversation, mode=mode, turn_id=turn.pk)
        with use_store(store):
            Record.objects.create(store=store, turn=turn, conversation=turn.conversation, kind=Record.Kind.MODEL_CALL,
                                  channel="api", mode=mode, actor="test", name="router", outcome="ok",
                                  duration_ms=100 + i, arguments={"messages": []}, result={"text": "{}"})
        turn_finish(turn=turn, normalized=turn.text, action="find_product", reply="Aisle 1.", outcome=outcome,
                    latency_ms=200 + i, stages={"mode": 150.0}, result={})


# ---------------------------------------------------------------------------------------------
# Who may see the pages


@pytest.mark.parametrize("url", PAGES + ["/ops/audit/turns/1/", "/ops/metrics/bench/abc/progress.json"])
def test_signed_out_visitors_are_sent_to_the_login_page(client, db, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("url", PAGES + ["/ops/audit/turns/1/", "/ops/audit/calls/1/", "/ops/metrics/runs/1/"])
def test_a_store_owner_who_is_not_staff_gets_the_403_page(client, owner, url):
    client.force_login(owner)
    response = client.get(url)
    assert response.status_code == 403
    assert b"You cannot do that here." in response.content


def test_a_store_owner_cannot_start_a_benchmark_run(client, owner):
    client.force_login(owner)
    response = client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router", "limit": 1})
    assert response.status_code == 403
    assert not BenchmarkRun.objects.exists()


# ---------------------------------------------------------------------------------------------
# Stores


def test_the_stores_list_shows_sign_up_owner_activity_and_turns_per_mode(admin_client, store, owner, other_store,
                                                                         models):
    _demo(store)
    _say(store, "where is the haldi")
    _say(store, "how are sales today")
    _bulk_turns(store, 1, mode="native")

    response = admin_client.get("/ops/")

    assert response.status_code == 200
    rows = {row.store.slug: row for row in response.context["rows"]}
    assert rows["corner-shop"].owner_email == "alice@example.com"
    assert rows["corner-shop"].turns_by_mode == {"native": 1, "router": 2}
    assert rows["corner-shop"].last_activity is not None
    assert rows["other-shop"].turns == 0 and rows["other-shop"].last_activity is None
    html = response.content.decode()
    assert "Corner Shop" in html and "alice@example.com" in html and "never" in html


# ---------------------------------------------------------------------------------------------
# Audit explorer


def test_the_audit_explorer_lists_turns_across_stores_and_filters_them(admin_client, store, other_store, models):
    _demo(store)
    _demo(other_store)
    haldi = _say(store, "where is the haldi")
    _say(store, "how are sales today", conversation=haldi.conversation)
    _say(other_store, "where is the haldi")

    everything = admin_client.get("/ops/audit/")
    assert everything.context["page"].paginator.count == 3

    by_store = admin_client.get("/ops/audit/", {"store": "corner-shop"})
    assert {t.store.slug for t in by_store.context["turns"]} == {"corner-shop"}
    assert len(by_store.context["turns"]) == 2

    by_tool = admin_client.get("/ops/audit/", {"tool": "get_inventory"})
    assert {t.normalized for t in by_tool.context["turns"]} == {"where is the turmeric powder"}
    assert len(by_tool.context["turns"]) == 2
    assert by_tool.context["turns"][0].tool_names == ["get_inventory"]

    by_conversation = admin_client.get("/ops/audit/", {"conversation": haldi.conversation})
    assert [t.index for t in by_conversation.context["turns"]] == [2, 1]

    assert admin_client.get("/ops/audit/", {"mode": "native"}).context["page"].paginator.count == 0
    assert admin_client.get("/ops/audit/", {"outcome": "answered", "store": "other-shop"}) \
        .context["page"].paginator.count == 1
    today = timezone.localdate().isoformat()
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    assert admin_client.get("/ops/audit/", {"since": today, "until": today}).context["page"].paginator.count == 3
    assert admin_client.get("/ops/audit/", {"since": tomorrow}).context["page"].paginator.count == 0


@pytest.mark.parametrize("query, message", [
    ({"since": "not-a-date"}, "Enter a valid date."),
    ({"since": "2026-05-02", "until": "2026-05-01"}, "The start date is after the end date."),
    ({"store": "no-such-store"}, "Select a valid choice."),
    ({"mode": "telepathy"}, "Select a valid choice."),
])
def test_bad_filters_get_a_short_error_and_no_rows(admin_client, store, query, message):
    _bulk_turns(store, 2)
    response = admin_client.get("/ops/audit/", query)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert response.context["turns"] == []


def test_the_audit_explorer_pages_through_many_turns(admin_client, store):
    _bulk_turns(store, 55)
    first = admin_client.get("/ops/audit/")
    second = admin_client.get("/ops/audit/", {"page": 2})
    assert len(first.context["turns"]) == 50 and len(second.context["turns"]) == 5
    assert not {t.pk for t in first.context["turns"]} & {t.pk for t in second.context["turns"]}
    assert 'rel="next"' in first.content.decode()


# ---------------------------------------------------------------------------------------------
# A turn's detail


def test_a_turns_detail_shows_every_step_in_order_with_timings(admin_client, store, models):
    _demo(store)
    result = _say(store, "um where did we keep the haldi")
    with use_store(store):
        turn = Turn.objects.get(store=store, conversation=result.conversation, index=result.turn)

    response = admin_client.get(f"/ops/audit/turns/{turn.pk}/")

    assert response.status_code == 200
    html = response.content.decode()
    steps = response.context["steps"]
    kinds = [step["record"].kind for step in steps]
    assert kinds.index("guard") < kinds.index("model_call") < kinds.index("tool_call")
    assert "where did we keep the turmeric powder" in html  # the normalised text
    assert "input_guard" in html and "&quot;verdict&quot;: &quot;safe&quot;" in html
    # the router's request (its system prompt lists the catalog) and its response
    assert "You route a store owner" in html and "Turmeric powder" in html
    router_call = next(step for step in steps if step["record"].name == "router")
    assert '\\"action\\":\\"find_product\\"' in router_call["response"]
    tool = steps[kinds.index("tool_call")]
    assert tool["record"].name == "get_inventory"
    assert json.loads(tool["arguments"]) == {"item": "Turmeric powder"}
    assert any("ledger_product" in statement.sql for statement in tool["statements"])
    assert [s.seq for s in tool["statements"]] == sorted(s.seq for s in tool["statements"])
    assert "SQL statement" in html and "took" in html
    assert [s["offset_ms"] for s in steps] == sorted(s["offset_ms"] for s in steps)


def test_an_unknown_turn_is_a_404(admin_client, db):
    assert admin_client.get("/ops/audit/turns/999999/").status_code == 404


# ---------------------------------------------------------------------------------------------
# Tool calls from every channel


def test_tool_calls_from_mcp_clients_are_listed_and_filtered_with_their_sql(admin_client, store, other_store):
    from mcp_gateway.execution import execute_tool
    from mcp_gateway.policy import Caller
    from tenants.services import token_create

    for s in (store, other_store):
        with use_store(s):
            install_demo_catalog(store=s)
    token, _ = token_create(store=store, name="Claude Desktop", scopes=["mcp"])
    with use_store(store):
        execute_tool("get_inventory", {"item": "Toor dal"}, store=store,
                     caller=Caller(channel="mcp", actor=f"token:{token.prefix}", scopes=frozenset({"mcp"}),
                                   credential=token))
    _bulk_turns(other_store, 1)

    everything = admin_client.get("/ops/audit/calls/")
    assert everything.context["page"].paginator.count == 2
    mcp = admin_client.get("/ops/audit/calls/", {"channel": "mcp", "tool": "get_inventory"})
    [call] = mcp.context["rows"]
    assert call.store == store and call.sql_count >= 1 and call.credential == token
    assert "Claude Desktop" in mcp.content.decode()
    assert admin_client.get("/ops/audit/calls/", {"store": "other-shop", "channel": "mcp"}) \
        .context["page"].paginator.count == 0
    bad = admin_client.get("/ops/audit/calls/", {"outcome": "maybe"})
    assert bad.status_code == 400 and "Select a valid choice." in bad.content.decode()

    detail = admin_client.get(f"/ops/audit/calls/{call.pk}/")
    html = detail.content.decode()
    assert detail.status_code == 200 and "Toor dal" in html and "ledger_product" in html


# ---------------------------------------------------------------------------------------------
# Metrics


def test_percentiles_interpolate_between_ranks():
    assert metrics.percentile([], 50) is None
    assert metrics.percentile([7], 90) == 7
    assert metrics.percentile([1, 2, 3, 4], 50) == 2.5
    assert metrics.percentile(list(range(1, 11)), 90) == pytest.approx(9.1)


def test_the_metrics_page_shows_live_traffic_per_mode_with_tables_and_chart_data(admin_client, store, models):
    _demo(store)
    _say(store, "where is the haldi")
    _say(store, "what's the weather like")  # escalates to the general model
    _bulk_turns(store, 4, mode="native", outcome="blocked")

    response = admin_client.get("/ops/metrics/")

    assert response.status_code == 200
    modes = {m.mode: m for m in response.context["traffic"].modes}
    assert modes["router"].turns == 2 and modes["router"].escalations == 1
    assert modes["native"].turns == 4 and modes["native"].blocked == 4
    assert modes["native"].median_ms == 201.5 and modes["native"].p90_ms == pytest.approx(202.7)
    roles = {r.role: r for r in response.context["traffic"].roles}
    assert roles["router"].calls == 6 and roles["general"].calls == 1
    html = response.content.decode()
    assert 'id="chart-latency"' in html and 'id="table-modes"' in html
    assert "dashboard/vendor/chart.umd.min.js" in html
    data = json.loads(html.split('id="chart-data" type="application/json">', 1)[1].split("</script>", 1)[0])
    assert {row["mode"] for row in data["latency"]} == {"router", "native"}


def test_benchmark_pass_rates_per_mode_and_category(admin_client, db):
    for mode, passes in (("router", [True, True, False]), ("native", [True, False, False])):
        run = BenchmarkRun.objects.create(suite="s", mode=mode, status="done", turns_total=3,
                                          turns_passed=sum(passes))
        for i, passed in enumerate(passes, start=1):
            BenchmarkTurn.objects.create(run=run, index=i, category="lookup" if i < 3 else "restock", say="x",
                                         passed=passed, latency_ms=10)

    response = admin_client.get("/ops/metrics/")

    bench = response.context["bench"]
    assert {mode: [p["y"] for p in points] for mode, points in bench.series.items()} == {
        "router": [66.7], "native": [33.3]}
    rates = {(c.mode, c.category): (c.passed, c.total) for c in bench.categories}
    assert rates == {("router", "lookup"): (2, 2), ("router", "restock"): (0, 1),
                     ("native", "lookup"): (1, 2), ("native", "restock"): (0, 1)}
    assert "2/3" in response.content.decode()


# ---------------------------------------------------------------------------------------------
# Benchmark runs from the page


@pytest.fixture(autouse=True)
def free_bench_slot():
    """The one-run-at-a-time slot lives in the cache, which Redis keeps across tests: start each free."""
    from django.core.cache import cache

    from lab.tasks import ACTIVE_KEY

    cache.delete(ACTIVE_KEY)
    yield
    cache.delete(ACTIVE_KEY)


@pytest.fixture
def bench_models():
    """Every request routes to a lookup of whatever the owner named; the guard says safe; chat answers politely."""
    with fake_models(Role.ROUTER, default={"action": "general"}, general="Good morning! How can I help?") as router:
        yield router


def test_starting_a_benchmark_runs_the_suite_and_reports_progress(admin_client, settings, bench_models,
                                                                 django_capture_on_commit_callbacks):
    settings.DASHBOARD_BENCH_INLINE = True
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router",
                                                             "limit": "2"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    job = response.json()["job"]

    progress = admin_client.get(f"/ops/metrics/bench/{job}/progress.json").json()

    run = BenchmarkRun.objects.get()
    assert progress["state"] == "done" and progress["finished"] is True
    assert (progress["done"], progress["total"], progress["percent"]) == (2, 2, 100)
    assert progress["run"] == run.pk and progress["passed"] == run.turns_passed
    assert (run.status, run.turns_total, run.results.count()) == ("done", 2, 2)
    assert run.results.get(index=1).say == "hey shelfwise, good morning"
    assert bench_models.requests  # the suite went through the router
    page = admin_client.get("/ops/metrics/")
    assert page.context["recent_runs"][0] == run
    detail = admin_client.get(f"/ops/metrics/runs/{run.pk}/")
    assert detail.status_code == 200 and "hey shelfwise, good morning" in detail.content.decode()
    assert [t.index for t in detail.context["turns"]] == [1, 2]


def test_a_form_post_redirects_to_the_page_that_watches_the_job(admin_client, settings, bench_models,
                                                                django_capture_on_commit_callbacks):
    settings.DASHBOARD_BENCH_INLINE = True
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router",
                                                             "limit": "1"})
    assert response.status_code == 302
    page = admin_client.get(response["Location"])
    assert 'id="bench-progress"' in page.content.decode() and "progress.json" in page.content.decode()


@pytest.mark.parametrize("form, message", [
    ({"suite": "owner_session.json", "mode": "telepathy"}, "mode"),
    ({"suite": "../../etc/passwd", "mode": "router"}, "suite"),
    ({"suite": "owner_session.json", "mode": "router", "limit": "0"}, "limit"),
])
def test_a_bad_benchmark_request_is_refused_and_starts_nothing(admin_client, form, message):
    response = admin_client.post("/ops/metrics/bench/", form, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not BenchmarkRun.objects.exists()


def _hold_the_slot(*, seconds_ago: float = 0, state: str = "running") -> str:
    import time

    from django.core.cache import cache

    from lab import tasks

    job = "a" * 32
    tasks._progress_set(job, state=state, suite="owner_session.json", mode="native", done=7, total=30)
    if seconds_ago:
        progress = tasks.progress_get(job)
        cache.set(tasks._key(job), {**progress, "updated": time.time() - seconds_ago}, tasks.PROGRESS_TTL_S)
    cache.set(tasks.ACTIVE_KEY, job)
    return job


def test_a_second_run_is_refused_while_one_is_running(admin_client, settings, bench_models,
                                                      django_capture_on_commit_callbacks):
    _hold_the_slot()
    settings.DASHBOARD_BENCH_INLINE = True
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router",
                                                             "limit": "1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == ("A benchmark run is already running: native on owner_session.json "
                                        "(7 of 30 turns done). Start another when it has finished.")
    assert not BenchmarkRun.objects.exists() and not bench_models.requests
    page = admin_client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router", "limit": "1"})
    assert page.status_code == 400 and "already running" in page.content.decode()
    watching = admin_client.get("/ops/metrics/")
    assert watching.context["job"] == "a" * 32  # the page follows the run in progress


def test_a_run_lost_for_half_an_hour_or_finished_frees_the_slot(admin_client, settings, bench_models,
                                                                django_capture_on_commit_callbacks):
    from lab import tasks

    settings.DASHBOARD_BENCH_INLINE = True
    for holder in (lambda: _hold_the_slot(seconds_ago=tasks.STALE_AFTER_S + 60), lambda: None, lambda: None):
        holder()
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router",
                                                                 "limit": "1"}, HTTP_ACCEPT="application/json")
        assert response.status_code == 202, response.content
        assert tasks.progress_get(response.json()["job"])["state"] == "done"
        assert tasks.active_job() is None  # the finished run let go
    assert BenchmarkRun.objects.count() == 3


def test_of_two_starts_that_raced_past_the_check_only_the_first_runs(settings, bench_models, db):
    from lab import tasks

    settings.DASHBOARD_BENCH_INLINE = True
    holder = _hold_the_slot(state="queued")
    tasks._progress_set("b" * 32, state="queued", suite="owner_session.json", mode="router", done=0, total=None)
    tasks._dispatch("b" * 32, {"job": "b" * 32, "suite": "owner_session.json", "mode": "router", "limit": 1})
    late = tasks.progress_get("b" * 32)
    assert late["state"] == "failed" and "already queued" in late["error"]
    assert tasks.active_job()[0] == holder and not BenchmarkRun.objects.exists()


def test_an_unknown_job_has_no_progress(admin_client):
    response = admin_client.get("/ops/metrics/bench/nope/progress.json")
    assert response.status_code == 404 and response.json()["error"]


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_run_goes_to_a_background_thread_and_the_request_returns_at_once(bench_models):
    """Celery is eager here (no broker): the page must still answer before the run ends."""
    from lab import tasks

    admin = UserFactory(username="olga", platform_admin=True)
    client = Client()
    client.force_login(admin)
    response = client.post("/ops/metrics/bench/", {"suite": "owner_session.json", "mode": "router", "limit": "1"},
                           HTTP_ACCEPT="application/json")
    job = response.json()["job"]
    thread = tasks.threads[job]
    thread.join(timeout=60)
    assert not thread.is_alive()
    progress = client.get(f"/ops/metrics/bench/{job}/progress.json").json()
    assert progress["state"] == "done" and progress["done"] == 1
    assert BenchmarkRun.objects.get(pk=progress["run"]).status == "done"


# ---------------------------------------------------------------------------------------------
# Bounded queries


@pytest.mark.parametrize("url", ["/ops/", "/ops/audit/", "/ops/audit/?tool=get_inventory", "/ops/audit/calls/",
                                 "/ops/metrics/"])
def test_admin_pages_make_a_bounded_number_of_queries_whatever_the_data(admin_client, store, url,
                                                                        django_assert_max_num_queries):
    others = [StoreFactory() for _ in range(3)]
    for s in [store, *others]:
        _bulk_turns(s, 3)
    # 12 before the platform-admin permission check, which reads the user's and groups' permissions.
    with django_assert_max_num_queries(14):
        small = admin_client.get(url)
    assert small.status_code == 200
    for s in [StoreFactory() for _ in range(20)]:
        _bulk_turns(s, 4, mode="native")
    with django_assert_max_num_queries(14):
        large = admin_client.get(url)
    assert large.status_code == 200


def test_a_turns_detail_makes_a_bounded_number_of_queries_however_many_steps(admin_client, store,
                                                                              django_assert_max_num_queries):
    turn = turn_start(store=store, conversation="c", index=1, mode="router", channel="api", actor="t", text="hi")
    for i in range(40):
        tool_call_record(store=store, channel="assistant", actor="t", name="get_inventory", arguments={"i": i},
                         result={}, outcome="ok", duration_ms=1,
                         statements=[CapturedStatement(f"SELECT {j}", 0.1) for j in range(5)],
                         conversation="c", mode="router", turn_id=turn.pk)
    with use_store(store):
        assert SqlStatement.objects.filter(record__turn=turn).count() == 200
    with django_assert_max_num_queries(10):  # 8 + the permission check's two
        response = admin_client.get(f"/ops/audit/turns/{turn.pk}/")
    assert response.status_code == 200 and response.context["sql_count"] == 200
