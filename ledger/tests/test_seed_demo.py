"""``manage.py seed_demo``: the demo store, its owner's login and fresh tokens, touching no other store."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from ledger import selectors, services
from ledger.tests.conftest import ACTOR, create_product
from tenants.errors import InvalidToken
from tenants.models import Membership, Store
from tenants.services import token_authenticate


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _seed(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("seed_demo", *args, stdout=out, stderr=err)
    return out.getvalue()


def test_json_output_is_one_object_with_the_store_owner_login_and_tokens(db, settings):
    out = _seed("--json")
    payload = json.loads(out)
    assert set(payload) == {"store", "owner", "staff", "tokens"}
    assert payload["store"] == "little-india"
    assert payload["owner"] == {"email": "raj@little-india.example", "password": settings.DEMO_OWNER_PASSWORD}
    assert set(payload["tokens"]) == {"api", "mcp", "staff"}
    api = token_authenticate(raw=payload["tokens"]["api"], scope="api")
    assert api.store.slug == "little-india" and api.has_scope("orders:confirm")
    assert api.created_by.email == payload["owner"]["email"]
    staff = token_authenticate(raw=payload["tokens"]["staff"], scope="api")
    assert not staff.has_scope("orders:confirm") and staff.created_by.email == payload["staff"]["email"]
    assert staff.created_by.memberships.get(store=staff.store).role == "staff"
    assert token_authenticate(raw=payload["tokens"]["mcp"], scope="mcp").store.slug == "little-india"

    store = Store.objects.get(slug="little-india")
    assert (store.name, store.timezone, store.currency, store.business_type.slug, store.owner_name) == (
        "Little India Grocery",
        "America/Chicago",
        "USD",
        "grocery",
        "Raj",
    )
    raj = get_user_model().objects.get(email="raj@little-india.example")
    assert raj.check_password(settings.DEMO_OWNER_PASSWORD)
    assert Membership.objects.get(store=store, user=raj).role == Membership.Role.OWNER
    assert len(selectors.product_list(store=store)) == 38
    assert selectors.sales_today(store=store).receipts == 40


def test_the_owner_password_comes_from_the_setting(db, settings):
    settings.DEMO_OWNER_PASSWORD = "another-secret-pass"
    payload = json.loads(_seed("--json", "--slug", "demo-two"))
    assert payload["owner"]["password"] == "another-secret-pass"
    assert get_user_model().objects.get(email="raj@little-india.example").check_password("another-secret-pass")


def test_human_output_prints_the_logins_and_the_three_tokens(db, settings):
    out = _seed()
    assert f"raj@little-india.example / {settings.DEMO_OWNER_PASSWORD}" in out
    assert out.count("sw_") == 3 and "priya@little-india.example" in out


def test_an_existing_demo_store_is_not_overwritten_without_a_flag(db):
    _seed("--json")
    with pytest.raises(CommandError, match="already exists"):
        _seed("--json")


def test_reset_recreates_only_that_store(db, other_store):
    kept = create_product(other_store, "Secret sauce", stock=5)
    first = json.loads(_seed("--json"))
    old = Store.objects.get(slug="little-india")
    dal = selectors.product_by_name(store=old, name="Toor dal")
    services.stock_set(store=old, product=dal, count=40, expected=4, actor=ACTOR)

    second = json.loads(_seed("--json", "--reset"))
    new = Store.objects.get(slug="little-india")
    assert new.pk != old.pk
    assert not Store.objects.filter(pk=old.pk).exists()
    assert selectors.product_by_name(store=new, name="Toor dal").stock == 4
    assert selectors.sales_today(store=new).receipts == 40
    assert len(selectors.product_list(store=new)) == 38
    with pytest.raises(InvalidToken):
        token_authenticate(raw=first["tokens"]["api"], scope="api")
    assert token_authenticate(raw=second["tokens"]["api"], scope="api").store_id == new.pk
    # The other store is untouched.
    assert Store.objects.filter(pk=other_store.pk).exists()
    assert selectors.product_get(store=other_store, product_id=kept.pk).stock == 5
    assert get_user_model().objects.filter(email="raj@little-india.example").count() == 1


def test_if_missing_keeps_the_books_and_issues_fresh_tokens(db):
    first = json.loads(_seed("--json", "--if-missing"))
    store = Store.objects.get(slug="little-india")
    dal = selectors.product_by_name(store=store, name="Toor dal")
    services.stock_set(store=store, product=dal, count=40, expected=4, actor=ACTOR)

    second = json.loads(_seed("--json", "--if-missing"))
    assert Store.objects.get(slug="little-india").pk == store.pk
    assert selectors.product_by_name(store=store, name="Toor dal").stock == 40
    assert selectors.sales_today(store=store).receipts == 40
    assert second["tokens"] != first["tokens"]
    for scope in ("api", "mcp"):
        with pytest.raises(InvalidToken):
            token_authenticate(raw=first["tokens"][scope], scope=scope)
        assert token_authenticate(raw=second["tokens"][scope], scope=scope).store_id == store.pk


def test_reset_and_if_missing_together_are_refused(db):
    with pytest.raises(CommandError):
        _seed("--reset", "--if-missing")
