"""The OAuth 2.1 authorization server: registration, consent bound to a store, PKCE, tokens, refresh, revocation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application

from identity.credentials import credential_authenticate
from identity.models import Connection
from identity.tests.oauth_flow import (
    REDIRECT_URI,
    Pkce,
    authorize_url,
    code_from,
    consent,
    exchange,
    register,
    tokens_for,
)
from tenants.context import use_store
from tenants.errors import InvalidToken, MissingScope
from tenants.models import Membership, StoreToken
from tenants.rls import bypass
from tenants.services import token_revoke

MCP = "http://testserver/mcp"
API = "http://testserver/api/v1"


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# -- metadata ---------------------------------------------------------------------------------------


def test_the_server_metadata_names_every_endpoint_and_s256_only(db):
    data = Client().get("/.well-known/oauth-authorization-server").json()

    assert data["issuer"] == "http://testserver"
    assert data["authorization_endpoint"] == "http://testserver/oauth/authorize/"
    assert data["token_endpoint"] == "http://testserver/oauth/token/"
    assert data["revocation_endpoint"] == "http://testserver/oauth/revoke_token/"
    assert data["registration_endpoint"] == "http://testserver/oauth/register"
    assert data["code_challenge_methods_supported"] == ["S256"]
    assert data["response_types_supported"] == ["code"]
    assert set(data["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert {"api", "mcp", "orders:confirm"} <= set(data["scopes_supported"])


# -- registration -----------------------------------------------------------------------------------


def test_registration_creates_a_public_pkce_client(db):
    answer = register()

    app = Application.objects.get(client_id=answer["client_id"])
    assert app.client_type == "public" and app.authorization_grant_type == "authorization-code"
    assert answer["token_endpoint_auth_method"] == "none" and "client_secret" not in answer
    assert answer["redirect_uris"] == [REDIRECT_URI]


@pytest.mark.parametrize(("metadata", "field"), [
    ({"redirect_uris": ["http://evil.example/cb"]}, "https"),
    ({"redirect_uris": ["https://app.example/cb#frag"]}, "fragment"),
    ({"redirect_uris": []}, "redirect_uris"),
    ({"redirect_uris": "https://app.example/cb"}, "redirect_uris"),
    ({"token_endpoint_auth_method": "client_secret_basic"}, "token_endpoint_auth_method"),
    ({"grant_types": ["client_credentials"]}, "grant_types"),
    ({"response_types": ["token"]}, "response_types"),
    ({"client_name": "x" * 101}, "client_name"),
])
def test_registration_refuses_anything_but_a_public_code_client(db, metadata, field):
    body = {"client_name": "c", "redirect_uris": ["https://app.example/cb"], **metadata}

    response = Client().post("/oauth/register", body, content_type="application/json")

    assert response.status_code == 400
    assert field in response.json()["error_description"]
    assert not Application.objects.exists()


def test_registration_ignores_metadata_it_does_not_understand(db):
    answer = register(application_type="native", software_id="x")

    assert "application_type" not in answer and Application.objects.count() == 1


def test_registration_refuses_a_body_that_is_not_a_json_object(db):
    for body in ("[1]", "{not json", '"s"'):
        response = Client().post("/oauth/register", body, content_type="application/json")
        assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"


def test_registration_is_rate_limited_per_client_address(db, settings):
    settings.OAUTH_REGISTRATIONS_PER_HOUR = 2
    from django.core.cache import cache

    cache.clear()
    body = {"redirect_uris": ["https://app.example/cb"]}
    answers = [Client().post("/oauth/register", body, content_type="application/json").status_code for _ in range(3)]

    assert answers == [201, 201, 429]
    assert Application.objects.count() == 2


# -- consent ----------------------------------------------------------------------------------------


def test_the_owner_consents_for_a_store_and_the_token_acts_for_it_on_mcp(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp"])

    assert answer["status"] == 200 and answer["token_type"] == "Bearer"
    assert answer["expires_in"] == 3600 and answer["refresh_token"]
    credential = credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP, require_resource=True)
    assert credential.store == store and credential.scopes == ["mcp"]
    connection = Connection.objects.get(credential=credential)
    assert connection.user == owner and connection.application.client_id == answer["client_id"]
    assert AccessToken.objects.get().token == ""  # hashed at rest: only the checksum is kept


def test_the_consent_page_offers_only_the_users_stores(owner, store, other_store):
    client_id = register()["client_id"]

    page = _browser(owner).get(authorize_url(client_id, Pkce.new()))

    assert page.status_code == 200
    html = page.content.decode()
    assert store.name in html and other_store.name not in html


def test_a_store_the_user_does_not_belong_to_cannot_be_chosen(owner, store, other_store):
    client_id = register()["client_id"]

    response = consent(_browser(owner), authorize_url(client_id, Pkce.new()), store_id=other_store.pk, scopes=["mcp"])

    assert response.status_code == 200  # the form again, with the error
    assert "Choose one of your stores" in response.content.decode()
    with bypass():  # store tokens are fenced on PostgreSQL: look across stores
        assert not StoreToken.objects.filter(store=other_store).exists()


def test_staff_may_grant_mcp_but_not_order_confirmation(staff, store):
    client_id = register()["client_id"]
    url = authorize_url(client_id, Pkce.new(), scope="mcp orders:confirm")

    refused = consent(_browser(staff), url, store_id=store.pk, scopes=["mcp", "orders:confirm"])

    assert "Only the store" in refused.content.decode()
    assert not Connection.objects.exists()
    answer = tokens_for(_browser(staff), store.pk, ["mcp"])
    assert credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP).store == store


def test_the_owner_may_grant_order_confirmation(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp", "orders:confirm"])

    credential = credential_authenticate(raw=answer["access_token"], scope="orders:confirm", resource=MCP)
    assert set(credential.scopes) == {"mcp", "orders:confirm"}


def test_a_scope_the_client_did_not_ask_for_cannot_be_added(owner, store):
    client_id = register()["client_id"]

    response = consent(_browser(owner), authorize_url(client_id, Pkce.new(), scope="mcp"), store_id=store.pk,
                       scopes=["mcp", "api"])

    assert "permissions the app asked for" in response.content.decode()


def test_declining_redirects_with_access_denied_and_grants_nothing(owner, store):
    client_id = register()["client_id"]

    response = consent(_browser(owner), authorize_url(client_id, Pkce.new()), store_id=store.pk, scopes=["mcp"],
                       allow=False)

    assert response.status_code == 302 and "error=access_denied" in response["Location"]
    assert not Connection.objects.exists()


def test_a_resource_of_another_service_is_refused_at_consent(owner, store):
    client_id = register()["client_id"]

    page = _browser(owner).get(authorize_url(client_id, Pkce.new(), resource="https://evil.example/mcp"))

    assert page.status_code == 400 and "another service" in page.content.decode()


def test_the_consent_page_needs_a_signed_in_user(db):
    client_id = register()["client_id"]

    response = Client().get(authorize_url(client_id, Pkce.new()))

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# -- the code and the token endpoint ---------------------------------------------------------------


def test_a_wrong_pkce_verifier_gets_no_token(owner, store):
    client_id = register()["client_id"]
    pkce = Pkce.new()
    code = code_from(consent(_browser(owner), authorize_url(client_id, pkce), store_id=store.pk, scopes=["mcp"]))

    answer = exchange(code, client_id, Pkce.new())

    assert answer["status"] == 400 and answer["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()


def test_an_authorization_request_without_pkce_is_refused(owner, store):
    client_id = register()["client_id"]
    url = f"/oauth/authorize/?response_type=code&client_id={client_id}&redirect_uri={REDIRECT_URI}&scope=mcp"

    response = _browser(owner).get(url)

    assert response.status_code in (302, 400)
    assert "code" not in response.get("Location", "").split("?")[-1].split("=")[0]


def test_a_code_is_good_once(owner, store):
    client_id = register()["client_id"]
    pkce = Pkce.new()
    code = code_from(consent(_browser(owner), authorize_url(client_id, pkce), store_id=store.pk, scopes=["mcp"]))

    first, second = exchange(code, client_id, pkce), exchange(code, client_id, pkce)

    assert first["status"] == 200 and second["status"] == 400


# -- audience, expiry, refresh, revocation ------------------------------------------------------------


def test_a_token_for_mcp_is_refused_by_the_rest_api_and_vice_versa(owner, store):
    mcp_token = tokens_for(_browser(owner), store.pk, ["mcp", "api"])["access_token"]
    api_token = tokens_for(_browser(owner), store.pk, ["api", "mcp"], resource=API)["access_token"]

    rest = Client().get("/api/v1/products", HTTP_AUTHORIZATION=f"Bearer {mcp_token}")
    assert rest.status_code == 401
    assert Client().get("/api/v1/products", HTTP_AUTHORIZATION=f"Bearer {api_token}").status_code == 200
    with pytest.raises(InvalidToken):
        credential_authenticate(raw=api_token, scope="mcp", resource=MCP, require_resource=True)


def test_mcp_requires_a_token_bound_to_its_resource(owner, store):
    unbound = tokens_for(_browser(owner), store.pk, ["mcp"], resource=None)["access_token"]

    with pytest.raises(InvalidToken):
        credential_authenticate(raw=unbound, scope="mcp", resource=MCP, require_resource=True)


def test_an_expired_access_token_is_refused(owner, store):
    token = tokens_for(_browser(owner), store.pk, ["mcp"])["access_token"]
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))

    with pytest.raises(InvalidToken):
        credential_authenticate(raw=token, scope="mcp", resource=MCP)


def test_a_refresh_rotates_and_keeps_the_store(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp"])
    refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": answer["client_id"]}

    renewed = Client().post("/oauth/token/", refresh)

    assert renewed.status_code == 200
    new = renewed.json()
    assert new["refresh_token"] != answer["refresh_token"]
    assert credential_authenticate(raw=new["access_token"], scope="mcp", resource=MCP).store == store
    with pytest.raises(InvalidToken):
        credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP)


def test_a_replayed_refresh_token_is_refused_and_revokes_its_family(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp"])
    refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": answer["client_id"]}
    new = Client().post("/oauth/token/", refresh).json()

    replayed = Client().post("/oauth/token/", refresh)

    assert replayed.status_code == 400
    follow_up = Client().post("/oauth/token/", {**refresh, "refresh_token": new["refresh_token"]})
    assert follow_up.status_code == 400


def test_revoking_the_connection_in_the_token_list_ends_access_and_refresh(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp"])
    with use_store(store):  # its store credential is fenced on PostgreSQL
        credential = Connection.objects.get().credential

    token_revoke(store=store, token_id=credential.pk, actor="user:1")

    with pytest.raises(InvalidToken):
        credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP)
    refresh = Client().post("/oauth/token/", {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"],
                                              "client_id": answer["client_id"]})
    assert refresh.status_code == 400


def test_the_client_can_revoke_its_own_token(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp"])

    response = Client().post("/oauth/revoke_token/", {"token": answer["access_token"], "client_id": answer["client_id"]})

    assert response.status_code == 200
    with pytest.raises(InvalidToken):
        credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP)


def test_a_member_who_leaves_the_store_loses_the_tokens_they_granted(staff, store):
    answer = tokens_for(_browser(staff), store.pk, ["mcp"])

    Membership.objects.filter(user=staff, store=store).delete()

    with pytest.raises(InvalidToken):
        credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP)


def test_an_owner_demoted_to_staff_loses_order_confirmation(owner, store):
    answer = tokens_for(_browser(owner), store.pk, ["mcp", "orders:confirm"])

    Membership.objects.filter(user=owner, store=store).update(role=Membership.Role.STAFF)

    with pytest.raises(MissingScope):
        credential_authenticate(raw=answer["access_token"], scope="orders:confirm", resource=MCP)
    assert credential_authenticate(raw=answer["access_token"], scope="mcp", resource=MCP).scopes == ["mcp"]


def test_a_static_store_token_with_an_expiry_is_refused_after_it(store):
    from tenants.services import token_create

    _, raw = token_create(store=store, name="short", scopes=["mcp"], expires_at=timezone.now() + timedelta(hours=1))
    assert credential_authenticate(raw=raw, scope="mcp").store == store

    with use_store(store):
        StoreToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    with pytest.raises(InvalidToken):
        credential_authenticate(raw=raw, scope="mcp")
