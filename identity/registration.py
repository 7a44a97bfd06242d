"""Dynamic client registration (RFC 7591) for MCP clients: strict, small, rate-limited.

Creates public clients only (``token_endpoint_auth_method: none``, so PKCE is their proof),
for the authorization code grant and its refresh, with redirect URIs that are HTTPS or HTTP on
a loopback address (RFC 8252 native apps). Anything else is refused with
``invalid_client_metadata`` or ``invalid_redirect_uri`` naming the field. A client address may
register ``OAUTH_REGISTRATIONS_PER_HOUR`` clients an hour. A registered client can do nothing
by itself: every token needs a store member's consent.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from oauth2_provider.models import get_application_model

MAX_BODY = 8 * 1024
MAX_REDIRECT_URIS = 5
MAX_URI_LENGTH = 500
MAX_NAME_LENGTH = 100
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
ALLOWED_GRANTS = {"authorization_code", "refresh_token"}


class RegistrationError(Exception):
    def __init__(self, description: str, error: str = "invalid_client_metadata") -> None:
        super().__init__(description)
        self.error, self.description = error, description


def _error(error: str, description: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=status)


def _client_address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _over_rate(request: HttpRequest) -> bool:
    key = f"oauth:register:{_client_address(request)}:{int(time.time() // 3600)}"
    cache.add(key, 0, timeout=3600)
    try:
        count = cache.incr(key)
    except ValueError:
        return False
    return count > settings.OAUTH_REGISTRATIONS_PER_HOUR


def _redirect_uris(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or len(value) > MAX_REDIRECT_URIS:
        raise RegistrationError(f"redirect_uris must be a list of 1 to {MAX_REDIRECT_URIS} URIs.", "invalid_redirect_uri")
    for uri in value:
        if not isinstance(uri, str) or len(uri) > MAX_URI_LENGTH or any(c.isspace() for c in uri):
            raise RegistrationError("Each redirect URI must be a string of at most 500 characters without spaces.",
                                    "invalid_redirect_uri")
        parts = urlsplit(uri)
        if parts.fragment or parts.username or parts.password or not parts.hostname:
            raise RegistrationError(f"The redirect URI {uri!r} must be absolute, without a fragment or user info.",
                                    "invalid_redirect_uri")
        if not (parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)):
            raise RegistrationError(f"The redirect URI {uri!r} must use https, or http on a loopback address.",
                                    "invalid_redirect_uri")
    return value


def _metadata(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RegistrationError("The request body must be a JSON object.") from None
    if not isinstance(data, dict):
        raise RegistrationError("The request body must be a JSON object.")
    # Metadata this server does not understand is ignored, as RFC 7591 section 2 asks.
    method = data.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise RegistrationError("token_endpoint_auth_method must be 'none': register a public client with PKCE.")
    grants = data.get("grant_types", ["authorization_code", "refresh_token"])
    if not isinstance(grants, list) or "authorization_code" not in grants or not set(grants) <= ALLOWED_GRANTS:
        raise RegistrationError("grant_types may hold only authorization_code and refresh_token.")
    responses = data.get("response_types", ["code"])
    if responses != ["code"]:
        raise RegistrationError("response_types must be ['code'].")
    name = data.get("client_name", "")
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
        raise RegistrationError(f"client_name must be a string of at most {MAX_NAME_LENGTH} characters.")
    return {"redirect_uris": _redirect_uris(data.get("redirect_uris")), "client_name": name.strip()}


@csrf_exempt
@require_POST
def register(request: HttpRequest) -> JsonResponse:
    """``POST /oauth/register``: a new public PKCE client; 201 with its ``client_id``."""
    if len(request.body) > MAX_BODY:
        return _error("invalid_client_metadata", "The registration request is too large.", 413)
    if _over_rate(request):
        response = _error("rate_limited", "Too many client registrations from here. Try again in an hour.", 429)
        response["Retry-After"] = "3600"
        return response
    try:
        metadata = _metadata(request.body)
    except RegistrationError as error:
        return _error(error.error, error.description)
    Application = get_application_model()
    application = Application.objects.create(
        name=metadata["client_name"] or "MCP client",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(metadata["redirect_uris"]),
        skip_authorization=False,
        registration_source=Application.RegistrationSource.DCR,
    )
    body = {
        "client_id": application.client_id,
        "client_id_issued_at": int(application.created.timestamp()),
        "client_name": application.name,
        "redirect_uris": metadata["redirect_uris"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    response = JsonResponse(body, status=201)
    response["Cache-Control"] = "no-store"
    return response
