"""The current store of each request, for signed-in members.

The store comes from ``request.session["store_id"]`` when the user is still a member of it,
else from the user's first membership. The rest of the request runs inside
``tenants.context.request_scope(store)``, which also bounds what token authentication
activates later in the request. Works for sync and async stacks.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponseBase

from tenants.context import request_scope
from tenants.errors import StoreNotFound
from tenants.models import Membership
from tenants.selectors import membership_get, memberships_for_user

SESSION_KEY = "store_id"


def resolve_membership(request: HttpRequest) -> Membership | None:
    """The signed-in user's membership for this request (session choice, else the first), or None."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    session = getattr(request, "session", None)
    chosen = session.get(SESSION_KEY) if session is not None else None
    if session is not None and chosen is not None:
        try:
            return membership_get(user=user, store_id=chosen)
        except StoreNotFound:
            # Left that store, or the id was never theirs: forget it and fall back.
            session.pop(SESSION_KEY, None)
    return memberships_for_user(user=user).first()


class CurrentStoreMiddleware:
    """Sets ``request.store`` and ``request.membership`` and runs the request in that store's context."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.async_mode:
            return self.__acall__(request)
        membership = resolve_membership(request)
        self._annotate(request, membership)
        with request_scope(membership.store if membership else None):
            return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        # The session and the user load from the database: do that off the event loop.
        membership = await sync_to_async(resolve_membership)(request)
        self._annotate(request, membership)
        with request_scope(membership.store if membership else None):
            return await self.get_response(request)

    @staticmethod
    def _annotate(request: HttpRequest, membership: Membership | None) -> None:
        request.membership = membership  # type: ignore[attr-defined]
        request.store = membership.store if membership else None  # type: ignore[attr-defined]
