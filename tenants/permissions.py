"""DRF permission: the caller acts for a store."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from tenants.authentication import API_SCOPE
from tenants.context import store_context
from tenants.models import StoreToken


class HasStore(BasePermission):
    """A signed-in member of a store (session), or a store token with the ``api`` scope.

    No credentials: 401 (DRF asks the first authenticator for a WWW-Authenticate header).
    Signed in but not a member of any store: 403.
    """

    message = "You are signed in but not a member of any store. Create a store first."

    def has_permission(self, request, view) -> bool:
        if isinstance(request.auth, StoreToken):
            return request.auth.is_active and request.auth.has_scope(API_SCOPE)
        user = request.user
        if user is None or not user.is_authenticated:
            return False
        return getattr(request, "store", None) is not None and getattr(request, "membership", None) is not None


def may_confirm_orders(*, store, actor: str, channel: str = "") -> bool:
    """Whether the principal behind ``actor`` may confirm (place) an order for ``store``.

    The store's owner (``user:<id>`` with the owner role) or a live store token holding
    ``orders:confirm`` (``token:<prefix>``) may; staff, other tokens and anyone else may not.
    Actors are built by code from the session or credential, never from what a model said.
    In-process tooling with no remote principal (``channel="system"``: the ``turn`` command and
    benchmarks run by an operator) is trusted.
    """
    from identity.models import Connection
    from tenants.models import Membership

    if channel == "system":
        return True
    kind, _, ident = (actor or "").partition(":")
    if kind == "user" and ident.isdigit():
        return Membership.objects.filter(store=store, user_id=int(ident), role=Membership.Role.OWNER).exists()
    if kind == "token" and ident:
        with store_context(store):  # tokens are fenced: another store's context finds none
            token = StoreToken.objects.filter(store=store, prefix=ident, revoked_at__isnull=True).first()
        if token is None or not token.has_scope(StoreToken.Scope.ORDERS_CONFIRM):
            return False
        # An OAuth link (``identity.Connection``: Alexa, an MCP or REST client) acts for the member who
        # granted it, so it confirms only while that member owns the store: an owner demoted to staff
        # keeps the link's other scopes but not this one (as ``oauth_authenticate`` reads the grant).
        owner_id = Connection.objects.filter(credential=token).values_list("user_id", flat=True).first()
        return owner_id is None or Membership.objects.filter(
            store=store, user_id=owner_id, role=Membership.Role.OWNER).exists()
    return False
