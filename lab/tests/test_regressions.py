"""Live turns marked as regression cases in the audit explorer, and replayed by ``bench``.

The live turns are real: the REST API with the store owner's token, the real pipeline, guard
layers, policy, gateway and ledger. Only the language models are replaced, at their process
boundary, by ``inference.fake.FakeBackend`` (router, guard, general): the "live" router makes the
mistake, the admin marks the turn over HTTP, and the replay runs the marked case through the real
``bench`` command on a fresh store of its own, once with a router that gets it right (the case
passes) and once with one that makes the live mistake again (the case fails, naming the check).
"""

from __future__ import annotations

import io
import json
from contextlib import ExitStack, contextmanager

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from assistant.models import BenchmarkRun, RegressionCase
from audit.models import Turn
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from ledger.models import Product
from tenants.context import use_store
from tenants.models import Store
from tenants.rls import bypass
from tenants.services import token_create
from tests.factories import UserFactory


def _request_text(request) -> str:
    return str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1].removesuffix("JSON:").strip()


@contextmanager
def _router(routes: dict[str, dict]):
    """A scripted router answering by the words of the request (first match), the guard judging safe."""

    def route(request):
        text = _request_text(request).casefold()
        return next((answer for word, answer in routes.items() if word in text), {"action": "general"})

    with ExitStack() as stack:
        stack.enter_context(backend_override(Role.ROUTER, FakeBackend(default=route)))
        stack.enter_context(backend_override(Role.GUARD, FakeBackend(default={"verdict": "safe", "category": "none"})))
        stack.enter_context(backend_override(Role.GENERAL, FakeBackend(default="Happy to help with that!")))
        yield


RIGHT = {
    "jaggery": {"action": "find_product", "item": "jaggery", "ask": "where"},  # the lexicon hears gur as jaggery
    "atta": {"action": "find_product", "item": "atta", "ask": "count"},
    "keep it": {"action": "find_product", "item": "it", "ask": "where"},  # "it": the conversation's last product
}
# The live mistake: "where did we put the gur" played the demo film.
LIVE = {"jaggery": {"action": "play_demo"}, "atta": RIGHT["atta"]}


@pytest.fixture
def token(demo):
    _, raw = token_create(store=demo, name="till", scopes=["api"])
    return raw


@pytest.fixture
def admin_client(db):
    client = Client()
    client.force_login(UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True))
    return client


def _live(token: str, text: str, conversation: str | None = None) -> Turn:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.post("/api/v1/turns", {"text": text, "mode": "router", "conversation": conversation},
                           format="json")
    assert response.status_code == 200, response.content
    answer = response.json()
    with bypass():  # on PostgreSQL a turn row is visible only in its store's context (row-level security)
        return Turn.objects.get(conversation=answer["conversation"], index=answer["turn"])


def _mark(client, turn: Turn, **fields):
    data = {"scope": "turn", "action": "", "product": "", "say": "", "not_say": "", "note": "", **fields}
    return client.post(f"/ops/audit/turns/{turn.pk}/regression/", data)


def _bench(*args: str) -> str:
    out = io.StringIO()
    call_command("bench", *args, "--mode", "router", "--no-warm", "--no-progress", stdout=out)
    return out.getvalue()


def _live_gur_mistake(token: str) -> Turn:
    with _router(LIVE):
        turn = _live(token, "uh where did we put the gur")
    assert turn.action == "play_demo"  # the mistake the case is about
    return turn


def test_a_marked_live_turn_replays_as_a_regression_case_and_fails_when_the_outcome_regresses(
        admin_client, demo, token, owner):
    turn = _live_gur_mistake(token)

    response = _mark(admin_client, turn, action="find_product", product="jaggery", say="Aisle 1",
                     not_say="happy to help", no_write="on", note="played the demo film")

    assert response.status_code == 302 and response["Location"] == "/ops/audit/regressions/"
    case = RegressionCase.objects.get()
    assert case.say == "uh where did we put the gur" and case.context == [] and case.source_turn == turn.pk
    assert case.expect == {"action": "find_product", "product": "Jaggery", "reply_all": ["Aisle 1"],
                           "reply_none": ["happy to help"], "ledger_unchanged": True}
    jaggery = next(p for p in case.store["products"] if p["name"] == "Jaggery")
    with use_store(demo):
        stock = Product.objects.get(store=demo, name="Jaggery").stock
    assert (jaggery["stock"], jaggery["price"], jaggery["location"]) == (stock, "6.00", "Aisle 1, oil shelf, upper right")
    assert case.store["business_type"] == "grocery" and case.store["currency"] == "USD"
    listed = admin_client.get("/ops/audit/regressions/")
    assert listed.status_code == 200 and "uh where did we put the gur" in listed.content.decode()

    stores = set(Store.objects.values_list("pk", flat=True))
    with _router(RIGHT):
        fixed = _bench("--suite", "regressions")
    assert "Passed: 1/1" in fixed
    with _router(LIVE):
        regressed = _bench("--suite", "regressions")
    assert "Passed: 0/1" in regressed
    first, second = BenchmarkRun.objects.order_by("id")
    assert (first.suite, first.turns_passed, second.turns_passed) == ("regressions", 1, 0)
    [failed] = second.results.all()
    assert "action: the turn's action was play_demo, expected find_product" in failed.failures
    assert any(line.startswith("product: no tool call named Jaggery") for line in failed.failures)
    assert any(line.startswith("reply_all: missing 'Aisle 1'") for line in failed.failures)
    assert set(Store.objects.values_list("pk", flat=True)) == stores  # the replay stores are gone


