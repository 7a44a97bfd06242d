"""What the OpenAPI schema (drf-spectacular) cannot guess: how a store token is sent.

Imported by ``shelfwise.urls`` so the extension is registered before the schema is generated.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class StoreTokenScheme(OpenApiAuthenticationExtension):
    target_class = "tenants.authentication.StoreTokenAuthentication"
    name = "storeToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A store token (or an OAuth access token for this API) with the `api` scope; "
                           "confirming an order also needs `orders:confirm`.",
        }
