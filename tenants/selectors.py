"""Reads of the tenants domain. Stores are reached only through the caller's memberships.

A store the user is not a member of answers exactly like a missing one (``StoreNotFound``).
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet

from tenants.errors import StoreNotFound
from tenants.models import Membership, Store, StoreToken


def _is_member_candidate(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    return user is not None and user.is_authenticated and user.pk is not None


def stores_for_user(*, user: AbstractBaseUser | AnonymousUser | None) -> QuerySet[Store]:
    """The stores ``user`` belongs to, by name (none for anonymous users)."""
    if not _is_member_candidate(user):
        return Store.objects.none()
    return Store.objects.filter(memberships__user=user).select_related("business_type").order_by("name", "pk")


def memberships_for_user(*, user: AbstractBaseUser | AnonymousUser | None) -> QuerySet[Membership]:
    """The user's memberships with their stores, oldest first (the first is the default store)."""
    if not _is_member_candidate(user):
        return Membership.objects.none()
    return (
        Membership.objects.filter(user=user)
        .select_related("store", "store__business_type")
        .order_by("created_at", "pk")
    )


def store_for_user(*, user: AbstractBaseUser | AnonymousUser | None, slug: str) -> Store:
    """The store ``slug`` if ``user`` is a member.

    Raises:
        StoreNotFound: no such store, or not a member.
    """
    store = stores_for_user(user=user).filter(slug=slug).first()
    if store is None:
        raise StoreNotFound()
    return store


def membership_get(*, user: AbstractBaseUser | AnonymousUser | None, store_id: object) -> Membership:
    """The user's membership of store ``store_id`` (any id shape accepted, checked here).

    Raises:
        StoreNotFound: no such store, not a member, or not an id.
    """
    try:
        store_pk = int(store_id)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise StoreNotFound() from None
    if isinstance(store_id, bool) or store_pk <= 0:
        raise StoreNotFound()
    membership = memberships_for_user(user=user).filter(store_id=store_pk).first()
    if membership is None:
        raise StoreNotFound()
    return membership


def token_list(*, store: Store) -> QuerySet[StoreToken]:
    """The store's tokens, newest first, active and revoked."""
    return StoreToken.objects.filter(store=store).select_related("created_by").order_by("-created_at", "-pk")
