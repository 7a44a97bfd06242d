"""The metrics page shows how many router decisions the fast-path matcher made (the rest: the model)."""

from __future__ import annotations

from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from inference.base import Role
from inference.fake import fake_models
from ledger.demo import install_demo_catalog
from tenants.context import use_store


def _say(store, text):
    return run_turn(store=store, turn=TurnInput(text=text, mode=Mode.ROUTER, channel="api", actor="test"))


def test_the_metrics_page_shows_the_fast_paths_share_of_router_decisions(admin_client, store, settings):
    settings.SHELFWISE_FAST_PATH = True
    with use_store(store):
        install_demo_catalog(store=store)
    with fake_models(Role.ROUTER, default={"action": "general"}) as router:
        _say(store, "where is the haldi")  # the matcher
        _say(store, "what's the weather like in delhi")  # the model
    assert len(router.requests) == 1

    response = admin_client.get("/ops/metrics/")

    assert response.status_code == 200
    router_row = {m.mode: m for m in response.context["traffic"].modes}["router"]
    assert (router_row.matched, router_row.model_routed, router_row.matched_share) == (1, 1, 50)
    assert "1/2 (50%)" in response.content.decode()


def test_a_platform_without_router_turns_shows_no_fast_path_share(admin_client, db):
    response = admin_client.get("/ops/metrics/")
    assert response.status_code == 200 and "Fast path" in response.content.decode()
    assert response.context["traffic"].modes == []


def test_the_metrics_page_counts_the_decisions_taught_phrases_made(admin_client, store, settings):
    from assistant.matcher.taught import teach
    from audit.models import Turn

    settings.SHELFWISE_FAST_PATH = True
    with use_store(store):
        install_demo_catalog(store=store)
    with fake_models(Role.ROUTER, default={"action": "todays_sales"}) as router:
        _say(store, "how much dough did we pull in")  # the model decides; the owner then teaches it
        with use_store(store):
            teach(store=store, turn_id=Turn.objects.get(store=store).pk, action="todays_sales", actor="user:1")
        _say(store, "how much dough have we pulled in today")  # the taught phrase decides
    assert len(router.requests) == 1

    router_row = {m.mode: m for m in admin_client.get("/ops/metrics/").context["traffic"].modes}["router"]
    assert (router_row.matched, router_row.model_routed, router_row.taught) == (1, 1, 1)
