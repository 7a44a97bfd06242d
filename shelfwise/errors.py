"""Error pages: JSON under /api/ and /mcp, a short HTML page elsewhere; never a stack trace."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.template.exceptions import TemplateDoesNotExist

_MESSAGES = {
    400: ("bad_request", "The request could not be understood. Check it and try again."),
    403: ("permission_denied", "You cannot do that here."),
    404: ("not_found", "Not found."),
    500: ("server_error", "Something went wrong on our side. Nothing was changed; please try again."),
}


def _respond(request: HttpRequest, status: int) -> HttpResponse:
    code, message = _MESSAGES[status]
    if request.path.startswith(("/api/", "/mcp", "/alexa")):
        return JsonResponse({"error": {"code": code, "message": message}}, status=status)
    try:
        body = loader.render_to_string("error.html", {"status": status, "message": message}, request=None)
    except TemplateDoesNotExist:
        body = f"<!doctype html><title>{status}</title><h1>{status}</h1><p>{message}</p>"
    return HttpResponse(body, status=status)


def bad_request(request, exception=None):
    return _respond(request, 400)


def permission_denied(request, exception=None):
    return _respond(request, 403)


def page_not_found(request, exception=None):
    return _respond(request, 404)


def server_error(request):
    return _respond(request, 500)
