"""One mapping from domain errors to HTTP answers for the REST API.

Every error body has the same shape, ``{"error": {"code": ..., "message": ...}}``; messages
say what happened and what to do, and nothing internal (no stack traces) ever leaves.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from shelfwise.errors import RETRY_AFTER_S, is_unavailable

logger = logging.getLogger(__name__)

_DOMAIN_STATUS = {
    "not_found": status.HTTP_404_NOT_FOUND,
    "stock_conflict": status.HTTP_409_CONFLICT,
    "edit_conflict": status.HTTP_409_CONFLICT,
    "idempotency_conflict": status.HTTP_409_CONFLICT,
    "invalid_transition": status.HTTP_409_CONFLICT,
    "invalid_token": status.HTTP_401_UNAUTHORIZED,
    "insufficient_scope": status.HTTP_403_FORBIDDEN,
    "report_disabled": status.HTTP_403_FORBIDDEN,
    "recipient_not_allowed": status.HTTP_403_FORBIDDEN,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
    "nothing_to_order": status.HTTP_409_CONFLICT,
    "delivery_failed": status.HTTP_503_SERVICE_UNAVAILABLE,
    "assistant_unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
}


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def _flatten(detail) -> str:
    """A DRF validation detail as one readable sentence naming the fields."""
    if isinstance(detail, dict):
        parts = []
        for field, value in detail.items():
            text = _flatten(value)
            parts.append(text if field == "non_field_errors" else f"{field}: {text}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    return str(detail)


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: domain errors, DRF errors and the unexpected, all as JSON."""
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None)
    if isinstance(code, str) and isinstance(message, str) and not isinstance(exc, exceptions.APIException):
        details = {k: v for k, v in (getattr(exc, "details", None) or {}).items() if k not in ("code", "message")}
        return Response(
            error_body(code, message, **details), status=_DOMAIN_STATUS.get(code, status.HTTP_400_BAD_REQUEST)
        )
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        return Response(error_body("permission_denied", "You cannot do that for this store."), status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, exceptions.APIException):
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        if isinstance(exc, exceptions.Throttled):
            wait = int(exc.wait or 1)
            body = error_body("throttled", f"Too many requests from this token or user: wait {wait} seconds, then try again.")
        elif isinstance(exc, exceptions.ValidationError):
            body = error_body("invalid", _flatten(exc.detail), fields=exc.detail if isinstance(exc.detail, dict) else None)
        else:
            body = error_body(exc.default_code if isinstance(exc.default_code, str) else "error", _flatten(exc.detail))
        return Response(body, status=exc.status_code, headers=headers)
    if is_unavailable(exc):
        logger.warning("API request failed: the database is unavailable (%s)", exc)
        return Response(
            error_body("unavailable", "The service is briefly unavailable. Nothing was changed; please try again in a moment."),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    logger.exception("Unhandled API error", exc_info=exc)
    return Response(
        error_body("server_error", "Something went wrong on our side. Nothing was changed; please try again."),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
