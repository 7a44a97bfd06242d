"""Vendors' pages: business types, their numbered actions, lexicon, and the router prompt they generate.

Who sees what: platform admins (``identity.platform_admin``) see every business type and can
preview the prompt for any store; vendors (``identity.vendor``) see every business type and the
prompt of stores they belong to (a prompt holds a store's catalog); a signed-in member of a store
sees the business types of their own stores and the prompt of those stores only. ``is_staff``
grants nothing. Anyone else gets the 403 page; signed-out visitors go to the login page.

The prompt is built by the router itself (``RouterMode.messages``) from the store's catalog, so
the page shows exactly what the model sees. The catalog is ledger data under row-level security
on PostgreSQL: it is read inside ``use_store(store)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from types import SimpleNamespace
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from identity.permissions import is_platform_admin, is_vendor
from packs.source import store_pack_key, type_pack_key, type_pack_keys
from tenants.models import BusinessType, Store

DEFAULT_SAY = "where did we put the haldi"
MAX_SAY = 200
STORE_CHOICES_LIMIT = 500


def member_or_staff(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed out -> login; signed in without a platform role or any store -> 403."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not user.is_active or not (is_platform_admin(user) or is_vendor(user) or user.memberships.exists()):
            raise PermissionDenied("Business types are for platform admins, vendors and store members.")
        return view(request, *args, **kwargs)

    return wrapped


def visible_stores(user) -> QuerySet[Store]:
    """The stores whose prompt ``user`` may see: all for platform admins, else the stores they belong to."""
    stores = Store.objects.select_related("business_type").order_by("name", "pk")
    return stores if is_platform_admin(user) else stores.filter(memberships__user=user)


def visible_types(user) -> QuerySet[BusinessType]:
    types = BusinessType.objects.all()
    if is_platform_admin(user) or is_vendor(user):
        return types
    return types.filter(stores__memberships__user=user).distinct()


@require_GET
@member_or_staff
def types(request: HttpRequest) -> HttpResponse:
    from django.db.models import Count

    rows = list(visible_types(request.user).annotate(store_count=Count("stores", distinct=True))
                .order_by("position", "name"))
    keys = type_pack_keys(rows)
    for row in rows:
        row.pack = _pack_summary(keys[row.pk])
    return render(request, "dashboard/vendor/types.html", {"section": "vendors", "types": rows})


def _pack_summary(slug: str) -> dict[str, Any]:
    from assistant.lexicon import LexiconError, lexicon_for
    from assistant.modes.router.prompt import router_pack

    try:
        pack = router_pack(slug)
        lexicon = lexicon_for(slug)
    except (ImproperlyConfigured, LexiconError) as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "actions": len(pack.actions), "examples": len(pack.examples),
            "corrections": len(lexicon.corrections), "groups": len(set(lexicon.groups.values()))}


def _lexicon_view(slug: str) -> dict[str, Any]:
    """The lexicon as the page lists it: corrections grouped by target, groups, wake words, fillers."""
    from assistant.lexicon import lexicon_for

    lexicon = lexicon_for(slug)
    corrections: dict[tuple[str, str], list[str]] = {}
    for source, fix in lexicon.corrections.items():
        corrections.setdefault((fix.kind, fix.target), []).append(" ".join(source))
    groups: dict[str, list[str]] = {}
    for words, category in lexicon.groups.items():
        groups.setdefault(category, []).append(" ".join(words))
    return {
        "version": lexicon.version,
        "mishearings": sorted((t, sorted(s)) for (k, t), s in corrections.items() if k == "mishearing"),
        "local_names": sorted((t, sorted(s)) for (k, t), s in corrections.items() if k == "local name"),
        "groups": sorted((c, sorted(w)) for c, w in groups.items()),
        "wake_words": sorted(" ".join(w) for w in lexicon.wake_words),
        "fillers": sorted(lexicon.fillers),
        "pronouns": sorted(" ".join(p) for p in lexicon.pronouns),
        "units": sorted(lexicon.units),
    }


def router_messages(*, store: Store, say: str) -> tuple[str, list[dict[str, str]], dict[str, Any]]:
    """The normalised request, the router's messages and its output schema for ``store`` and ``say``.

    Built by the router's own code (``RouterMode.messages``) on the store's catalog, read inside
    the store's context (row-level security on PostgreSQL).
    """
    from assistant.grounding import Catalog
    from assistant.lexicon import lexicon_for
    from assistant.modes.router import prompt as prompts
    from assistant.modes.router.mode import RouterMode
    from assistant.normalize import normalize
    from ledger import selectors
    from tenants.context import use_store

    key = store_pack_key(store)
    lexicon = lexicon_for(key)
    pack = prompts.router_pack(key)
    words = normalize(say, lexicon)
    with use_store(store):
        catalog = Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon)
    ctx = SimpleNamespace(store=store, words=words, catalog=catalog,
                          state=SimpleNamespace(last_product="", last_action=""))
    return words.text, RouterMode().messages(ctx, pack), prompts.output_schema(pack)


@require_GET
@member_or_staff
def type_detail(request: HttpRequest, slug: str) -> HttpResponse:
    from assistant.modes.router.prompt import router_pack

    try:
        business_type = visible_types(request.user).get(slug=slug)
    except BusinessType.DoesNotExist:
        raise Http404("No such business type.") from None
    key = type_pack_key(business_type)
    try:
        pack = router_pack(key)
    except ImproperlyConfigured as exc:
        return render(request, "dashboard/vendor/type.html", {
            "section": "vendors", "business_type": business_type, "pack_error": str(exc),
        })
    examples: dict[str, list[dict[str, Any]]] = {}
    for say, answer in pack.examples:
        examples.setdefault(answer["action"], []).append({"say": say, "json": json.dumps(answer)})
    actions = [{**action, "examples": examples.get(action["name"], [])} for action in pack.actions]

    stores = visible_stores(request.user).filter(business_type=business_type)
    choices = list(stores[:STORE_CHOICES_LIMIT])
    say = " ".join(request.GET.get("say", DEFAULT_SAY).split())[:MAX_SAY] or DEFAULT_SAY
    chosen, error, prompt = None, "", None
    wanted = request.GET.get("store", "")
    if wanted:
        chosen = stores.filter(slug=wanted).first()
        if chosen is None:
            # Same answer for another owner's store and a missing one: nothing to learn by guessing.
            error = "No store of this type with that name that you can see."
    elif choices:
        chosen = choices[0]
    if chosen is not None:
        normalized, messages, schema = router_messages(store=chosen, say=say)
        prompt = {"normalized": normalized, "messages": messages,
                  "schema": json.dumps(schema, indent=2), "chars": sum(len(m["content"]) for m in messages)}
    return render(request, "dashboard/vendor/type.html", {
        "section": "vendors", "business_type": business_type, "actions": actions, "pack": pack,
        "context_examples": [{"say": s, "last": last, "json": json.dumps(a)} for s, last, a in pack.context_examples],
        "lexicon": _lexicon_view(key), "stores": choices, "chosen": chosen, "say": say,
        "prompt": prompt, "store_error": error,
    }, status=404 if error else 200)
