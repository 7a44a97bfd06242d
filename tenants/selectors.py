"""Reads of the tenants domain. Stores are reached only through the caller's memberships.

A store the user is not a member of answers exactly like a missing one (``StoreNotFound``).
"""

from __future__ import annotations

from typing import TypeGuard

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from tenants.context import store_context
from tenants.errors import StoreNotFound
from tenants.models import Membership, ReportRecipient, Store, StoreToken


def _is_member_candidate(user: User | AnonymousUser | None) -> TypeGuard[User]:
    return user is not None and user.is_authenticated and user.pk is not None


def stores_for_user(*, user: User | AnonymousUser | None) -> QuerySet[Store]:
    """The stores ``user`` belongs to, by name (none for anonymous users)."""
    if not _is_member_candidate(user):
        return Store.objects.none()
    return Store.objects.filter(memberships__user=user).select_related("business_type").order_by("name", "pk")


def memberships_for_user(*, user: User | AnonymousUser | None) -> QuerySet[Membership]:
    """The user's memberships with their stores, oldest first (the first is the default store)."""
    if not _is_member_candidate(user):
        return Membership.objects.none()
    return (
        Membership.objects.filter(user=user)
        .select_related("store", "store__business_type")
        .order_by("created_at", "pk")
    )


def store_for_user(*, user: User | AnonymousUser | None, slug: str) -> Store:
    """The store ``slug`` if ``user`` is a member.

    Raises:
        StoreNotFound: no such store, or not a member.
    """
    store = stores_for_user(user=user).filter(slug=slug).first()
    if store is None:
        raise StoreNotFound()
    return store


def membership_get(*, user: User | AnonymousUser | None, store_id: object) -> Membership:
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


# ---------------------------------------------------------------------------------------------
# Email: verified owners and confirmed report recipients


def _verified(emails: set[str]) -> set[str]:
    """Which of these addresses (case-folded) their user has verified (allauth's email confirmation)."""
    from allauth.account.models import EmailAddress

    if not emails:
        return set()
    variants = emails | {email.lower() for email in emails}
    rows = EmailAddress.objects.filter(verified=True, email__in=variants).values_list("email", flat=True)
    return {email.casefold() for email in rows}


def owner_emails(*, store: Store, verified_only: bool = True) -> list[str]:
    """The store's owners' addresses, oldest membership first; by default only verified ones."""
    owners = (
        Membership.objects.filter(store=store, role=Membership.Role.OWNER)
        .select_related("user")
        .order_by("created_at", "pk")
    )
    emails = [m.user.email for m in owners if m.user.email]
    if not verified_only:
        return emails
    verified = _verified(set(emails))
    return [email for email in emails if email.casefold() in verified]


def store_can_email(*, store: Store) -> bool:
    """A store sends email (reports, invitations, confirmation links) only once an owner's address is verified."""
    return bool(owner_emails(store=store))


def report_recipients(*, store: Store) -> QuerySet[ReportRecipient]:
    """The store's report recipients, confirmed or waiting, by address."""
    return ReportRecipient.objects.filter(store=store).order_by("email", "pk")


def report_addresses(*, store: Store) -> list[str]:
    """Where the store's reports go: its confirmed recipients, else its owners' verified addresses."""
    with store_context(store):  # recipients are fenced: read in the store's context
        confirmed = [r.email for r in report_recipients(store=store) if r.confirmed_at is not None]
    return confirmed or owner_emails(store=store)


def report_address_allowed(*, store: Store, address: str) -> bool:
    """Whether a report may go to ``address``: a confirmed recipient or a verified owner."""
    wanted = address.strip().casefold()
    with store_context(store):
        confirmed = {r.email.casefold() for r in report_recipients(store=store) if r.confirmed_at is not None}
    return wanted in confirmed or wanted in {email.casefold() for email in owner_emails(store=store)}
