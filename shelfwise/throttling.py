"""REST throttles per caller: per store token (or OAuth connection) and per signed-in user.

Two budgets, counted in Django's cache: ``turns`` (assistant turns, ``POST /api/v1/turns``: each
may run a model) and ``writes`` (every other unsafe method). Reads are not throttled here (the
MCP gateway and the shelf finder have their own limits). A caller over a budget gets 429 with a
``Retry-After`` and a sentence saying how long to wait.
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
            ident = f"token:{request.auth.prefix}"
        elif request.user is not None and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            return None  # refused by authentication anyway
        return f"throttle:{self.scope}:{ident}"
