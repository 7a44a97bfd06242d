"""Sign-up, onboarding (creating a store), the signed-in home and the base layout, through HTTP."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tenants.middleware import SESSION_KEY
from tenants.models import Membership, Store

PASSWORD = "a sturdy pass phrase 42"


def _sign_up(client, email: str):
    """Sign up, then follow the confirmation link from the email (verification is mandatory)."""
    from django.core import mail

    sent = len(mail.outbox)
    response = client.post("/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302 and "confirm-email" in response["Location"]
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+)", mail.outbox[sent].body).group(1)
    return client.post(link)


@pytest.mark.django_db
def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get("/app/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/app/")


@pytest.mark.django_db
def test_sign_in_and_sign_up_pages_use_the_app_layout(client):
    for url in ("/accounts/login/", "/accounts/signup/"):
        page = client.get(url).content.decode()
        assert "css/app.css" in page and 'class="card narrow entrance"' in page
        assert '<label for="id_email"' in page or '<label for="id_login"' in page


@pytest.mark.django_db
def test_sign_up_leads_to_onboarding_which_creates_the_store_with_its_owner(client):
    response = _sign_up(client, "meera@example.com")
    assert response.status_code == 302 and response["Location"] == "/app/stores/new/"
    user = get_user_model().objects.get(email="meera@example.com")

    form = client.get("/app/stores/new/")
    assert form.status_code == 200
    assert b"Set up your store" in form.content and b"The demo catalog" in form.content

    response = client.post(
        "/app/stores/new/",
        {"name": "Meera's Market", "owner_name": "Meera", "timezone": "Asia/Kolkata", "currency": "INR", "catalog": "empty"},
    )
    assert response.status_code == 302 and response["Location"] == "/app/"
    store = Store.objects.get(name="Meera's Market")
    assert (store.slug, store.timezone, store.currency, store.owner_name) == ("meeras-market", "Asia/Kolkata", "INR", "Meera")
    assert store.business_type.slug == "grocery"
    assert list(Membership.objects.filter(store=store).values_list("user", "role")) == [(user.pk, "owner")]
    assert client.session[SESSION_KEY] == store.pk

    home = client.get("/app/")
    assert home.status_code == 200
    assert home.context["current_store"] == store
    assert b"Meera&#x27;s Market" in home.content and b"Sign out" in home.content


@pytest.mark.django_db
def test_two_people_can_sign_up_without_a_username(client):
    assert _sign_up(client, "one@example.com").status_code == 302
    client.logout()
    assert _sign_up(client, "two@example.com").status_code == 302
    usernames = set(get_user_model().objects.values_list("username", flat=True))
    assert len(usernames) == 2 and "" not in usernames


@pytest.mark.django_db
def test_a_signed_in_user_without_a_store_is_sent_to_onboarding(client):
    _sign_up(client, "new@example.com")
    response = client.get("/app/")
    assert response.status_code == 302 and response["Location"] == "/app/stores/new/"


@pytest.mark.django_db
def test_onboarding_refuses_bad_input_and_creates_nothing(client):
    _sign_up(client, "bad@example.com")
    response = client.post(
        "/app/stores/new/", {"name": "  ", "timezone": "Mars/Olympus", "currency": "usd", "catalog": "empty"}
    )
    assert response.status_code == 400
    assert set(response.context["form"].errors) >= {"name", "timezone", "currency"}
    assert not Store.objects.filter(memberships__user__email="bad@example.com").exists()


@pytest.mark.django_db
def test_onboarding_with_the_demo_catalog_stocks_the_new_store(client):
    from ledger import selectors
    from tenants.context import use_store

    _sign_up(client, "demo@example.com")
    response = client.post(
        "/app/stores/new/",
        {"name": "Try Out", "timezone": "America/Chicago", "currency": "USD", "catalog": "demo"},
    )
    assert response.status_code == 302
    store = Store.objects.get(name="Try Out")
    with use_store(store):
        names = {p.name for p in selectors.product_list(store=store)}
    assert len(names) == 38 and "Toor dal" in names


@pytest.mark.django_db
def test_a_second_store_gets_its_own_slug(owner, client):
    client.force_login(owner)
    response = client.post(
        "/app/stores/new/", {"name": "Corner Shop", "timezone": "UTC", "currency": "USD", "catalog": "empty"}
    )
    assert response.status_code == 302
    slugs = set(Store.objects.filter(memberships__user=owner).values_list("slug", flat=True))
    assert slugs == {"corner-shop", "corner-shop-2"}
