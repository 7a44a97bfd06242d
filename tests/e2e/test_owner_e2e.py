"""The owner workspace in headless Chromium against the real ASGI app.

One journey, as a new owner lives it: sign up, create a store with the demo catalog, find a low
item on the inventory (live search), draft and approve a reorder, then create and revoke a token.
The books are checked after each step. No model runs: nothing here goes through the assistant.
"""

from __future__ import annotations

import re

import pytest
from django.core import mail

from ledger.models import Order, ReorderDraft
from tenants.context import use_store
from tenants.models import Membership, Store, StoreToken

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)


EMAIL = "meera@example.com"
PASSWORD = "owner-journey-pass-42"


def test_a_new_owner_signs_up_finds_a_low_item_approves_a_reorder_and_manages_a_token(page, live_url):
    # Sign up (allauth) and create a store with the demo catalog.
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=email]", EMAIL)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/accounts/confirm-email/"))  # sign-up verifies the address first
    link = re.search(r"http://[^\s]+/accounts/confirm-email/[^\s]+", mail.outbox[-1].body).group(0)
    page.goto(link)
    page.get_by_role("button", name=re.compile("Confirm")).click()
    expect(page).to_have_url(re.compile(r"/app/stores/new/$"))
    page.get_by_label("Store name").fill("Meera's Market")
    page.get_by_label("The demo catalog").check()
    page.get_by_role("button", name="Create store").click()
    expect(page.get_by_text("Meera's Market is ready.")).to_be_visible()
    store = Store.objects.get(name="Meera's Market")
    membership = Membership.objects.get(store=store, user__email=EMAIL)
    assert membership.role == "owner"

    # Inventory: low items come first; live search narrows the table without a reload.
    page.get_by_role("link", name="Open the workspace").click()
    expect(page.get_by_role("heading", name="Inventory", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Inventory", exact=True)).to_have_attribute("aria-current", "page")
    first_row = page.locator("table.inventory tbody tr").first
    expect(first_row.locator(".tag-low, .tag-out")).to_be_visible()
    page.get_by_label("Search products").fill("toor")
    expect(page).to_have_url(re.compile(r"q=toor"))
    rows = page.locator("table.inventory tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Toor dal")
    expect(rows.first.locator(".tag-low")).to_have_text("Low")

    # Approvals: draft a reorder of the low items here, then approve it.
    page.get_by_role("link", name="Approvals").click()
    page.get_by_role("button", name=re.compile(r"Draft a reorder of the 3 low items")).click()
    expect(page.get_by_text(re.compile(r"Drafted a reorder of 3 low products"))).to_be_visible()
    with use_store(store):  # ledger rows are under row-level security on PostgreSQL
        draft = ReorderDraft.objects.get(store=store, status="pending")
    card = page.locator(f"#draft-{draft.pk}")
    expect(card).to_contain_text("Toor dal")
    expect(card).to_contain_text("$401.70")  # 42 x $5.00 + 21 x $4.50 + 18 x $5.40 at cost
    card.get_by_role("button", name=f"Approve draft #{draft.pk}").click()
    expect(page.get_by_text(re.compile(r"Approved: order #\d+ placed"))).to_be_visible()
    with use_store(store):
        draft.refresh_from_db()
        order = Order.objects.get(draft=draft)
    assert draft.status == "confirmed" and draft.decided_by == f"user:{membership.user_id}"
    page.get_by_role("link", name="Orders").click()
    expect(page.get_by_text(f"Order #{order.pk} · $401.70")).to_be_visible()

    # Credentials: create a token (shown once), then revoke it.
    page.get_by_role("link", name="Credentials").click()
    page.get_by_label("Name").fill("Claude Desktop")
    page.get_by_role("button", name="Create token").click()
    shown = page.locator("#new-token").input_value()
    with use_store(store):  # tokens are fenced on PostgreSQL
        token = StoreToken.objects.get(store=store, name="Claude Desktop")
    assert shown.startswith(f"sw_{token.prefix}_") and token.revoked_at is None
    page.goto(f"{live_url}/app/tokens/")
    expect(page.locator("#new-token")).to_have_count(0)  # shown once only
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("Token “Claude Desktop” is revoked")).to_be_visible()
    with use_store(store):
        token.refresh_from_db()
    assert token.revoked_at is not None