def test_a_whole_conversation_is_replayed_before_the_marked_turn_with_the_counts_the_turn_saw(
        admin_client, demo, token, tmp_path):
    with _router(RIGHT):
        first = _live(token, "how many bags of atta do we have")
        second = _live(token, "and where do we keep it", conversation=first.conversation)
    with use_store(demo):
        seen = Product.objects.get(store=demo, name="Atta").stock
        Product.objects.filter(store=demo, name="Atta").update(stock=seen - 5)  # the ledger moved on since

    response = _mark(admin_client, second, scope="conversation", product="Atta", say="Aisle 2")

    assert response.status_code == 302
    case = RegressionCase.objects.get()
    assert case.context == ["how many bags of atta do we have"] and case.say == "and where do we keep it"
    atta = next(p for p in case.store["products"] if p["name"] == "Atta")
    assert atta["stock"] == seen  # as the turns' own tool results showed it, not the ledger's count now

    exported = tmp_path / "regressions.json"
    call_command("regressions", "export", str(exported), stdout=io.StringIO())
    assert json.loads(exported.read_text())["cases"][0]["context"] == ["how many bags of atta do we have"]
    with _router(RIGHT):
        assert "Passed: 1/1" in _bench("--suite", str(exported))
    with _router({**RIGHT, "keep it": {"action": "play_demo"}}):  # the marked turn regresses
        assert "Passed: 0/1" in _bench("--suite", str(exported))
    alone = json.loads(exported.read_text())
    alone["cases"][0]["context"] = []
    exported.write_text(json.dumps(alone))
    with _router(RIGHT):  # without the turn before it, "it" stands for no product: the context is what passes it
        assert "Passed: 0/1" in _bench("--suite", str(exported))


def test_the_case_keeps_no_credential_store_identity_or_personal_data(admin_client, demo, token, owner):
    turn = _live_gur_mistake(token)
    _mark(admin_client, turn, action="find_product")

    saved = json.dumps(RegressionCase.objects.get().as_suite_case())
    for secret in (token, token[:12], owner.email, owner.username, demo.name, demo.slug, demo.owner_name,
                   turn.conversation):
        assert secret not in saved


@pytest.mark.parametrize("who", ["other_owner", "owner"])
def test_store_owners_can_neither_see_nor_mark_cases_not_even_of_their_own_turns(client, demo, token, who, request):
    turn = _live_gur_mistake(token)
    client.force_login(request.getfixturevalue(who))

    assert _mark(client, turn, action="find_product").status_code == 403
    assert client.get("/ops/audit/regressions/").status_code == 403
    assert not RegressionCase.objects.exists()
    RegressionCase.objects.create(title="x", say="x", expect={"action": "general"}, store={}, mode="router")
    assert client.post(f"/ops/audit/regressions/{RegressionCase.objects.get().pk}/delete/").status_code == 403
    assert RegressionCase.objects.count() == 1


def test_signed_out_visitors_are_sent_to_the_login_page(client, demo, token):
    turn = _live_gur_mistake(token)
    response = _mark(client, turn, action="find_product")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not RegressionCase.objects.exists()


@pytest.mark.parametrize("fields, message", [
    ({}, "Say what the turn should do"),
    ({"product": "Saffron"}, "The store has no product named"),
    ({"action": "teleport"}, "Select a valid choice"),
    ({"say": "x" * 130}, "At most 10 phrases of at most 120 characters"),
])
def test_a_mark_that_cannot_be_used_gets_a_short_error_and_changes_nothing(admin_client, demo, token, fields,
                                                                          message):
    turn = _live_gur_mistake(token)
    response = _mark(admin_client, turn, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not RegressionCase.objects.exists()


def test_bench_says_when_no_case_is_marked(db):
    with pytest.raises(CommandError, match="No regression case is marked yet"):
        _bench("--suite", "regressions")


def test_a_broken_captured_case_is_refused_naming_the_case(tmp_path, db):
    suite = tmp_path / "bad.json"
    case = {"say": "hi", "category": "x", "expect": {"product": "Ghee"},
            "store": {"business_type": "grocery", "timezone": "UTC", "currency": "USD",
                      "products": [{"name": "Atta", "stock": 3, "price": "1.00"}]}}
    suite.write_text(json.dumps({"store": "captured", "cases": [case]}))
    with pytest.raises(CommandError, match=r"case 1 \(\"hi\"\): expect key 'product': 'Ghee' is not a product"):
        _bench("--suite", str(suite))
    case["store"]["products"][0]["stock"] = -1
    suite.write_text(json.dumps({"store": "captured", "cases": [case]}))
    with pytest.raises(CommandError, match=r"case 1: store: product 'Atta': 'stock' must be a whole number"):
        _bench("--suite", str(suite))


def test_the_metrics_page_runs_the_marked_cases_like_any_suite(admin_client, demo, token, settings,
                                                              django_capture_on_commit_callbacks):
    def offered():
        return [name for name, _label in admin_client.get("/ops/metrics/").context["form"].fields["suite"].choices]

    assert "regressions" not in offered()  # nothing marked yet
    _mark(admin_client, _live_gur_mistake(token), action="find_product", product="Jaggery")
    assert offered()[-1] == "regressions"
    settings.DASHBOARD_BENCH_INLINE = True

    with _router(RIGHT), django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/ops/metrics/bench/", {"suite": "regressions", "mode": "router"},
                                     HTTP_ACCEPT="application/json")

    assert response.status_code == 202
    run = BenchmarkRun.objects.get()
    assert (run.suite, run.status, run.turns_total, run.turns_passed) == ("regressions", "done", 1, 1)


def test_a_business_type_without_a_router_pack_offers_codes_actions_only():
    from assistant.regressions import CODE_ACTIONS, action_choices

    assert action_choices("no-such-type") == CODE_ACTIONS
    assert "find_product" in action_choices("grocery") and "confirm" in action_choices("grocery")
