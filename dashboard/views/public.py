"""The customer shelf finder: a public page per store that says where a product is.

A shopper types or says a product name and sees its aisle, shelf and shelf photo. The words go
through the store's business-type lexicon and the assistant's grounding, so local names and
mishearings ("haldi", "toor doll") work. Nothing private is shown: no stock, prices or costs.
Requests are rate-limited per visitor address and store.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.finder import shelf_find
from dashboard.forms import ShelfSearchForm
from tenants.context import use_store
from tenants.models import Store

DEFAULT_RATE_PER_MINUTE = 30


def _rate_per_minute() -> int:
    value = getattr(settings, "SHELF_FINDER_RATE_PER_MINUTE", DEFAULT_RATE_PER_MINUTE)
    return value if isinstance(value, int) and value > 0 else DEFAULT_RATE_PER_MINUTE


def _over_limit(request: HttpRequest, store: Store) -> bool:
    """Count this request in the visitor's one-minute window for this store; True past the limit.

    The address is the connection's own (REMOTE_ADDR): a forwarded header is the client's to
    invent. Behind a proxy, the proxy should set REMOTE_ADDR.
    """
    window = int(time.time() // 60)
    key = f"shelf-finder:{store.pk}:{request.META.get('REMOTE_ADDR', '-')}:{window}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    return count > _rate_per_minute()


@require_GET
def shelf_finder(request: HttpRequest, store_slug: str) -> HttpResponse:
    """``/s/<store>/find?q=haldi``: where the named products are, answered without JavaScript."""
    # The store and the pack version it runs in one query (not the version's files).
    store = (Store.objects.select_related("business_type", "pack_version__business_type")
             .defer("pack_version__files").filter(slug=store_slug).first())
    if store is None:
        return render(request, "dashboard/public/store_not_found.html", {"slug": store_slug}, status=404)
    if _over_limit(request, store):
        response = render(request, "dashboard/public/slow_down.html", {"store": store}, status=429)
        response["Retry-After"] = "60"
        return response
    form = ShelfSearchForm(request.GET or None)
    answer = None
    status = 200
    if form.is_bound:
        if form.is_valid():
            with use_store(store):
                answer = shelf_find(store=store, text=form.cleaned_data["q"])
        else:
            status = 400
    return render(
        request,
        "dashboard/public/shelf_finder.html",
        {"store": store, "form": form if form.is_bound else ShelfSearchForm(), "answer": answer},
        status=status,
    )
