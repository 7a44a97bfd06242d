"""Template context: the request's store and membership, and the user's other stores for the switcher."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from tenants.selectors import memberships_for_user


def current_store(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    return {
        "current_store": getattr(request, "store", None),
        "current_membership": getattr(request, "membership", None),
        # Evaluated only by templates that show the switcher.
        "user_memberships": SimpleLazyObject(lambda: list(memberships_for_user(user=user))),
    }
