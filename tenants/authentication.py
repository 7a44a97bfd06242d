"""DRF authentication with store tokens: ``Authorization: Bearer sw_<prefix>_<secret>`` (scope ``api``),
or an OAuth access token from this deployment's authorization server (``identity.credentials``)
issued for ``/api/v1`` or without a resource indicator (Alexa's account linking).

On success the request acts for the token's store: ``request.store`` is set, ``request.user``
is a ``TokenUser`` (not a person; ``actor`` is ``token:<prefix>``), ``request.auth`` is the
``StoreToken``, and the store becomes current (``tenants.context.activate_store``) until the
request's scope, opened by ``CurrentStoreMiddleware`` around every request, ends. That keeps
the switch and its undoing in one place for every API view, with no base class to remember.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from tenants.context import activate_store
from tenants.errors import InvalidToken, MissingScope
from tenants.models import Membership, Store, StoreToken

API_SCOPE = StoreToken.Scope.API


class StoreRequest(Request):
    """A request that acts for a store, as API views see it: for type checkers, never built.

    Token authentication (here) or ``CurrentStoreMiddleware`` (a signed-in member) sets
    ``store``; the API's permission classes refuse a request without one before a view runs.
    """

    store: Store
    membership: Membership | None


class TokenUser(AnonymousUser):
    """The caller of a token-authenticated request: a store credential, not a person."""

    def __init__(self, token: StoreToken) -> None:
        self.token = token
        self.store = token.store

    @property
    def is_anonymous(self) -> bool:  # type: ignore[override]
        return False

    @property
    def is_authenticated(self) -> bool:  # type: ignore[override]
        return True

    @property
    def actor(self) -> str:
        return f"token:{self.token.prefix}"

    def __str__(self) -> str:
        return self.actor

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TokenUser) and other.token.pk == self.token.pk

    def __hash__(self) -> int:
        return hash(("token", self.token.pk))


def request_actor(request: HttpRequest | Request) -> str:
    """Who acts, for journals and audit: ``token:<prefix>`` or ``user:<id>``."""
    user = getattr(request, "user", None)
    if isinstance(user, TokenUser):
        return user.actor
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return "anonymous"


class StoreTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"
    scope = API_SCOPE

    def authenticate(self, request: Request):
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None  # not ours: session authentication may still apply
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send the store token as 'Authorization: Bearer <token>'.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(InvalidToken.default_message) from None
        from identity.credentials import credential_authenticate

        resource = f"{request.scheme}://{request.get_host()}/api/v1"
        try:
            token = credential_authenticate(raw=raw, scope=self.scope, resource=resource)
        except InvalidToken as exc:
            raise exceptions.AuthenticationFailed(exc.message, code=exc.code) from None
        except MissingScope as exc:
            raise exceptions.PermissionDenied(exc.message, code=exc.code) from None
        activate_store(token.store)
        for target in (request, request._request):
            # The request types have no such attributes: StoreRequest is how views see them.
            target.store = token.store  # type: ignore[attr-defined]
            target.membership = None  # type: ignore[attr-defined]
        return TokenUser(token), token

    def authenticate_header(self, request: Request) -> str:
        # A WWW-Authenticate header turns "no credentials" into 401 rather than 403.
        return f'{self.keyword} realm="api"'
