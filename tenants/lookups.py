"""The tenants' reads past row-level security: rows that must be found before their store is known.

Store tokens, invitations and report recipients are fenced like any store's data (``tenants.rls``).
A request that carries a token, or a link from an email, names no store until the row is found, so
each of these looks up one row past the fence (``rls.fence_lookup``) by a key that only the holder
of the secret can give, and returns that row or ``None``. Everything after it (recording the
token's use, accepting the invitation, confirming the address) runs inside the row's own store
context, under the policy. ``tenants/tests/test_fence_lookups.py`` audits each one.
"""

from __future__ import annotations

from tenants.models import Invitation, ReportRecipient, StoreToken
from tenants.rls import fence_lookup


@fence_lookup
def token_for_secret(*, prefix: str, secret_hash: str) -> StoreToken | None:
    """The store token with this prefix and secret hash (active or not), with its store; else None."""
    return (
        StoreToken.objects.select_related("store", "store__business_type")
        .filter(prefix=prefix, secret_hash=secret_hash)
        .first()
    )


@fence_lookup
def invitation_for_link(*, token_hash: str) -> Invitation | None:
    """The invitation whose link's secret hashes to ``token_hash`` (open or not), with its store; else None."""
    return Invitation.objects.select_related("store").filter(token_hash=token_hash).first()


@fence_lookup
def recipient_for_link(*, token_hash: str) -> ReportRecipient | None:
    """The report recipient whose confirmation link hashes to ``token_hash``, with its store; else None."""
    return ReportRecipient.objects.select_related("store").filter(token_hash=token_hash).first()
