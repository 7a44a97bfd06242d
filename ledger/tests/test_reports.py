"""Inventory and sales reports: rendered from the books, emailed only to allowed addresses."""

from __future__ import annotations

import pytest

from ledger import services
from ledger.errors import InvalidInput, RecipientNotAllowed, ReportDisabled
from ledger.models import ReportDelivery
from ledger.tests.conftest import ACTOR, DEMO_NOW
from tenants.context import use_store


@pytest.fixture
def stocked(store, make_product):
    make_product("Atta", stock=30, par_level=40, reorder_point=8)
    dal = make_product("Toor dal", stock=4, par_level=46, reorder_point=8)
    return dal


def _deliveries(store):
    with use_store(store):
        return list(ReportDelivery.objects.filter(store=store).values_list("kind", "recipient", "actor"))


def _recipient(store, email, *, confirmed=True):
    from django.utils import timezone

    from tenants.context import use_store
    from tenants.models import ReportRecipient

    with use_store(store):  # recipients are fenced on PostgreSQL
        return ReportRecipient.objects.create(
            store=store, email=email, token_hash=email, added_by=ACTOR, created_at=timezone.now(),
            confirmed_at=timezone.now() if confirmed else None,
        )


def test_the_inventory_report_goes_to_the_owner_by_default_with_an_html_alternative(store, owner, stocked, mailoutbox):
    [delivery] = services.report_send(store=store, kind="inventory", actor="assistant:router")
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["alice@example.com"]
    assert "Corner Shop" in message.subject and "inventory report" in message.subject
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html"
    assert "<table" in html and "Toor dal" in html
    # Low items come first, with what to order and the value at cost.
    assert message.body.index("Toor dal") < message.body.index("Atta")
    assert "order 42." in message.body and "42 brings it up to par" in message.body
    assert "$20.00" in message.body
    assert (delivery.kind, delivery.recipient) == ("inventory", "alice@example.com")
    assert _deliveries(store) == [("inventory", "alice@example.com", "assistant:router")]


def test_confirmed_recipients_get_the_report_instead_of_the_owner(store, owner, stocked, mailoutbox):
    _recipient(store, "books@corner.example")
    _recipient(store, "partner@corner.example")
    _recipient(store, "unconfirmed@corner.example", confirmed=False)
    services.report_send(store=store, kind="inventory", actor=ACTOR)
    assert mailoutbox[0].to == ["books@corner.example", "partner@corner.example"]
    assert sorted(r for _k, r, _a in _deliveries(store)) == ["books@corner.example", "partner@corner.example"]


def test_a_recipient_who_has_not_confirmed_gets_nothing(store, owner, stocked, mailoutbox):
    _recipient(store, "accountant@example.net", confirmed=False)
    with pytest.raises(RecipientNotAllowed):
        services.report_send(store=store, kind="inventory", actor=ACTOR, to="accountant@example.net")
    assert mailoutbox == [] and _deliveries(store) == []


def test_another_recipient_is_refused_unless_confirmed(store, owner, stocked, mailoutbox):
    with pytest.raises(RecipientNotAllowed):
        services.report_send(store=store, kind="inventory", actor=ACTOR, to="stranger@example.net")
    assert mailoutbox == [] and _deliveries(store) == []
    services.report_send(store=store, kind="inventory", actor=ACTOR, to="ALICE@example.com")
    _recipient(store, "accountant@example.net")
    services.report_send(store=store, kind="inventory", actor=ACTOR, to="accountant@example.net")
    assert [m.to for m in mailoutbox] == [["ALICE@example.com"], ["accountant@example.net"]]


def test_a_malformed_address_is_refused(store, owner, stocked, mailoutbox):
    with pytest.raises(InvalidInput):
        services.report_send(store=store, kind="inventory", actor=ACTOR, to="not an address\nBcc: x@y.z")
    assert mailoutbox == []


def test_a_store_without_any_address_cannot_send(store, stocked, mailoutbox):
    with pytest.raises(RecipientNotAllowed):
        services.report_send(store=store, kind="inventory", actor=ACTOR)
    assert mailoutbox == []


def test_nothing_is_sent_before_the_owner_verified_their_address(store, stocked, mailoutbox):
    from tests.factories import MembershipFactory, UserFactory

    MembershipFactory(user=UserFactory(username="dora", email="dora@example.com"), store=store, role="owner")
    _recipient(store, "books@corner.example")
    with pytest.raises(RecipientNotAllowed) as caught:
        services.report_send(store=store, kind="inventory", actor=ACTOR)
    assert "Confirm the owner's email" in caught.value.message
    assert mailoutbox == [] and _deliveries(store) == []


def test_the_sales_report_is_refused_when_switched_off(store, owner, stocked, mailoutbox, settings):
    settings.SALES_REPORT_EMAIL_ENABLED = False
    with pytest.raises(ReportDisabled) as caught:
        services.report_send(store=store, kind="sales", actor=ACTOR)
    assert caught.value.code == "report_disabled"
    assert mailoutbox == [] and _deliveries(store) == []
    services.report_send(store=store, kind="inventory", actor=ACTOR)
    assert len(mailoutbox) == 1


def test_the_sales_report_shows_todays_receipts_and_top_sellers(store, owner, stocked, mailoutbox):
    services.receipt_create(store=store, lines=[(stocked, 2)], actor=ACTOR)
    services.report_send(store=store, kind="sales", actor=ACTOR)
    message = mailoutbox[0]
    assert "sales report" in message.subject
    assert "1 receipt today, 2 units sold, $17.98 in sales" in message.body
    assert "Toor dal: 2 units, $17.98" in message.body
    assert message.alternatives[0][1] == "text/html"


def test_unknown_report_kinds_are_refused(store, owner):
    with pytest.raises(InvalidInput):
        services.report_render(store=store, kind="payroll")


def test_rendering_the_demo_sales_report_needs_no_email(demo_store, db, mailoutbox):
    subject, text, html = services.report_render(store=demo_store, kind="sales", now=DEMO_NOW)
    assert subject == "Little India Grocery: sales report for Wed 12 Mar 2025"
    assert "40 receipts today" in text
    assert "The last seven days" in text and "Wed 12 Mar: 40 receipts" in text
    assert "<html" in html
    assert mailoutbox == []


def test_store_names_are_escaped_in_the_html_report(store, owner, stocked):
    store.name = "Tom & Jerry's <Deli>"
    store.save()
    _subject, text, html = services.report_render(store=store, kind="inventory")
    assert "<Deli>" not in html and "&lt;Deli&gt;" in html
    assert "Tom & Jerry's <Deli>" in text
