"""The talk page over HTTP: who gets it, and that it carries only the signed-in owner's store."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import NoReverseMatch, reverse

from dashboard.views.talk import DRAFT_ID_PLACEHOLDER

pytestmark = pytest.mark.django_db

URL = "/app/talk/"


def _attribute(page: str, name: str) -> str:
    match = re.search(rf'{name}="([^"]*)"', page)
    assert match, f"{name} is missing from the page"
    return match.group(1)


def test_the_talk_url_is_named_and_sits_in_the_workspace():
    assert reverse("talk:talk") == URL


def test_a_signed_in_owner_gets_the_page_with_the_voice_socket_of_their_store(client, owner, store):
    client.force_login(owner)
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert _attribute(page, "data-socket-path") == "/ws/stores/corner-shop/voice"
    assert _attribute(page, "data-store") == "corner-shop"
    assert _attribute(page, "data-turns-url") == "/api/v1/turns"
    assert "Talk to Corner Shop" in page
    assert "dashboard/talk.js" in page and "dashboard/talk.css" in page
    assert "dashboard/pcm-worklet.js" in _attribute(page, "data-worklet-url")


def test_the_page_has_every_control_for_voice_keyboard_and_screen_readers(client, owner):
    client.force_login(owner)
    page = client.get(URL).content.decode()
    for control in ('id="talk-button"', 'id="talk-handsfree"', 'id="talk-mute"', 'id="talk-mode"',
                    'id="talk-text"', 'id="talk-approve"', 'id="talk-decline"', 'id="talk-calls"'):
        assert control in page, control
    assert re.search(r'id="talk-reply"[^>]*aria-live="polite"', page)
    assert '<label for="talk-text">' in page and '<label for="talk-mode"' in page
    options = re.findall(r'<option value="(\w+)"', page)
    assert options == ["router", "native", "small"]
    assert 'name="csrfmiddlewaretoken"' in page
    # No external CDN: every script and stylesheet is the app's own.
    assert not re.search(r'(src|href)="https?://', page)


def test_approval_urls_are_rendered_only_when_the_approvals_endpoints_exist(client, owner):
    client.force_login(owner)
    page = client.get(URL).content.decode()
    try:
        expected = reverse("owner:draft-approve", args=[DRAFT_ID_PLACEHOLDER])
    except NoReverseMatch:
        expected = ""  # the page then answers the draft with a typed "yes" / "no"
    assert _attribute(page, "data-approve-url") == expected
    assert _attribute(page, "data-draft-placeholder") == str(DRAFT_ID_PLACEHOLDER)


def test_an_anonymous_visitor_is_sent_to_sign_in(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert "next=/app/talk/" in response["Location"]


def test_a_user_without_a_store_is_sent_home_to_create_one(client):
    user = get_user_model().objects.create_user(username="nostore", email="nostore@example.com", password="x" * 12)
    client.force_login(user)
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"] == reverse("tenants:home")


def test_the_page_names_only_the_owners_store_never_another(client, owner, store, other_owner, other_store):
    client.force_login(owner)
    page = client.get(URL).content.decode()
    assert "corner-shop" in page
    assert "other-shop" not in page and "Other Shop" not in page

    client.force_login(other_owner)
    page = client.get(URL).content.decode()
    assert _attribute(page, "data-socket-path") == "/ws/stores/other-shop/voice"
    assert "corner-shop" not in page and "Corner Shop" not in page


def test_a_member_of_two_stores_talks_to_the_one_they_switched_to(client, owner, store, other_store):
    from tenants.models import Membership
    from tests.factories import MembershipFactory

    MembershipFactory(user=owner, store=other_store, role=Membership.Role.OWNER)
    client.force_login(owner)
    response = client.post(reverse("tenants:store-switch"), {"store": other_store.pk, "next": URL})
    assert response.status_code == 302
    page = client.get(URL).content.decode()
    assert _attribute(page, "data-socket-path") == "/ws/stores/other-shop/voice"
    assert _attribute(page, "data-store") == "other-shop"
