"""Pagination of REST lists: ``limit``/``offset`` with a hard maximum page size."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import LimitOffsetPagination

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class Pages(LimitOffsetPagination):
    """``?limit=`` (1..200, default 50) and ``?offset=``; the answer is ``{count, next, previous, results}``."""

    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT


def paginated(view, request, items, render):
    """One page of ``items`` rendered by ``render(page)``, in the paginated envelope."""
    pages = Pages()
    page: list[Any] | None = pages.paginate_queryset(items, request, view=view)
    return pages.get_paginated_response(render(page))
