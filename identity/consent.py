"""The OAuth consent page: the signed-in member picks the store and the scopes a client gets.

Built on django-oauth-toolkit's ``AuthorizationView`` (PKCE, redirect and client checks stay
the library's). Added here: the store (one of the user's memberships), the scopes (a subset of
what the client asked for; ``orders:confirm`` only for the store's owner), and the resource
indicator (RFC 8707), which must name one of this deployment's resources (``/mcp``, ``/api/v1``).
The chosen store and scopes become a store credential (``identity.credentials.connection_grant``)
that the code, and every token from it, is bound to.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from oauth2_provider.forms import AllowForm
from oauth2_provider.views import AuthorizationView

from identity.credentials import OWNER_ONLY_SCOPES, connection_grant
from identity.validator import CREDENTIAL_ATTRIBUTE
from tenants.models import Membership, StoreToken
from tenants.selectors import memberships_for_user

RESOURCE_PATHS = ("/mcp", "/api/v1")
SCOPE_LABELS = dict(StoreToken.Scope.choices)


def deployment_resources(request: HttpRequest) -> set[str]:
    """This deployment's protected resources, as reached by ``request``."""
    base = f"{request.scheme}://{request.get_host()}"
    return {f"{base}{path}" for path in RESOURCE_PATHS}


class ConsentForm(AllowForm):
    store = forms.TypedChoiceField(coerce=int, required=False, label=_("Store"))
    grant_scopes = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label=_("What it may do"),
        choices=list(StoreToken.Scope.choices),
    )

    def __init__(self, *args: Any, memberships: list[Membership] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memberships = {m.store_id: m for m in memberships or []}
        self.fields["store"].choices = [(m.store_id, m.store.name) for m in memberships or []]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("allow"):
            return data
        membership = self.memberships.get(data.get("store"))
        if membership is None:
            self.add_error("store", _("Choose one of your stores."))
            return data
        requested = set((data.get("scope") or "").split())
        chosen = set(data.get("grant_scopes") or [])
        if not chosen or not chosen <= requested:
            self.add_error("grant_scopes", _("Choose at least one of the permissions the app asked for."))
        elif chosen & OWNER_ONLY_SCOPES and membership.role != Membership.Role.OWNER:
            self.add_error("grant_scopes", _("Only the store's owner may let an app confirm orders."))
        data["membership"] = membership
        return data


class ConsentView(AuthorizationView):
    template_name = "identity/authorize.html"
    form_class = ConsentForm

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        self.credential_id: int | None = None
        return super().dispatch(request, *args, **kwargs)

    def _memberships(self) -> list[Membership]:
        return list(memberships_for_user(user=self.request.user))

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "memberships": self._memberships()}

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        foreign = [r for r in request.GET.getlist("resource") if r.rstrip("/") not in deployment_resources(request)]
        if foreign:
            return self._refuse(_("This app asked for access to another service's resource; nothing was granted."))
        if not self._memberships():
            return self._refuse(_("You are not a member of any store yet, so there is nothing to connect."), 403)
        return super().get(request, *args, **kwargs)

    def _refuse(self, message: str, status: int = 400) -> HttpResponse:
        return self.render_to_response({"error": {"error": "invalid_request", "description": message}}, status=status)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = context.get("form")
        requested = (form["scope"].value() or "").split() if form is not None else []
        context["requested_scopes"] = [(s, SCOPE_LABELS.get(s, s)) for s in requested]
        context["owner_store_ids"] = [m.store_id for m in self._memberships() if m.role == Membership.Role.OWNER]
        return context

    def form_valid(self, form: ConsentForm) -> HttpResponse:
        data = form.cleaned_data
        foreign = [r for r in (data.get("resource") or "").split() if r.rstrip("/") not in deployment_resources(self.request)]
        if foreign:
            return self._refuse(_("This app asked for access to another service's resource; nothing was granted."))
        if data.get("allow"):
            application = self._application(data["client_id"])
            credential = connection_grant(
                store=data["membership"].store, user=self.request.user, application=application,
                scopes=sorted(data["grant_scopes"]),
            )
            self.credential_id = credential.pk
            data["scope"] = " ".join(sorted(data["grant_scopes"]))
        return super().form_valid(form)

    @staticmethod
    def _application(client_id: str):
        from oauth2_provider.models import get_application_model

        return get_application_model().objects.get(client_id=client_id)

    def create_authorization_response(self, request, scopes, credentials, allow):
        if allow:
            if self.credential_id is None:
                # The library's "already approved / skip authorization" shortcuts: always ask instead.
                allow = False
            else:
                credentials = {**credentials, CREDENTIAL_ATTRIBUTE: self.credential_id}
        return super().create_authorization_response(request, scopes, credentials, allow)
