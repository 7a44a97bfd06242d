"""Store tokens: created once in plaintext, kept hashed, scoped, revocable, with a last-used time.

Tokens are fenced by row-level security on PostgreSQL: the tests read them back in their store's context.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tenants.context import use_store
from tenants.errors import InvalidScope, InvalidToken, MissingScope, TokenNotFound
from tenants.models import StoreToken
from tenants.rls import bypass
from tenants.selectors import token_list
from tenants.services import token_authenticate, token_create, token_revoke


def test_a_token_is_shown_once_and_only_its_hash_is_kept(store, owner):
    token, raw = token_create(store=store, name="Claude Desktop", scopes=["mcp", "api"], created_by=owner)
    assert raw.startswith(f"sw_{token.prefix}_")
    secret = raw.split("_", 2)[2]
    assert len(secret) >= 40
    with use_store(store):
        row = StoreToken.objects.get(pk=token.pk)
        assert secret not in str(StoreToken.objects.filter(pk=token.pk).values().get())
    assert row.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert row.scopes == ["api", "mcp"] and row.created_by == owner and row.last_used_at is None


def test_a_valid_token_authenticates_for_its_scope_and_store(store):
    token, raw = token_create(store=store, name="till", scopes=["api"])
    found = token_authenticate(raw=raw, scope="api")
    assert found.pk == token.pk and found.store == store
    assert found.last_used_at is not None


def test_a_token_without_the_scope_is_refused(store):
    _, raw = token_create(store=store, name="mcp only", scopes=["mcp"])
    with pytest.raises(MissingScope) as caught:
        token_authenticate(raw=raw, scope="api")
    assert caught.value.code == "insufficient_scope"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda raw: raw[:-1] + ("A" if raw[-1] != "A" else "B"),  # wrong secret
        lambda raw: "sw_0000000000_" + raw.split("_", 2)[2],  # unknown prefix
        lambda raw: raw.replace("sw_", "xx_", 1),  # not ours
        lambda raw: "sw_",
        lambda raw: "",
        lambda raw: "sw_" + raw.split("_")[1],  # no secret
    ],
)
def test_unknown_or_malformed_tokens_are_invalid(store, mangle):
    _, raw = token_create(store=store, name="t", scopes=["api"])
    with pytest.raises(InvalidToken) as caught:
        token_authenticate(raw=mangle(raw), scope="api")
    assert caught.value.code == "invalid_token"


def test_a_revoked_token_no_longer_authenticates(store, owner):
    token, raw = token_create(store=store, name="t", scopes=["api"])
    token_revoke(store=store, token_id=token.pk, actor=f"user:{owner.pk}")
    with use_store(store):
        assert StoreToken.objects.get(pk=token.pk).revoked_at is not None
    with pytest.raises(InvalidToken):
        token_authenticate(raw=raw, scope="api")
    # Revoking again changes nothing.
    again = token_revoke(store=store, token_id=token.pk, actor="system:test")
    with use_store(store):
        assert again.revoked_at == StoreToken.objects.get(pk=token.pk).revoked_at


def test_another_stores_token_cannot_be_revoked_from_here(store, other_store):
    theirs, raw = token_create(store=other_store, name="theirs", scopes=["api"])
    with pytest.raises(TokenNotFound):
        token_revoke(store=store, token_id=theirs.pk, actor="system:test")
    assert token_authenticate(raw=raw, scope="api").pk == theirs.pk


def test_unknown_scopes_are_rejected(store):
    for scopes in (["admin"], [], "api"):
        with pytest.raises(InvalidScope):
            token_create(store=store, name="t", scopes=scopes)
    with bypass():  # every store's tokens
        assert not StoreToken.objects.exists()


def test_last_used_is_written_at_most_once_a_minute(store, django_assert_num_queries):
    token, raw = token_create(store=store, name="t", scopes=["mcp"])
    first = token_authenticate(raw=raw, scope="mcp").last_used_at
    with django_assert_num_queries(1):  # the lookup only, no write
        assert token_authenticate(raw=raw, scope="mcp").last_used_at == first
    with use_store(store):
        StoreToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now() - timedelta(seconds=61))
    with django_assert_num_queries(2):
        later = token_authenticate(raw=raw, scope="mcp").last_used_at
    assert later > first
    with use_store(store):
        assert StoreToken.objects.get(pk=token.pk).last_used_at == later


def test_token_list_shows_only_the_stores_tokens(store, other_store):
    mine, _ = token_create(store=store, name="mine", scopes=["api"])
    token_create(store=other_store, name="theirs", scopes=["api"])
    with use_store(store):  # as the token page runs
        assert [t.pk for t in token_list(store=store)] == [mine.pk]


# --- manage.py store_token ----------------------------------------------------------------------


def test_the_command_prints_the_token_once_and_its_prefix_on_stderr(store):
    out, err = StringIO(), StringIO()
    call_command("store_token", "--store", store.slug, "--scope", "mcp", "--scope", "api", "--name", "Desk", stdout=out, stderr=err)
    raw = out.getvalue().strip()
    with use_store(store):
        token = StoreToken.objects.get(store=store)
    assert raw.startswith(f"sw_{token.prefix}_") and "\n" not in raw
    assert token.prefix in err.getvalue() and raw not in err.getvalue()
    assert (token.name, token.scopes) == ("Desk", ["api", "mcp"])
    assert token_authenticate(raw=raw, scope="mcp").pk == token.pk


def test_the_command_revokes_by_prefix(store):
    token, raw = token_create(store=store, name="t", scopes=["mcp"])
    call_command("store_token", "--revoke", token.prefix, stdout=StringIO(), stderr=StringIO())
    with pytest.raises(InvalidToken):
        token_authenticate(raw=raw, scope="mcp")


def test_the_command_refuses_unknown_stores_scopes_and_prefixes(store):
    with pytest.raises(CommandError, match="No store"):
        call_command("store_token", "--store", "nope", "--scope", "mcp")
    with pytest.raises(CommandError):
        call_command("store_token", "--store", store.slug, "--scope", "root")
    with pytest.raises(CommandError, match="at least one"):
        call_command("store_token", "--store", store.slug)
    with pytest.raises(CommandError, match="No token"):
        call_command("store_token", "--revoke", "deadbeef00")


# --- the owner's token page ------------------------------------------------------------------------


def test_the_owner_creates_a_token_on_the_page_and_sees_it_once(owner, store, client):
    client.force_login(owner)
    response = client.post("/app/tokens/", {"name": "Claude Desktop", "scopes": ["mcp"]})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    raw = response.context["created"]["raw"]
    assert raw.encode() in response.content
    assert token_authenticate(raw=raw, scope="mcp").store == store
    assert raw.encode() not in client.get("/app/tokens/").content


def test_the_owner_revokes_a_token_on_the_page(owner, store, client):
    token, raw = token_create(store=store, name="t", scopes=["mcp"])
    client.force_login(owner)
    response = client.post(f"/app/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    with pytest.raises(InvalidToken):
        token_authenticate(raw=raw, scope="mcp")


def test_staff_cannot_manage_tokens(staff, store, client):
    token, _ = token_create(store=store, name="t", scopes=["mcp"])
    client.force_login(staff)
    assert client.get("/app/tokens/").status_code == 403
    assert client.post(f"/app/tokens/{token.pk}/revoke/").status_code == 403
    with use_store(store):
        assert StoreToken.objects.get(pk=token.pk).revoked_at is None


def test_another_owner_cannot_revoke_our_token(other_owner, store, client):
    token, _ = token_create(store=store, name="t", scopes=["mcp"])
    client.force_login(other_owner)
    assert client.post(f"/app/tokens/{token.pk}/revoke/").status_code == 404
    with use_store(store):
        assert StoreToken.objects.get(pk=token.pk).revoked_at is None
