from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from shelfwise import errors, openapi  # noqa: F401 - registers the store-token scheme for the schema
from shelfwise.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    # The OAuth 2.1 authorization server: consent, token, revocation, registration, RFC 8414 metadata.
    path("", include("identity.urls")),
    path("app/", include("tenants.urls")),
    # Owner workspace (inventory, sales, approvals, orders, reports, assistant history) and the talk page.
    path("app/", include("dashboard.urls.owner")),
    path("app/talk/", include("dashboard.urls.talk")),
    # The customer shelf finder: public, per store.
    path("s/", include("dashboard.urls.public")),
    # The platform admin's stores, audit explorer and per-mode metrics (staff users).
    path("ops/", include("dashboard.urls.ops")),
    # Vendors: business types, their actions, lexicon and generated prompts.
    path("vendors/", include("dashboard.urls.vendor")),
    path("packs/", include("packs.urls")),
    # Alexa custom skill endpoint (signed requests; the store from account linking).
    path("alexa/", include("alexa.urls")),
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include("ledger.api_urls")),
    path("api/v1/", include("assistant.api_urls")),
    path("api/v1/", include("alerts.api_urls")),
    path("api/v1/schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/v1/docs", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error


def media(request, path):
    """Uploaded shelf photos, read from MEDIA_ROOT as it is now (not as it was when this module was
    imported: tests and deployments may point it elsewhere after start-up)."""
    return serve(request, path, document_root=settings.MEDIA_ROOT)


if settings.SERVE_MEDIA:
    urlpatterns += [re_path(r"^media/(?P<path>.*)$", media)]
