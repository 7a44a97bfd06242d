"""The platform-wide permissions and the checks every cross-store surface uses."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from tenants import rls

PLATFORM_ADMIN = "identity.platform_admin"
VENDOR = "identity.vendor"


def is_platform_admin(user: Any) -> bool:
    """An active user holding ``identity.platform_admin`` (superusers hold every permission)."""
    return bool(user is not None and user.is_authenticated and user.is_active and user.has_perm(PLATFORM_ADMIN))


def is_vendor(user: Any) -> bool:
    """An active user holding ``identity.vendor``."""
    return bool(user is not None and user.is_authenticated and user.is_active and user.has_perm(VENDOR))


SESSION_FLAG = "platform_admin"


def remember_platform_role(sender, request, user, **kwargs) -> None:
    """At sign-in, note in the session whether to show the Platform link (pages then need no
    permission query); every /ops/ view still checks the permission itself."""
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_FLAG] = is_platform_admin(user)


def platform_admin_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Platform admins only: signed out -> the login page; anyone else (vendors too) -> 403.

    The view runs, and renders, inside ``tenants.rls.bypass()``: these are the cross-store
    reads that the bypass exists for.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_platform_admin(user):
            raise PermissionDenied("Platform admins only.")
        with rls.bypass():
            return view(request, *args, **kwargs)

    return wrapped
