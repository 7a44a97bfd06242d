"""RFC 8414 authorization-server metadata: django-oauth-toolkit's, plus this server's registration endpoint."""

from __future__ import annotations

import json

from django.urls import reverse
from oauth2_provider.views import OAuthServerMetadataView


class ServerMetadataView(OAuthServerMetadataView):
    """``/.well-known/oauth-authorization-server``: the issuer, endpoints, PKCE S256, scopes, registration."""

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        data = json.loads(response.content)
        data["registration_endpoint"] = request.build_absolute_uri(reverse("oauth2_provider:register"))
        data["code_challenge_methods_supported"] = ["S256"]
        response.content = json.dumps(data).encode()
        response["Content-Length"] = str(len(response.content))
        return response
