"""Error pages: JSON under /api/ and /mcp, a short HTML page elsewhere; never a stack trace."""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.template.exceptions import TemplateDoesNotExist

_MESSAGES = {
    400: ("bad_request", "The request could not be understood. Check it and try again."),
    403: ("permission_denied", "You cannot do that here."),
    404: ("not_found", "Not found."),
    500: ("server_error", "Something went wrong on our side. Nothing was changed; please try again."),
    503: ("unavailable", "The service is briefly unavailable. Nothing was changed; please try again in a moment."),
}
RETRY_AFTER_S = 5


def is_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` means a backing service (the database) is not answering, not a bug.

    Such a failure is the next request's to retry: a 503 with Retry-After, not a 500.
    """
    from django.db import InterfaceError, OperationalError

    return isinstance(exc, OperationalError | InterfaceError)


def _respond(request: HttpRequest, status: int) -> HttpResponse:
    code, message = _MESSAGES[status]
    if request.path.startswith(("/api/", "/mcp", "/alexa")):
        response: HttpResponse = JsonResponse({"error": {"code": code, "message": message}}, status=status)
        if status == 503:
            response["Retry-After"] = str(RETRY_AFTER_S)
        return response
    try:
        body = loader.render_to_string("error.html", {"status": status, "message": message}, request=None)
    except TemplateDoesNotExist:
        body = f"<!doctype html><title>{status}</title><h1>{status}</h1><p>{message}</p>"
    response = HttpResponse(body, status=status)
    if status == 503:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def bad_request(request, exception=None):
    return _respond(request, 400)


def permission_denied(request, exception=None):
    return _respond(request, 403)


def page_not_found(request, exception=None):
    return _respond(request, 404)


def server_error(request):
    # Django calls this while handling the exception: the database going away is a 503.
    return _respond(request, 503 if is_unavailable(sys.exc_info()[1]) else 500)
