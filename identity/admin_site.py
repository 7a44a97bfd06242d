"""The Django admin, for platform admins only (the ``identity.platform_admin`` permission).

``is_staff`` opens nothing: the site asks for the permission, signs people in through the
site's own login page, and runs each admin view inside ``tenants.rls.bypass()`` (the admin
is cross-store maintenance). Model-level rights stay Django's (view/change/delete per model).
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from identity.permissions import is_platform_admin
from tenants import rls


class PlatformAdminSite(admin.AdminSite):
    site_header = "Shelfwise platform admin"

    def has_permission(self, request: HttpRequest) -> bool:
        return is_platform_admin(request.user)

    def login(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        # One way to sign in (allauth's page); a signed-in user without the permission gets 403 there.
        return redirect_to_login(request.GET.get("next") or request.get_full_path(), settings.LOGIN_URL)

    def admin_view(self, view, cacheable: bool = False):
        guarded = super().admin_view(view, cacheable)

        @wraps(guarded)
        def in_bypass(request, *args, **kwargs):
            if request.user.is_authenticated and not self.has_permission(request):
                raise PermissionDenied("Platform admins only.")
            if not self.has_permission(request):
                return guarded(request, *args, **kwargs)  # Django's redirect to the login page
            with rls.bypass():
                response = guarded(request, *args, **kwargs)
                if hasattr(response, "render") and callable(response.render) and not response.is_rendered:
                    response.render()  # lazy templates read the ledger too
                return response

        return in_bypass
