"""DRF permission: the caller acts for a store."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from tenants.authentication import API_SCOPE
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
