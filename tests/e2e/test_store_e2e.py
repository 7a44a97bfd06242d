"""A real store in headless Chromium against the real ASGI app, from an empty sign-up.

The owner signs up (confirming the email), creates an empty store, imports a catalog CSV and an
opening stock count, asks the assistant about an imported product by text, records a sale and sees
stock fall, then invites a staff member who joins from the emailed link, counts stock, and cannot
place an order by saying yes. The router model is a scripted fake in this process; the guard's own
small models, the gateway, the ledger and the pages are real. The books are checked at each step.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core import mail

from inference.base import Role
from inference.fake import FakeBackend
from inference.fake import fake_models as scripted_models
from ledger.models import CatalogImport, Order, Product, ReorderDraft
from tenants.context import use_store
from tenants.models import Membership, Store

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)

OWNER, STAFF = "meera@example.com", "ravi@example.com"
PASSWORD = "store-journey-pass-42"
REPLY_TIMEOUT_MS = 60_000
CATALOG = (
    "sku,name,category,unit,aisle,shelf,position,price,unit_cost,par_level,reorder_point,aliases\n"
    "KN-1,Kala namak,Spices,100 g pack,1,spice rack,row 6,2.49,1.10,20,4,black salt\n"
    "CH-1,Chai masala tea,Tea,250 g box,4,tea shelf,,5.99,3.00,30,5,\n"
)


@pytest.fixture
def router() -> Iterator[FakeBackend]:
    from assistant.guard import get_guard

    get_guard().classifier.warm_up()
    get_guard().injection.warm_up()
    with scripted_models(Role.ROUTER) as fake:
        yield fake


def _link(to: str, pattern: str) -> str:
    for message in reversed(mail.outbox):
        if to in message.to:
            found = re.search(pattern, message.body)
            if found:
                return found.group(0)
    raise AssertionError(f"no email to {to} with {pattern}")


def _sign_up(page, live_url: str, email: str, start: str) -> None:
    page.goto(start)
    page.fill("input[name=email]", email)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form button[type=submit]")


def _import(page, live_url: str, kind_label: str, name: str, content: str) -> None:
    page.goto(f"{live_url}/app/catalog/import/")
    page.get_by_label(kind_label).check()
    page.set_input_files("input[name=file]", files=[{"name": name, "mimeType": "text/csv", "buffer": content.encode()}])
    page.get_by_role("button", name="Upload and preview").click()
    apply = page.get_by_role("button", name=re.compile(r"^Apply"))
    expect(apply).to_be_visible(timeout=30_000)
    apply.click()
    expect(page.locator("#import-status")).to_have_attribute("data-status", "applied", timeout=30_000)


def _stock(store, sku: str) -> int:
    with use_store(store):
        return Product.objects.get(store=store, sku=sku).stock


def _say(page, text: str, turns: int) -> None:
    page.fill("#talk-text", text)
    page.click("#talk-send")
    expect(page.locator("#talk")).to_have_attribute("data-turns", str(turns), timeout=REPLY_TIMEOUT_MS)


def test_an_owner_runs_an_empty_store_from_a_csv_and_a_staff_member_counts_but_cannot_order(page, browser, live_url, router):
    # Sign up, confirm the address from the email, create an empty store.
    _sign_up(page, live_url, OWNER, f"{live_url}/accounts/signup/")
    expect(page).to_have_url(re.compile(r"/accounts/confirm-email/"))
    page.goto(_link(OWNER, r"http://[^\s]+/accounts/confirm-email/[^\s]+").replace("http://127.0.0.1:8000", live_url))
    page.get_by_role("button", name=re.compile("Confirm")).click()
    expect(page).to_have_url(re.compile(r"/app/stores/new/$"))
    page.get_by_label("Store name").fill("Meera's Market")
    page.get_by_label("An empty store").check()
    page.get_by_role("button", name="Create store").click()
    expect(page.get_by_text("Meera's Market is ready.")).to_be_visible()
    store = Store.objects.get(name="Meera's Market")
    with use_store(store):
        assert not Product.objects.filter(store=store).exists()

    # Import the catalog, then an opening stock count.
    _import(page, live_url, "Catalog", "catalog.csv", CATALOG)
    _import(page, live_url, "Opening stock count", "stock.csv", "sku,stock\nKN-1,12\n")
    with use_store(store):
        assert set(CatalogImport.objects.filter(store=store).values_list("status", flat=True)) == {"applied"}
    assert _stock(store, "KN-1") == 12

    # Ask the assistant about an imported product by text.
    router.add({"action": "find_product", "item": "black salt", "ask": "where"})
    page.goto(f"{live_url}/app/talk/")
    expect(page.locator("#talk")).to_have_attribute("data-socket", "ready")
    _say(page, "where do we keep the black salt", 1)
    expect(page.locator("#talk-reply")).to_contain_text("Aisle 1, spice rack, row 6")

    # Record a sale and see stock fall.
    page.goto(f"{live_url}/app/sales/new")
    page.get_by_label("Product").fill("KN-1")
    page.get_by_label("Quantity").fill("2")
    page.get_by_role("button", name="Record sale").click()
    expect(page.get_by_text(re.compile(r"10 left in stock"))).to_be_visible()
    assert _stock(store, "KN-1") == 10

    # Invite a staff member, who joins from the emailed link with a new account.
    page.goto(f"{live_url}/app/members/")
    page.get_by_label("Email address").fill(STAFF)
    page.get_by_role("button", name="Send invitation").click()
    expect(page.get_by_text(f"Invitation sent to {STAFF}")).to_be_visible()
    link = _link(STAFF, r"http://[^\s]+/app/invitations/[^\s]+").replace("http://127.0.0.1:8000", live_url)
    staff_context = browser.new_context(viewport={"width": 1280, "height": 900})
    staff_context.set_default_timeout(15_000)
    staff = staff_context.new_page()
    try:
        staff.goto(link)
        staff.get_by_role("link", name="Create an account").click()
        _sign_up(staff, live_url, STAFF, staff.url)
        staff.goto(link)
        staff.get_by_role("button", name=re.compile("Join Meera")).click()
        expect(staff.get_by_text("Welcome to Meera's Market.")).to_be_visible()
        assert Membership.objects.get(store=store, user__email=STAFF).role == "staff"

        # Staff count stock on the product page.
        with use_store(store):
            salt = Product.objects.get(store=store, sku="KN-1")
        staff.goto(f"{live_url}/app/inventory/{salt.pk}/")
        staff.get_by_label("New count").fill("9")
        staff.get_by_role("button", name="Save count").click()
        expect(staff.get_by_text("Kala namak: the count is now 9.")).to_be_visible()
        assert _stock(store, "KN-1") == 9

        # Staff may draft a restock through the assistant, but their yes places nothing.
        router.add({"action": "draft_restock"})
        staff.goto(f"{live_url}/app/talk/")
        expect(staff.locator("#talk")).to_have_attribute("data-socket", "ready")
        _say(staff, "restock all the low stuff", 1)
        _say(staff, "yes, place the order", 2)
        expect(staff.locator("#talk-reply")).to_contain_text("Only the store's owner can place orders")
        with use_store(store):
            assert not Order.objects.filter(store=store).exists()
            assert ReorderDraft.objects.get(store=store).status == "pending"
    finally:
        staff_context.close()
