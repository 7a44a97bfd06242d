"""The owner workspace over HTTP: approvals, reports and the assistant's history.

As ``test_owner_pages``: the pages through Django's test client, the books checked afterwards,
rows written through ledger services inside the store's context (row-level security).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail
from django.urls import reverse

from dashboard.tests.owner_data import make_draft, make_product, make_turn
from ledger.models import Order, ReorderDraft, ReportDelivery
from tenants.context import use_store

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def _in_store(store):
    """The test's own reads of the books run as the store (row-level security on PostgreSQL)."""
    with use_store(store):
        yield


# ---------------------------------------------------------------------------------------------
# Approvals


def test_approvals_list_pending_drafts_with_lines_and_estimated_cost(client, store, owner):
    dal = make_product(store, "Toor dal", stock=4, unit_cost=Decimal("5.00"))
    draft = make_draft(store, [(dal, 6)], source=ReorderDraft.Source.MCP)
    client.force_login(owner)
    html = client.get(reverse("owner:approvals")).content.decode()
    assert f"Draft #{draft.pk} · $30.00" in html
    assert "MCP client" in html and "Toor dal" in html
    assert reverse("owner:draft-approve", args=[draft.pk]) in html


def test_the_owner_approves_a_draft_and_the_order_records_who_and_when(client, store, owner):
    dal = make_product(store, "Toor dal", stock=4, unit_cost=Decimal("5.00"))
    draft = make_draft(store, [(dal, 6)])
    client.force_login(owner)
    response = client.post(reverse("owner:draft-approve", args=[draft.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("owner:approvals")
    draft.refresh_from_db()
    assert draft.status == "confirmed" and draft.decided_by == f"user:{owner.pk}" and draft.decided_at is not None
    order = Order.objects.get(draft=draft)
    assert order.total == Decimal("30.00") and order.placed_by == f"user:{owner.pk}"
    page = client.get(reverse("owner:approvals")).content.decode()
    assert f"Approved: order #{order.pk} placed" in page
    assert "alice@example.com" in page  # the decision, with who
    orders_page = client.get(reverse("owner:orders")).content.decode()
    assert f"Order #{order.pk} · $30.00" in orders_page and "Toor dal" in orders_page


def test_approve_and_decline_answer_json_for_the_talk_page(client, store, owner):
    dal = make_product(store, "Toor dal", stock=4, unit_cost=Decimal("5.00"))
    draft = make_draft(store, [(dal, 6)])
    client.force_login(owner)
    response = client.post(reverse("owner:draft-approve", args=[draft.pk]), **JSON)
    body = response.json()
    assert response.status_code == 200 and body["ok"] is True
    assert body["draft"]["id"] == draft.pk and body["draft"]["status"] == "confirmed"
    assert body["draft"]["lines"] == [{"product": "Toor dal", "qty": 6, "unit_cost": "5.00", "est_cost": "30.00"}]
    assert body["order"]["total"] == "30.00"
    # A second answer to the same draft is a clear refusal, and nothing more is ordered.
    again = client.post(reverse("owner:draft-decline", args=[draft.pk]), **JSON)
    assert again.status_code == 409 and again.json()["ok"] is False
    assert "already confirmed" in again.json()["message"]
    assert Order.objects.filter(store=store).count() == 1


def test_declining_orders_nothing(client, store, owner):
    dal = make_product(store, "Toor dal", stock=4)
    draft = make_draft(store, [(dal, 6)])
    client.force_login(owner)
    body = client.post(reverse("owner:draft-decline", args=[draft.pk]), **JSON).json()
    assert body == {**body, "ok": True, "message": "Declined: nothing was ordered."}
    draft.refresh_from_db()
    assert draft.status == "declined" and draft.decided_by == f"user:{owner.pk}"
    assert not Order.objects.exists()


def test_staff_see_drafts_but_cannot_approve_them(client, store, staff):
    dal = make_product(store, "Toor dal", stock=4)
    draft = make_draft(store, [(dal, 6)])
    client.force_login(staff)
    html = client.get(reverse("owner:approvals")).content.decode()
    assert f"Draft #{draft.pk}" in html
    assert reverse("owner:draft-approve", args=[draft.pk]) not in html
    assert "only the store's owner can approve" in html
    assert client.post(reverse("owner:draft-approve", args=[draft.pk])).status_code == 403
    response = client.post(reverse("owner:draft-approve", args=[draft.pk]), **JSON)
    assert response.status_code == 403 and response.json()["ok"] is False
    assert client.post(reverse("owner:draft-decline", args=[draft.pk])).status_code == 403
    draft.refresh_from_db()
    assert draft.status == "pending" and not Order.objects.exists()


def test_approving_needs_a_post(client, store, owner):
    dal = make_product(store, "Toor dal", stock=4)
    draft = make_draft(store, [(dal, 6)])
    client.force_login(owner)
    assert client.get(reverse("owner:draft-approve", args=[draft.pk])).status_code == 405
    draft.refresh_from_db()
    assert draft.status == "pending"


def test_an_unknown_draft_is_not_found(client, store, owner):
    client.force_login(owner)
    assert client.post(reverse("owner:draft-approve", args=[999999])).status_code == 404
    response = client.post(reverse("owner:draft-approve", args=[999999]), **JSON)
    assert response.status_code == 404 and response.json() == {
        "ok": False, "message": "That draft was not found in this store.", "draft": None
    }


def test_drafting_a_reorder_of_low_items_from_the_dashboard(client, store, owner):
    make_product(store, "Toor dal", stock=4, par=40, reorder=8, unit_cost=Decimal("5.00"))
    make_product(store, "Atta", stock=30, par=40, reorder=8)
    client.force_login(owner)
    response = client.post(reverse("owner:draft-low"), follow=True)
    draft = ReorderDraft.objects.get(store=store)
    assert draft.source == "dashboard" and draft.status == "pending" and draft.actor == f"user:{owner.pk}"
    assert [(line.product.name, line.qty) for line in draft.lines.all()] == [("Toor dal", 36)]
    assert "Drafted a reorder of 1 low products, about $180.00" in response.content.decode()


def test_drafting_with_nothing_low_says_so_and_drafts_nothing(client, store, owner):
    make_product(store, "Atta", stock=30)
    client.force_login(owner)
    response = client.post(reverse("owner:draft-low"), follow=True)
    assert "nothing to restock" in response.content.decode()
    assert not ReorderDraft.objects.exists()


# ---------------------------------------------------------------------------------------------
# Reports


def test_sending_a_report_emails_the_store_and_records_it(client, store, owner):
    make_product(store, "Toor dal", stock=4)
    client.force_login(owner)
    response = client.post(reverse("owner:report-send"), {"kind": "inventory"}, follow=True)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.com"]
    assert "Toor dal" in mail.outbox[0].body
    delivery = ReportDelivery.objects.get(store=store)
    assert delivery.kind == "inventory" and delivery.actor == f"user:{owner.pk}"
    assert "Inventory report sent to alice@example.com." in response.content.decode()


def test_an_unknown_report_kind_sends_nothing(client, store, owner):
    client.force_login(owner)
    response = client.post(reverse("owner:report-send"), {"kind": "payroll"})
    assert response.status_code == 400 and not mail.outbox and not ReportDelivery.objects.exists()


# ---------------------------------------------------------------------------------------------
# Assistant history


def test_assistant_history_shows_turns_with_their_tool_calls_and_reply(client, store, owner, other_store):
    make_turn(store, "How much toor dal do we have?", "We have 4 bags of Toor dal.")
    make_turn(other_store, "Secret other question", "Secret other reply", conversation="conv-x")
    client.force_login(owner)
    html = client.get(reverse("owner:assistant")).content.decode()
    assert "How much toor dal do we have?" in html and "We have 4 bags of Toor dal." in html
    assert "<details" in html and "get_inventory" in html and "&quot;stock&quot;: 4" in html
    assert "Secret other" not in html


def test_assistant_history_pages_back_through_older_turns(client, store, owner):
    for i in range(45):
        make_turn(store, f"question number {i:02d}", "ok", conversation=f"c{i}")
    client.force_login(owner)
    first = client.get(reverse("owner:assistant"))
    assert "question number 44" in first.content.decode() and "question number 04" not in first.content.decode()
    older = first.context["older"]
    second = client.get(reverse("owner:assistant"), {"before": older}).content.decode()
    assert "question number 04" in second and "question number 44" not in second
    assert client.get(reverse("owner:assistant"), {"before": "drop table"}).status_code == 200
