"""The published pack schema, for vendors' editors and tools (no sign-in: it holds no store data)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from packs.source import SCHEMA_PATH


@require_GET
def pack_schema_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse(SCHEMA_PATH.read_bytes(), content_type="application/schema+json")
