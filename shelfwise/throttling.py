"""REST throttles per caller: per store token (or OAuth connection) and per signed-in user.

Two budgets, counted in Django's cache: ``turns`` (assistant turns, ``POST /api/v1/turns``: each
may run a model) and ``writes`` (every other unsafe method). Reads are not throttled here (the
MCP gateway and the shelf finder have their own limits). A caller over a budget gets 429 with a
``Retry-After`` and a sentence saying how long to wait.

Turns that do not come through DRF (the voice socket, Alexa) count against the same ``turns``
budget and cache key with ``turn_charge``, so a caller's turns are counted once whichever way
they come.
"""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle

from tenants.models import StoreToken

# Views that do not name a throttle_scope get one from their URL name.
URL_SCOPES = {"api-turns": "turns"}


class CallerRateThrottle(SimpleRateThrottle):
    """``turns`` and ``writes`` budgets per credential or user (rates: ``DEFAULT_THROTTLE_RATES``)."""

    def __init__(self) -> None:  # the scope, and so the rate, is chosen per request
        pass

    def _scope(self, request, view) -> str | None:
        named = getattr(view, "throttle_scope", None)
        if named:
            return named
        match = getattr(request, "resolver_match", None)
        by_url = URL_SCOPES.get(getattr(match, "url_name", None) or "")
        if by_url:
            return by_url
        return None if request.method in SAFE_METHODS else "writes"

    def allow_request(self, request, view) -> bool:
        self.scope = self._scope(request, view)
        if self.scope is None or self.scope not in self.THROTTLE_RATES:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request, view) -> str | None:
        if isinstance(request.auth, StoreToken):
            ident = token_ident(request.auth)
        elif request.user is not None and request.user.is_authenticated:
            ident = user_ident(request.user)
        else:
            return None  # refused by authentication anyway
        return f"throttle:{self.scope}:{ident}"


def token_ident(token: StoreToken) -> str:
    """Whose budget a store token's (or OAuth connection's) calls count against."""
    return f"token:{token.prefix}"


def user_ident(user) -> str:
    """Whose budget a signed-in user's calls count against."""
    return f"user:{user.pk}"


class _TurnBudget(CallerRateThrottle):
    """The ``turns`` budget for one caller, outside a DRF request."""

    def __init__(self, ident: str) -> None:
        self.ident = ident

    def _scope(self, request, view) -> str:
        return "turns"

    def get_cache_key(self, request, view) -> str:
        return f"throttle:{self.scope}:{self.ident}"


def turn_charge(ident: str) -> int | None:
    """Count one turn for ``ident`` (``token_ident``, ``user_ident``): None if allowed, else seconds to wait."""
    budget = _TurnBudget(ident)
    if budget.allow_request(None, None):
        return None
    return max(int(budget.wait() or 1), 1)
