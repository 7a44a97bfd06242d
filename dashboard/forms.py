"""Forms of the owner workspace: a stock count and a report to send."""

from __future__ import annotations

from django import forms

from ledger.models import ReportDelivery

MAX_COUNT = 1_000_000


class StockCountForm(forms.Form):
    """A new shelf count over the count the page showed (``expected``), so concurrent edits conflict."""

    count = forms.IntegerField(label="New count", min_value=0, max_value=MAX_COUNT)
    expected = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=MAX_COUNT)
    note = forms.CharField(label="Note", max_length=200, required=False)


class ReportSendForm(forms.Form):
    kind = forms.ChoiceField(choices=ReportDelivery.Kind.choices)


class InventorySearchForm(forms.Form):
    q = forms.CharField(label="Search products", max_length=100, required=False)
    low = forms.BooleanField(label="Only low items", required=False)


class ShelfSearchForm(forms.Form):
    q = forms.CharField(label="What are you looking for?", max_length=200, required=False)
