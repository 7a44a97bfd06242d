"""Who works in a store: invitations by email, roles, and removing a member.

An invitation link carries a secret (only its hash is kept) and expires after
``INVITATION_TTL_DAYS``; it is accepted by a signed-in user whose verified address is the
invited one, with a new account or an existing one. A store always keeps at least one owner.
Removing a member takes effect on their next request (the current store is resolved per request)
and closes their open voice sockets at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from tenants.context import store_context, use_store
from tenants.errors import TenantError
from tenants.lookups import invitation_for_link
from tenants.models import Invitation, Membership, Store
from tenants.selectors import store_can_email

logger = logging.getLogger(__name__)

INVITATION_TTL = dt.timedelta(days=7)


class InvitationInvalid(TenantError):
    code = "invitation_invalid"
    default_message = "This invitation link has expired or was already used. Ask the store's owner for a new one."


class MemberError(TenantError):
    code = "member_error"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def invitation_url(secret: str) -> str:
    return f"{settings.PUBLIC_URL}/app/invitations/{secret}/"


def invitation_create(*, store: Store, email: str, role: str, invited_by: User) -> tuple[Invitation, str]:
    """Invite ``email`` to the store as ``role`` and email them the link (after this commits).

    Returns the invitation and its secret (the link's last part).

    Raises:
        MemberError: a malformed address, an unknown role, already a member, or the store cannot
            send email yet (the owner's address is not verified).
    """
    email = (email or "").strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise MemberError("email: that is not an email address.") from None
    if role not in Membership.Role.values:
        raise MemberError("role: choose owner or staff.")
    if not store_can_email(store=store):
        raise MemberError("Confirm your own email address first (the link in your sign-up email); until then the store sends no email.")
    if Membership.objects.filter(store=store, user__email__iexact=email).exists():
        raise MemberError(f"email: {email} is already a member of this store.")
    secret = secrets.token_urlsafe(32)
    now = timezone.now()
    with store_context(store), transaction.atomic():
        Invitation.objects.filter(store=store, email=email, accepted_at__isnull=True, revoked_at__isnull=True).update(
            revoked_at=now
        )
        invitation = Invitation.objects.create(
            store=store, email=email, role=role, token_hash=_hash(secret), invited_by=invited_by,
            created_at=now, expires_at=now + INVITATION_TTL,
        )
        link = invitation_url(secret)
        transaction.on_commit(lambda: send_mail(
            subject=f"Join {store.name} on Shelfwise",
            message=f"You are invited to help run {store.name} on Shelfwise as {role}.\n\n"
                    f"Open this link to accept (it works for 7 days):\n{link}\n",
            from_email=settings.DEFAULT_FROM_EMAIL, recipient_list=[email], fail_silently=False,
        ))
    logger.info("invitation to store %s for %s as %s", store.pk, email, role)
    return invitation, secret


def invitation_for(*, secret: str) -> Invitation:
    """The open invitation this link names.

    Raises:
        InvitationInvalid: unknown, expired, revoked or already accepted (answered alike).
    """
    if not secret or len(secret) > 100:
        raise InvitationInvalid()
    invitation = invitation_for_link(token_hash=_hash(secret))  # past the fence: the link names no store
    if (invitation is None or invitation.accepted_at is not None or invitation.revoked_at is not None
            or invitation.expires_at <= timezone.now()):
        raise InvitationInvalid()
    return invitation


def invitation_accept(*, secret: str, user: User) -> Membership:
    """Make ``user`` a member as invited; their verified address must be the invited one.

    Raises:
        InvitationInvalid: the link is unknown, expired, revoked or used.
        MemberError: the user's verified addresses do not include the invited one.
    """
    from allauth.account.models import EmailAddress

    found = invitation_for(secret=secret)
    with use_store(found.store), transaction.atomic():  # the store is known now: the rest is fenced
        invitation = Invitation.objects.select_for_update().select_related("store").get(pk=found.pk)
        if invitation.accepted_at is not None:
            raise InvitationInvalid()
        if not EmailAddress.objects.filter(user=user, email__iexact=invitation.email, verified=True).exists():
            raise MemberError(f"This invitation is for {invitation.email}. Sign in with that address to accept it.")
        membership, _created = Membership.objects.get_or_create(
            user=user, store=invitation.store, defaults={"role": invitation.role}
        )
        invitation.accepted_at, invitation.accepted_by = timezone.now(), user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
    return membership


def invitation_revoke(*, store: Store, invitation_id: int) -> None:
    """Withdraw an open invitation of this store (another store's is not found)."""
    with store_context(store):
        updated = Invitation.objects.filter(
            store=store, pk=invitation_id, accepted_at__isnull=True, revoked_at__isnull=True
        ).update(revoked_at=timezone.now())
    if not updated:
        raise MemberError("That invitation was not found or is no longer open.")


def _member(store: Store, membership_id: object) -> Membership:
    if not isinstance(membership_id, (int, str)):
        raise MemberError("That member was not found in this store.")
    try:
        return Membership.objects.select_for_update().select_related("user").get(store=store, pk=int(membership_id))
    except (Membership.DoesNotExist, TypeError, ValueError):
        raise MemberError("That member was not found in this store.") from None


def _keeps_an_owner(store: Store, leaving: Membership) -> None:
    if leaving.role == Membership.Role.OWNER and not Membership.objects.filter(
        store=store, role=Membership.Role.OWNER
    ).exclude(pk=leaving.pk).exists():
        raise MemberError("A store needs at least one owner: make someone else owner first.")


@transaction.atomic
def member_role_set(*, store: Store, membership_id: object, role: str, actor: str) -> Membership:
    """Change a member's role; the last owner cannot stop being one.

    Raises:
        MemberError: unknown member or role, or it would leave the store without an owner.
    """
    if role not in Membership.Role.values:
        raise MemberError("role: choose owner or staff.")
    membership = _member(store, membership_id)
    if membership.role != role:
        if role != Membership.Role.OWNER:
            _keeps_an_owner(store, membership)
        membership.role = role
        membership.save(update_fields=["role"])
        logger.info("member %s of store %s is now %s (by %s)", membership.user_id, store.pk, role, actor)
    return membership


@transaction.atomic
def member_remove(*, store: Store, membership_id: object, actor: str) -> None:
    """Remove a member: their next request no longer sees the store, and their open sockets close.

    Raises:
        MemberError: unknown member, or the store's last owner.
    """
    membership = _member(store, membership_id)
    _keeps_an_owner(store, membership)
    user_id = membership.user_id
    membership.delete()
    logger.info("member %s removed from store %s by %s", user_id, store.pk, actor)
    transaction.on_commit(lambda: access_revoked(user_id=user_id, store_id=store.pk))


def member_group(*, user_id: int, store_id: int) -> str:
    """The channel-layer group of one member's open sockets for one store."""
    return f"member.{user_id}.{store_id}"


def access_revoked(*, user_id: int, store_id: int) -> None:
    """Tell that member's open sockets for the store to close."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(member_group(user_id=user_id, store_id=store_id), {"type": "access.revoked"})
