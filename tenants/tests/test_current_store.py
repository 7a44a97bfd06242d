"""The current store of a request: resolved from the session for members only, switched by POST,
carried in the context for sync and async code, and set by store tokens on the API."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.http import HttpResponse
from django.test import RequestFactory
from rest_framework.test import APIClient

from tenants.context import current_store_or_none, use_store
from tenants.middleware import SESSION_KEY, CurrentStoreMiddleware
from tenants.models import Membership
from tenants.services import membership_add, token_create
from tests.factories import MembershipFactory, StoreFactory


@pytest.fixture
def second_store(owner):
    """A second store that the owner also runs."""
    extra = StoreFactory(slug="second-shop", name="Second Shop")
    MembershipFactory(user=owner, store=extra, role=Membership.Role.OWNER)
    return extra


def test_a_member_gets_their_first_store_by_default(owner, store, client):
    client.force_login(owner)
    response = client.get("/app/")
    assert response.wsgi_request.store == store
    assert response.wsgi_request.membership.role == "owner"


def test_the_switcher_changes_the_current_store(owner, store, second_store, client):
    client.force_login(owner)
    response = client.post("/app/stores/switch/", {"store": second_store.pk, "next": "/app/"})
    assert response.status_code == 302 and response["Location"] == "/app/"
    assert client.get("/app/").context["current_store"] == second_store
    page = client.get("/app/").content.decode()
    assert 'id="store-switcher"' in page and "Second Shop" in page


def test_the_switcher_refuses_another_persons_store(owner, store, other_store, client):
    client.force_login(owner)
    for value in (other_store.pk, "not-a-number", "", 10**9):
        response = client.post("/app/stores/switch/", {"store": value})
        assert response.status_code == 404
    assert SESSION_KEY not in client.session
    assert client.get("/app/").context["current_store"] == store


def test_a_forged_session_store_is_ignored_and_forgotten(owner, store, other_store, client):
    client.force_login(owner)
    session = client.session
    session[SESSION_KEY] = other_store.pk
    session.save()
    response = client.get("/app/")
    assert response.context["current_store"] == store
    assert SESSION_KEY not in client.session


def test_the_switcher_ignores_offsite_next_urls(owner, second_store, client):
    client.force_login(owner)
    response = client.post("/app/stores/switch/", {"store": second_store.pk, "next": "https://evil.example/"})
    assert response["Location"] == "/app/"


def test_membership_add_makes_the_store_reachable(store, other_owner, client):
    membership_add(store=store, user=other_owner, role="staff")
    client.force_login(other_owner)
    assert client.post("/app/stores/switch/", {"store": store.pk}).status_code == 302
    assert client.get("/app/").context["current_store"] == store


def test_the_request_runs_in_the_store_context_and_leaves_it_after(owner, store):
    seen = {}

    def view(request):
        seen["store"] = current_store_or_none()
        return HttpResponse()

    request = RequestFactory().get("/")
    request.user = owner
    request.session = {}
    CurrentStoreMiddleware(view)(request)
    assert seen["store"] == store and request.store == store
    assert current_store_or_none() is None


def test_the_async_path_carries_the_store_into_async_and_sync_code(owner, store):
    seen = {}

    async def view(request):
        seen["async"] = current_store_or_none()
        seen["sync"] = await sync_to_async(current_store_or_none)()
        seen["task"] = await asyncio.create_task(_current())
        return HttpResponse()

    async def _current():
        return current_store_or_none()

    middleware = CurrentStoreMiddleware(view)
    assert asyncio.iscoroutinefunction(middleware)
    request = RequestFactory().get("/")
    request.user = owner
    request.session = {}
    # async_to_sync keeps the ORM calls of the middleware on this thread's test transaction.
    async_to_sync(middleware)(request)
    assert seen == {"async": store, "sync": store, "task": store}
    assert current_store_or_none() is None


def test_anonymous_requests_have_no_store(client, db):
    response = client.get("/accounts/login/")
    assert response.wsgi_request.store is None and response.wsgi_request.membership is None


# --- REST API authentication -------------------------------------------------------------------


def test_no_credentials_get_401_with_a_bearer_challenge(db):
    response = APIClient().get("/api/v1/products")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_an_invalid_token_gets_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer sw_0123456789_nope")
    assert client.get("/api/v1/products").status_code == 401


def test_a_token_without_the_api_scope_gets_403(store):
    _, raw = token_create(store=store, name="mcp", scopes=["mcp"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/v1/products").status_code == 403


def test_a_token_acts_for_its_own_store_even_for_a_signed_in_member_of_another(store, other_store, other_owner):
    from tests.factories import ProductFactory

    with use_store(store):
        ProductFactory(store=store, name="Ours")
    with use_store(other_store):
        ProductFactory(store=other_store, name="Theirs")
    _, raw = token_create(store=store, name="api", scopes=["api"])
    client = APIClient()
    client.force_login(other_owner)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = client.get("/api/v1/products")
    assert response.status_code == 200
    assert [row["name"] for row in response.json()["results"]] == ["Ours"]
    assert current_store_or_none() is None


def test_a_signed_in_user_without_a_store_gets_403(db, django_user_model):
    user = django_user_model.objects.create_user(username="nobody", email="nobody@example.com", password="x")
    client = APIClient()
    client.force_login(user)
    assert client.get("/api/v1/products").status_code == 403


def test_a_token_works_through_the_async_stack_and_its_store_ends_with_the_request(store, other_store):
    from django.test import AsyncClient

    from tests.factories import ProductFactory

    with use_store(store):
        ProductFactory(store=store, name="Ours")
    with use_store(other_store):
        ProductFactory(store=other_store, name="Theirs")
    _, raw = token_create(store=store, name="api", scopes=["api"])

    async def fetch():
        response = await AsyncClient().get("/api/v1/products", headers={"Authorization": f"Bearer {raw}"})
        return response, current_store_or_none()

    response, after = async_to_sync(fetch)()
    assert response.status_code == 200
    assert [row["name"] for row in response.json()["results"]] == ["Ours"]
    assert after is None
