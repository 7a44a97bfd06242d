"""A shopper using the store's shelf finder in headless Chromium, with and without JavaScript."""

from __future__ import annotations

import os
from collections.abc import Iterator
from decimal import Decimal

import pytest

from ledger import services
from ledger.photos import render_shelf_photo
from tenants.context import use_store
from tests.factories import StoreFactory

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module", autouse=True)
def _sync_database_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop in the test thread; Django then refuses the test's
    own ORM calls. They are plain synchronous calls in that thread, so allow them for this module."""
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if saved is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture
def browser(chromium_args, transactional_db):
    """This module's Chromium starts after the test database is set up and its migrated rows restored.

    The shared fixture is module-scoped, so pytest starts it before the function-scoped database
    fixtures; with Playwright's event loop already running, the restore of the migrated rows
    (grocery business type) that a transactional test needs at setup was skipped.
    """
    from tests.e2e.conftest import CHROMIUM

    if not CHROMIUM:
        pytest.skip("Chromium is not installed (apt-get install chromium chromium-driver).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", *chromium_args])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def shop(db):
    store = StoreFactory(slug="spice-corner", name="Spice Corner")
    with use_store(store):
        for name, location in [("Turmeric powder", "Aisle 1, spice rack, row 1"), ("Toor dal", "Aisle 3, middle shelf")]:
            product = services.product_create(
                store=store, name=name, unit="200 g pack", category="Spices", location=location, stock=17,
                par_level=40, reorder_point=8, price=Decimal("3.49"), unit_cost=Decimal("1.61"), actor="system:test",
            )
            png = render_shelf_photo(name=name, unit=product.unit, location=location, category="Spices")
            services.product_photo_set(store=store, product=product, content=png)
    return store


def test_a_shopper_finds_a_product_by_its_local_name_with_and_without_javascript(page, browser, live_url, shop):
    page.goto(f"{live_url}/s/{shop.slug}/find")
    page.get_by_label("What are you looking for?").fill("where is the haldi")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Turmeric powder")).to_be_visible()
    expect(page.get_by_text("Aisle 1, spice rack, row 1")).to_be_visible()
    photo = page.get_by_role("img", name="The shelf where Turmeric powder is")
    expect(photo).to_be_visible()
    assert page.evaluate("img => img.complete && img.naturalWidth > 0", photo.element_handle())
    assert "17" not in page.content() and "3.49" not in page.content()

    # Without JavaScript the form still answers, and the mic button never shows.
    context = browser.new_context(java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(f"{live_url}/s/{shop.slug}/find")
        expect(plain.locator("#say-it")).to_be_hidden()
        plain.get_by_label("What are you looking for?").fill("tour dahl")
        plain.get_by_role("button", name="Find").click()
        expect(plain.get_by_role("heading", name="Toor dal")).to_be_visible()
        expect(plain.get_by_text("Aisle 3, middle shelf")).to_be_visible()
    finally:
        context.close()
