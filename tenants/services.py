"""Writes of the tenants domain: stores, memberships and store tokens.

Tokens look like ``sw_<prefix>_<secret>``: the prefix (public, unique) finds the row, and only a
SHA-256 hash of the secret is kept. The secret carries 256 bits from ``secrets``, so a plain
hash is enough (no slow KDF: nothing to brute-force) and checking stays cheap on hot paths.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from tenants.context import store_context, use_store
from tenants.errors import (
    InvalidScope,
    InvalidToken,
    MissingScope,
    TenantError,
    TokenNotFound,
)
from tenants.lookups import token_for_secret
from tenants.models import TOKEN_NAME_MAX, BusinessType, Membership, PackVersion, Store, StoreToken

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "sw"
PREFIX_BYTES = 5  # 10 hex characters; StoreToken.prefix holds up to 16
SECRET_BYTES = 32
# A token's last-used time is written at most this often, so hot paths do not write on every call.
LAST_USED_RESOLUTION = timedelta(minutes=1)
VALID_SCOPES = tuple(StoreToken.Scope.values)
_SLUG_ATTEMPTS = 50


# ---------------------------------------------------------------------------------------------
# Stores and memberships


def _unique_slug(base: str) -> str:
    base = (slugify(base) or "store")[:40].strip("-") or "store"
    candidate, n = base, 1
    while Store.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


@transaction.atomic
def store_create(
    *,
    name: str,
    slug: str | None = None,
    business_type: str = "grocery",
    timezone: str,
    currency: str,
    owner: User,
    owner_name: str = "",
    with_demo_catalog: bool = False,
) -> Store:
    """Create a store with ``owner`` as its owner member, optionally stocked with the demo catalog.

    Raises:
        django.core.exceptions.ValidationError: a field is not valid (name, time zone, currency, slug).
        TenantError: the business type is unknown.
    """
    name = name.strip()
    try:
        kind = BusinessType.objects.get(slug=business_type)
    except BusinessType.DoesNotExist as exc:
        raise TenantError(f"Unknown business type {business_type!r}.") from exc

    store = Store(
        name=name,
        slug=slug or _unique_slug(name),
        business_type=kind,
        # The type's newest published pack version: the store stays on it until it moves.
        pack_version=PackVersion.objects.filter(business_type=kind, status=PackVersion.Status.PUBLISHED)
        .order_by("-version").first(),
        timezone=timezone,
        currency=currency.strip().upper(),
        owner_name=(owner_name or getattr(owner, "first_name", "") or "").strip(),
    )
    store.full_clean()
    for attempt in range(_SLUG_ATTEMPTS):
        try:
            with transaction.atomic():
                store.save()
            break
        except IntegrityError:
            # Another sign-up took the same generated slug between the check and the insert.
            if slug or attempt == _SLUG_ATTEMPTS - 1:
                raise
            store.slug = _unique_slug(f"{name} {secrets.token_hex(2)}")
    Membership.objects.create(user=owner, store=store, role=Membership.Role.OWNER)
    if with_demo_catalog:
        from ledger.demo import install_demo_catalog

        with use_store(store):
            install_demo_catalog(store=store, actor=f"user:{owner.pk}")
    logger.info("store created: %s (id %s) by user %s", store.slug, store.pk, owner.pk)
    return store


@transaction.atomic
def membership_add(*, store: Store, user: User, role: str = Membership.Role.STAFF) -> Membership:
    """Make ``user`` a member of ``store`` with ``role``; an existing member gets the new role.

    Raises:
        TenantError: the role is unknown.
    """
    if role not in Membership.Role.values:
        raise TenantError(f"Unknown role {role!r}; use one of: {', '.join(Membership.Role.values)}.")
    membership, created = Membership.objects.select_for_update().get_or_create(
        user=user, store=store, defaults={"role": role}
    )
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def store_delete(*, store: Store, actor: str) -> None:
    """Delete a store and everything it owns (books, audit, tokens, memberships).

    Runs inside the store's own context, where row-level security shows its ledger rows (and
    only its own) to the cascade; no bypass is needed.
    """
    store_id, slug = store.pk, store.slug
    with use_store(store):
        store.delete()
    logger.info("store deleted: %s (id %s) by %s", slug, store_id, actor)


# ---------------------------------------------------------------------------------------------
# Tokens


def _hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _clean_scopes(scopes: list[str]) -> list[str]:
    if isinstance(scopes, str) or not scopes:
        raise InvalidScope(f"Give a list of scopes, from: {', '.join(VALID_SCOPES)}.")
    unknown = [s for s in scopes if s not in VALID_SCOPES]
    if unknown:
        raise InvalidScope(f"Unknown scope {unknown[0]!r}; use one of: {', '.join(VALID_SCOPES)}.")
    return sorted(set(scopes), key=VALID_SCOPES.index)


@transaction.atomic
def token_create(
    *, store: Store, name: str, scopes: list[str], created_by: User | None = None,
    expires_at: datetime | None = None,
) -> tuple[StoreToken, str]:
    """Create a store token (optionally expiring); returns the row and the plaintext token, shown only once.

    Raises:
        InvalidScope: a scope is not one of ``api``, ``mcp``, ``orders:confirm`` (or none given).
        TenantError: the name is empty or too long.
    """
    name = (name or "").strip()
    if not name or len(name) > TOKEN_NAME_MAX:
        raise TenantError("Give the token a name of 1 to 80 characters, e.g. 'Claude Desktop'.")
    clean = _clean_scopes(scopes)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    with store_context(store):
        token = StoreToken.objects.create(
            store=store,
            name=name,
            prefix=token_prefix_new(),
            secret_hash=_hash_secret(secret),
            scopes=clean,
            created_by=created_by,
            expires_at=expires_at,
        )
    logger.info("store token created: %s for store %s, scopes %s", token.prefix, store.pk, ",".join(clean))
    return token, f"{TOKEN_PREFIX}_{token.prefix}_{secret}"


@transaction.atomic
def token_revoke(*, store: Store, token_id: int, actor: str) -> StoreToken:
    """Revoke a token of ``store`` (again is a no-op). Another store's token is not found.

    Raises:
        TokenNotFound: no such token in this store.
    """
    with store_context(store):
        try:
            token = StoreToken.objects.select_for_update().get(store=store, pk=token_id)
        except (StoreToken.DoesNotExist, ValueError, TypeError) as exc:
            raise TokenNotFound() from exc
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            logger.info("store token revoked: %s of store %s by %s", token.prefix, store.pk, actor)
    return token


def token_prefix_new() -> str:
    """A random token prefix. Its uniqueness across stores is the database's unique index: past
    the fence no store sees another's prefixes, and 40 random bits make a clash vanishingly rare."""
    return secrets.token_hex(PREFIX_BYTES)


def split_token(raw: str) -> tuple[str, str]:
    """``sw_<prefix>_<secret>`` -> (prefix, secret).

    Raises:
        InvalidToken: not shaped like a store token.
    """
    parts = (raw or "").strip().split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or not parts[1] or not parts[2]:
        raise InvalidToken()
    prefix, secret = parts[1], parts[2]
    if len(prefix) != 2 * PREFIX_BYTES or any(c not in "0123456789abcdef" for c in prefix) or len(secret) > 100:
        raise InvalidToken()
    return prefix, secret


def token_authenticate(*, raw: str, scope: str) -> StoreToken:
    """The active token for ``raw`` if it has ``scope``, with its store loaded.

    Raises:
        InvalidToken: unknown, malformed or revoked (answered alike).
        MissingScope: valid, but without ``scope``.
    """
    prefix, secret = split_token(raw)
    # Found past the fence only by its prefix and the hash of the secret: no secret, no row.
    token = token_for_secret(prefix=prefix, secret_hash=_hash_secret(secret))
    if token is None or not token.is_active:
        raise InvalidToken()
    if not token.has_scope(scope):
        raise MissingScope(scope)
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        with use_store(token.store):  # the store is known now: the write is fenced like any other
            StoreToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
