"""The signed-in app's store pages: home, onboarding (create a store), the store switcher, tokens."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from ledger.errors import LedgerError
from tenants.errors import StoreNotFound, TenantError, TokenNotFound
from tenants.forms import StoreCreateForm, TokenCreateForm
from tenants.middleware import SESSION_KEY
from tenants.models import Membership
from tenants.selectors import membership_get, memberships_for_user, token_list
from tenants.services import store_create, token_create, token_revoke


class SignedInRequest(HttpRequest):
    """A request that ``login_required`` let through, as these views see it: for type checkers, never built."""

    user: User

@login_required
def home(request: SignedInRequest) -> HttpResponse:
    """The signed-in home: the current store and the user's stores. New users go to onboarding."""
    memberships = list(memberships_for_user(user=request.user))
    if not memberships:
        return redirect("tenants:store-new")
    return render(request, "tenants/home.html", {"memberships": memberships})


@login_required
@require_http_methods(["GET", "POST"])
def store_new(request: SignedInRequest) -> HttpResponse:
    """Onboarding: create a store, empty or with the demo catalog, and make it the current one."""
    form = StoreCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        sample = data["catalog"] == StoreCreateForm.CATALOG_DEMO
        try:
            with transaction.atomic():  # a sample catalog that cannot go in leaves no store behind
                store = store_create(
                    name=data["name"],
                    owner_name=data["owner_name"],
                    timezone=data["timezone"],
                    currency=data["currency"],
                    business_type=data.get("business_type") or "grocery",
                    owner=request.user,
                    with_demo_catalog=sample and (data.get("business_type") or "grocery") == "grocery",
                )
                if sample and store.business_type.slug != "grocery":
                    # Another kind of store: its pack's sample catalog, as the catalog import reads it.
                    from packs.services import store_sample_catalog_install

                    store_sample_catalog_install(store=store)
        except LedgerError as exc:
            form.add_error(None, exc.message)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        except TenantError as exc:
            form.add_error(None, exc.message)
        else:
            request.session[SESSION_KEY] = store.pk
            messages.success(request, f"{store.name} is ready.")
            return redirect("tenants:home")
    first_store = not memberships_for_user(user=request.user).exists()
    return render(
        request,
        "tenants/store_new.html",
        {"form": form, "first_store": first_store},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def store_switch(request: SignedInRequest) -> HttpResponse:
    """Make another of the user's stores the current one; another person's store is not found."""
    try:
        membership = membership_get(user=request.user, store_id=request.POST.get("store"))
    except StoreNotFound:
        raise Http404("Store not found.") from None
    request.session[SESSION_KEY] = membership.store_id
    target = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        target = reverse("tenants:home")
    return redirect(target)


def _owner_membership(request: SignedInRequest) -> Membership:
    membership = getattr(request, "membership", None)
    if membership is None:
        raise Http404("Store not found.")
    if membership.role != Membership.Role.OWNER:
        raise PermissionDenied("Only the store's owner manages its tokens.")
    return membership


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: SignedInRequest) -> HttpResponse:
    """The current store's tokens; creating one shows its plaintext once, on this response only."""
    membership = _owner_membership(request)
    store = membership.store
    form = TokenCreateForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            token, raw = token_create(
                store=store, name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"], created_by=request.user
            )
        except TenantError as exc:
            form.add_error(None, exc.message)
        else:
            created = {"token": token, "raw": raw}
            form = TokenCreateForm()
    response = render(
        request,
        "tenants/tokens.html",
        {"form": form, "tokens": token_list(store=store), "created": created},
        status=400 if form.errors else 200,
    )
    # The page may hold a secret: keep it out of caches.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke_view(request: SignedInRequest, token_id: int) -> HttpResponse:
    membership = _owner_membership(request)
    try:
        token = token_revoke(store=membership.store, token_id=token_id, actor=f"user:{request.user.pk}")
    except TokenNotFound:
        raise Http404("Token not found.") from None
    messages.success(request, f"Token “{token.name}” is revoked; clients using it are refused from now on.")
    return redirect("tenants:tokens")
