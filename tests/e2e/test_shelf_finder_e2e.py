"""A shopper using the store's shelf finder in headless Chromium, with and without JavaScript."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ledger import services
from ledger.photos import render_shelf_photo
from tenants.context import use_store
from tests.factories import StoreFactory

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)


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
    # Visible is not loaded (a lazy image starts loading when shown): wait for the load, bounded.
    page.wait_for_function("img => img.complete", arg=photo.element_handle(), timeout=10_000)
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
