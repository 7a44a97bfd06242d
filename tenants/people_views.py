"""Pages for the people and settings of a store: members and invitations, accepting an invitation,
store settings and report recipients (with the public link that confirms a recipient).

Members and settings are the owner's; staff get a short refusal. Every write goes through
``tenants.members`` or ``tenants.store_settings``, whose errors name the field.
"""

from __future__ import annotations

from typing import cast

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from tenants import members, store_settings
from tenants.forms import COMMON_CURRENCIES, timezone_choices
from tenants.middleware import SESSION_KEY
from tenants.models import BusinessType, Invitation, Membership
from tenants.selectors import report_recipients


def _owner_store(request):
    membership = getattr(request, "membership", None)
    if membership is None:
        raise PermissionDenied("Create a store first.")
    if membership.role != Membership.Role.OWNER:
        raise PermissionDenied("Only the store's owner manages members and settings.")
    return membership.store


class InviteForm(forms.Form):
    email = forms.EmailField(label="Email address")
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.STAFF)


@login_required
@require_http_methods(["GET", "POST"])
def members_page(request):
    """The store's members and open invitations; invite someone by email."""
    store = _owner_store(request)
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            members.invitation_create(store=store, email=form.cleaned_data["email"], role=form.cleaned_data["role"],
                                      invited_by=request.user)
        except members.MemberError as exc:
            form.add_error("email" if exc.message.startswith("email") else None, exc.message)
        else:
            messages.success(request, f"Invitation sent to {form.cleaned_data['email']}; the link works for 7 days.")
            return redirect("tenants:members")
    context = {
        "section": "members", "form": form,
        "members": Membership.objects.filter(store=store).select_related("user").order_by("created_at", "pk"),
        "invitations": Invitation.objects.filter(store=store, accepted_at__isnull=True, revoked_at__isnull=True),
        "roles": Membership.Role.choices,
    }
    return render(request, "tenants/members.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def member_change(request, membership_id: int):
    """Change a member's role, or remove them (``action=remove``)."""
    store = _owner_store(request)
    actor = f"user:{request.user.pk}"
    try:
        if request.POST.get("action") == "remove":
            members.member_remove(store=store, membership_id=membership_id, actor=actor)
            messages.success(request, "The member was removed; they lost access to this store at once.")
        else:
            members.member_role_set(store=store, membership_id=membership_id, role=request.POST.get("role", ""), actor=actor)
            messages.success(request, "The role is changed.")
    except members.MemberError as exc:
        messages.error(request, exc.message)
    return redirect("tenants:members")


@login_required
@require_POST
def invitation_revoke(request, invitation_id: int):
    store = _owner_store(request)
    try:
        members.invitation_revoke(store=store, invitation_id=invitation_id)
    except members.MemberError as exc:
        messages.error(request, exc.message)
    return redirect("tenants:members")


@require_http_methods(["GET", "POST"])
def invitation_accept(request, secret: str):
    """The invitation link: sign in or create an account with the invited address, then join."""
    from allauth.account.adapter import get_adapter

    try:
        invitation = members.invitation_for(secret=secret)
    except members.InvitationInvalid as exc:
        return render(request, "tenants/invitation.html", {"problem": exc.message}, status=404)
    if not request.user.is_authenticated:
        # The link came to this address, so an account created with it needs no second confirmation.
        get_adapter(request).stash_verified_email(request, invitation.email)
        return render(request, "tenants/invitation.html", {"invitation": invitation, "next": request.path})
    if request.method == "POST":
        try:
            membership = members.invitation_accept(secret=secret, user=request.user)
        except members.TenantError as exc:
            return render(request, "tenants/invitation.html", {"invitation": invitation, "problem": exc.message}, status=403)
        request.session[SESSION_KEY] = membership.store_id
        messages.success(request, f"Welcome to {membership.store.name}.")
        return redirect("tenants:home")
    return render(request, "tenants/invitation.html", {"invitation": invitation})


class SettingsForm(forms.Form):
    name = forms.CharField(max_length=120)
    owner_name = forms.CharField(label="How the assistant addresses you", max_length=80, required=False)
    timezone = forms.ChoiceField(label="Time zone")
    currency = forms.ChoiceField(choices=COMMON_CURRENCIES)
    report_time = forms.TimeField(label="Daily report time", widget=forms.TimeInput(attrs={"type": "time"}))
    business_type = forms.ChoiceField()
    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["timezone"]).choices = timezone_choices()
        # The types a store can run: those with a published pack version.
        cast(forms.ChoiceField, self.fields["business_type"]).choices = list(
            BusinessType.objects.filter(versions__status="published").distinct().values_list("slug", "name"))
        for day in store_settings.DAYS:
            self.fields[f"{day}_open"] = forms.CharField(label=f"{day.title()} opens", required=False, max_length=5)
            self.fields[f"{day}_close"] = forms.CharField(label=f"{day.title()} closes", required=False, max_length=5)


