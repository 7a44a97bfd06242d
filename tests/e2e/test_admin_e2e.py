"""A platform admin in headless Chromium: sign in, explore the audit, open a turn, see its tool calls and SQL.

The audited turns are real: ``assistant.pipeline.run_turn`` with the real guard layers, policy,
gateway and ledger; only the language models are replaced at their process boundary by
``inference.fake.FakeBackend`` (``inference.config.backend_override``).
"""

from __future__ import annotations

import re

import pytest

from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from ledger.demo import install_demo_catalog
from tenants.context import use_store
from tests.e2e.conftest import sign_in
from tests.factories import StoreFactory, UserFactory

PASSWORD = "correct horse battery staple"


@pytest.mark.django_db(transaction=True)
def test_an_admin_filters_the_audit_and_opens_a_turn_with_its_tool_calls_and_sql(page, live_url):
    from allauth.account.models import EmailAddress

    admin = UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True, password=PASSWORD)
    EmailAddress.objects.create(user=admin, email=admin.email, verified=True, primary=True)
    shop, other = StoreFactory(slug="corner-shop", name="Corner Shop"), StoreFactory(slug="other-shop",
                                                                                      name="Other Shop")
    routes = {"turmeric": {"action": "find_product", "item": "turmeric powder", "ask": "where"},
              "sales": {"action": "todays_sales"}}
    router = FakeBackend(default=lambda request: next(
        (a for w, a in routes.items() if w in str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1]),
        {"action": "general"}))
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    with backend_override(Role.ROUTER, router), backend_override(Role.GUARD, guard), \
            backend_override(Role.GENERAL, FakeBackend(default="Hello!")):
        for store in (shop, other):
            with use_store(store):
                install_demo_catalog(store=store)
            run_turn(store=store, turn=TurnInput(text="where did we put the haldi", mode=Mode.ROUTER, channel="api",
                                                 actor="e2e"))
        run_turn(store=shop, turn=TurnInput(text="how are sales today", mode=Mode.ROUTER, channel="api",
                                            actor="e2e"))

    sign_in(page, live_url, email=admin.email, password=PASSWORD)
    page.goto(f"{live_url}/ops/audit/")
    assert page.locator("#turns tbody tr").count() == 3

    page.select_option("#id_store", "corner-shop")
    page.fill("#id_tool", "get_inventory")
    page.click("button:has-text('Filter')")
    page.wait_for_url(re.compile(r".*store=corner-shop.*"))
    rows = page.locator("#turns tbody tr")
    assert rows.count() == 1
    assert "Corner Shop" in rows.first.inner_text() and "get_inventory" in rows.first.inner_text()

    rows.first.locator("td.said a").click()
    page.wait_for_selector("#steps")
    assert page.locator("#normalized").inner_text() == "where did we put the turmeric powder"
    tool = page.locator(".step-tool_call").first
    assert "get_inventory" in tool.inner_text()
    assert "Turmeric powder" in tool.locator("pre").first.inner_text()
    sql = tool.locator(".sql-list li")
    assert sql.count() >= 1
    assert "ledger_product" in tool.locator(".sql-list").inner_text()
    assert page.locator(".step-model_call").count() >= 1
    assert "input_guard" in page.locator(".step-guard").first.inner_text()


@pytest.mark.django_db(transaction=True)
def test_an_admin_starts_a_benchmark_and_watches_its_progress_bar_fill(page, live_url):
    """No broker here, so the run goes to a background thread of the server; the page polls its progress."""
    from allauth.account.models import EmailAddress

    from assistant.models import BenchmarkRun

    admin = UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True, password=PASSWORD)
    EmailAddress.objects.create(user=admin, email=admin.email, verified=True, primary=True)
    with backend_override(Role.ROUTER, FakeBackend(default={"action": "general"})), \
            backend_override(Role.GUARD, FakeBackend(default={"verdict": "safe", "category": "none"})), \
            backend_override(Role.GENERAL, FakeBackend(default="Good morning! How can I help?")):
        sign_in(page, live_url, email=admin.email, password=PASSWORD)
        page.goto(f"{live_url}/ops/metrics/")
        page.select_option("#id_mode", "router")
        page.fill("#id_limit", "2")
        page.click("button:has-text('Start run')")
        page.wait_for_function("document.getElementById('bench-status').textContent.startsWith('Done')",
                               timeout=60_000)
        assert page.locator("#bench-bar").get_attribute("value") == "100"
        assert "of 2 turns passed" in page.locator("#bench-status").inner_text()
    run = BenchmarkRun.objects.get()
    assert (run.status, run.turns_total, run.results.count()) == ("done", 2, 2)
