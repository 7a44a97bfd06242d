"""Authenticating a bearer credential: a static store token (``sw_…``) or an OAuth access token.

Both come out as the ``tenants.StoreToken`` the caller acts with, so every channel treats them
alike (store, scopes, revocation, rate limit, idempotency, audit). An OAuth access token is
accepted only while it is unexpired, its store credential is live, the user who granted it is
still a member of that store (an owner, for ``orders:confirm``), and, where the resource asks
for it, the token was issued for this resource (RFC 8707): a token for ``/mcp`` is refused by
the REST API and the other way round.
"""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone
from oauth2_provider.oauth2_validators import validate_resource_as_url_prefix

from identity.lookups import access_token_with_credential
from identity.models import Connection
from tenants.context import use_store
from tenants.errors import InvalidToken, MissingScope
from tenants.models import Membership, Store, StoreToken
from tenants.services import (
    TOKEN_PREFIX,
    _clean_scopes,
    _hash_secret,
    token_authenticate,
    token_prefix_new,
)

CONFIRM_SCOPE = StoreToken.Scope.ORDERS_CONFIRM.value
OWNER_ONLY_SCOPES = frozenset({CONFIRM_SCOPE})


def credential_authenticate(
    *, raw: str, scope: str, resource: str | None = None, require_resource: bool = False
) -> StoreToken:
    """The live store credential behind ``raw`` if it has ``scope`` (and, for OAuth, ``resource``).

    ``resource`` is this deployment's URL of the protected resource being called. An OAuth token
    issued for resources must name it; one issued without a resource indicator is accepted only
    where ``require_resource`` is false (the REST API and Alexa; ``/mcp`` requires it).

    Raises:
        InvalidToken: unknown, malformed, expired, revoked, for another resource, or its user left the store.
        MissingScope: valid, but without ``scope``.
    """
    if (raw or "").startswith(f"{TOKEN_PREFIX}_"):
        return token_authenticate(raw=raw, scope=scope)
    return oauth_authenticate(raw=raw, scope=scope, resource=resource, require_resource=require_resource)


def oauth_authenticate(*, raw: str, scope: str, resource: str | None, require_resource: bool) -> StoreToken:
    """The store credential an OAuth access token acts with; see ``credential_authenticate``."""
    if not raw or len(raw) > 512:
        raise InvalidToken()
    access = access_token_with_credential(checksum=hashlib.sha256(raw.encode("utf-8")).hexdigest())
    binding = getattr(access, "shelfwise", None) if access is not None else None
    if access is None or binding is None or access.is_expired():
        raise InvalidToken()
    if not _audience_ok(access.resource, resource, require_resource):
        raise InvalidToken("This access token was issued for another resource. Sign in again for this one.")
    credential = binding.credential
    role = Membership.objects.filter(store_id=credential.store_id, user_id=access.user_id).values_list("role", flat=True).first()
    if not credential.is_active or role is None:
        raise InvalidToken()
    granted = set(access.scope.split()) & set(credential.scopes)
    if role != Membership.Role.OWNER:
        granted -= OWNER_ONLY_SCOPES
    if scope not in granted:
        raise MissingScope(scope)
    credential.scopes = sorted(granted)  # this request's view: what the token and the store both allow
    return credential


def _audience_ok(token_resources: list[str], resource: str | None, require_resource: bool) -> bool:
    if not token_resources:
        return not require_resource
    if resource is None:
        return False
    return validate_resource_as_url_prefix(resource, token_resources)


@transaction.atomic
def connection_grant(*, store: Store, user, application, scopes: list[str]) -> StoreToken:
    """The store credential for ``application`` acting for ``user`` in ``store``, with ``scopes``.

    Reuses the live one for the same store, user and client (its scopes are replaced), else
    creates one. Its secret is random and never shown: it is used only through OAuth tokens.

    Raises:
        InvalidScope: an unknown scope.
        PermissionError: ``orders:confirm`` asked by someone who is not the store's owner.
    """
    clean = _clean_scopes(scopes)
    role = Membership.objects.filter(store=store, user=user).values_list("role", flat=True).first()
    if role is None or (OWNER_ONLY_SCOPES & set(clean) and role != Membership.Role.OWNER):
        raise PermissionError("Only the store's owner may grant that.")
    # The consent page may pick a store other than the member's current one: its credentials are
    # read and written in its own context.
    with use_store(store):
        return _connection_credential(store=store, user=user, application=application, clean=clean)


def _connection_credential(*, store: Store, user, application, clean: list[str]) -> StoreToken:
    existing = (
        Connection.objects.select_related("credential")
        .filter(credential__store=store, user=user, application=application, credential__revoked_at__isnull=True)
        .first()
    )
    if existing is not None:
        existing.credential.scopes = clean
        existing.credential.save(update_fields=["scopes"])
        return existing.credential
    name = f"OAuth: {application.name or 'MCP client'} ({user.get_username()})"[:80]
    credential = StoreToken.objects.create(
        store=store, name=name, prefix=token_prefix_new(), secret_hash=_hash_secret(secrets.token_urlsafe(32)),
        scopes=clean, created_by=user, last_used_at=timezone.now(),
    )
    Connection.objects.create(credential=credential, application=application, user=user)
    return credential
