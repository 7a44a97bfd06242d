"""Forms of the signed-in app: creating a store (onboarding) and store tokens."""

from __future__ import annotations

import zoneinfo
from functools import cache
from typing import cast

from django import forms
from django.core.validators import RegexValidator

from tenants.models import StoreToken

COMMON_CURRENCIES = [
    ("USD", "USD — US dollar"),
    ("CAD", "CAD — Canadian dollar"),
    ("GBP", "GBP — British pound"),
    ("EUR", "EUR — Euro"),
    ("INR", "INR — Indian rupee"),
    ("AUD", "AUD — Australian dollar"),
    ("NZD", "NZD — New Zealand dollar"),
    ("SGD", "SGD — Singapore dollar"),
    ("AED", "AED — UAE dirham"),
    ("ZAR", "ZAR — South African rand"),
]


@cache
def timezone_choices() -> list[tuple[str, str]]:
    names = sorted(
        name for name in zoneinfo.available_timezones() if "/" in name and not name.startswith(("Etc/", "SystemV/"))
    )
    return [(name, name.replace("_", " ")) for name in [*names, "UTC"]]


class StoreCreateForm(forms.Form):
    CATALOG_EMPTY = "empty"
    CATALOG_DEMO = "demo"

    name = forms.CharField(
        label="Store name",
        max_length=120,
        widget=forms.TextInput(attrs={"autocomplete": "organization", "autofocus": True}),
    )
    owner_name = forms.CharField(
        label="Your name",
        max_length=80,
        required=False,
        help_text="How the assistant addresses you. Optional.",
        widget=forms.TextInput(attrs={"autocomplete": "given-name"}),
    )
    timezone = forms.ChoiceField(
        label="Time zone",
        help_text="Days close at midnight in this time zone.",
        initial="America/Chicago",
    )
    currency = forms.ChoiceField(label="Currency", choices=COMMON_CURRENCIES, initial="USD")
    business_type = forms.ChoiceField(
        label="Kind of store", required=False, initial="grocery",
        help_text="What the assistant knows about: its actions, local names and guides.",
    )
    catalog = forms.ChoiceField(
        label="Start with",
        choices=[
            (CATALOG_EMPTY, "An empty store: I will add my own products"),
            (CATALOG_DEMO, "The demo catalog of this kind of store, to try things out (a grocery's comes with "
                           "stock and a week of sales)"),
        ],
        initial=CATALOG_EMPTY,
        widget=forms.RadioSelect,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["timezone"]).choices = timezone_choices()
        from tenants.models import BusinessType

        # The types a store can run: those with a published pack version.
        cast(forms.ChoiceField, self.fields["business_type"]).choices = list(
            BusinessType.objects.filter(versions__status="published").distinct().values_list("slug", "name"))

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give your store a name.")
        return name


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        label="Name",
        max_length=80,
        help_text="Where the token will be used, e.g. “Claude Desktop” or “Till integration”.",
        validators=[RegexValidator(r"\S", "Give the token a name.")],
    )
    scopes = forms.MultipleChoiceField(
        label="Allows",
        choices=StoreToken.Scope.choices,
        initial=[StoreToken.Scope.MCP],
        widget=forms.CheckboxSelectMultiple,
    )
