"""OAuth's reads past row-level security: the store credential behind a token, before its store is known.

An OAuth access token, authorization code or refresh token leads to a store token
(``tenants.StoreToken``), which is fenced like any store's data (``tenants.rls``). Each function
here reads past the fence (``rls.fence_lookup``) by a key that only the holder of the token can
give and returns that one row (or a yes/no). ``tenants/tests/test_fence_lookups.py`` audits them.
"""

from __future__ import annotations

from typing import Any

from oauth2_provider.models import get_access_token_model

from tenants.models import StoreToken
from tenants.rls import fence_lookup


@fence_lookup
def access_token_with_credential(*, checksum: str) -> Any | None:
    """The OAuth access token with this SHA-256 checksum, with its user, binding, credential and store; else None."""
    return (
        get_access_token_model()
        .objects.select_related("shelfwise__credential__store__business_type", "user")
        .filter(token_checksum=checksum)
        .first()
    )


@fence_lookup
def credential_is_active(*, credential_id: int) -> bool:
    """Whether the store credential a validated grant or refresh token names is still active."""
    token = StoreToken.objects.filter(pk=credential_id).only("revoked_at", "expires_at").first()
    return token is not None and token.is_active
