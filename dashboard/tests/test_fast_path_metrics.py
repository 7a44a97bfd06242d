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