def _settings_initial(store) -> dict:
    initial = {field: getattr(store, field) for field in ("name", "owner_name", "timezone", "currency", "report_time", "version")}
    initial["business_type"] = store.business_type.slug
    for day in store_settings.DAYS:
        span = (store.opening_hours or {}).get(day) or ["", ""]
        initial[f"{day}_open"], initial[f"{day}_close"] = span
    return initial


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    """Name, time zone, currency, opening hours, the daily report time, business type, report recipients."""
    store = _owner_store(request)
    form = SettingsForm(request.POST or None, initial=_settings_initial(store))
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        hours = {day: [data[f"{day}_open"], data[f"{day}_close"]] for day in store_settings.DAYS
                 if data[f"{day}_open"] or data[f"{day}_close"]}
        try:
            store_settings.store_settings_update(
                store=store, version=data["version"], actor=f"user:{request.user.pk}", name=data["name"],
                owner_name=data["owner_name"], timezone=data["timezone"], currency=data["currency"],
                report_time=data["report_time"], business_type=data["business_type"], opening_hours=hours,
            )
        except store_settings.SettingsConflict as exc:
            messages.error(request, exc.message)
            store.refresh_from_db()
            form, status = SettingsForm(initial=_settings_initial(store)), 409
        except store_settings.SettingsError as exc:
            field = exc.field.replace("opening_hours.", "") + "_open" if exc.field.startswith("opening_hours.") else exc.field
            form.add_error(field if field in form.fields else None, exc.reason)
        else:
            messages.success(request, "Settings saved.")
            return redirect("tenants:settings")
    return render(request, "tenants/settings.html", {
        "section": "settings", "form": form, "recipients": report_recipients(store=store), "days": store_settings.DAYS,
    }, status=400 if form.errors else status)


@login_required
@require_POST
def recipient_change(request):
    """Add a report recipient (a confirmation link goes to them) or remove one."""
    store = _owner_store(request)
    try:
        if request.POST.get("remove"):
            store_settings.recipient_remove(store=store, recipient_id=request.POST["remove"])
            messages.success(request, "Reports no longer go to that address.")
        else:
            recipient = store_settings.recipient_add(store=store, email=request.POST.get("email", ""),
                                                     actor=f"user:{request.user.pk}")
            messages.success(request, f"A confirmation link went to {recipient.email}; reports go there once they confirm.")
    except store_settings.SettingsError as exc:
        messages.error(request, exc.message)
    return redirect(reverse("tenants:settings") + "#recipients")


def recipient_confirm(request, secret: str):
    """The public link a recipient follows to agree to receive the store's reports."""
    try:
        recipient = store_settings.recipient_confirm(secret=secret)
    except store_settings.SettingsError:
        return render(request, "tenants/recipient_confirmed.html", {"problem": True}, status=404)
    return render(request, "tenants/recipient_confirmed.html", {"recipient": recipient})
