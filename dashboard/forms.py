"""Forms of the owner workspace: a stock count, a report to send, the sales page's period."""

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


class SalesPeriodForm(forms.Form):
    """The sales page's period: a named one, or a custom range of days (compared with the one before)."""

    PERIODS = (
        ("today", "Today"),
        ("yesterday", "Yesterday"),
        ("this_week", "This week"),
        ("last_week", "Last week"),
        ("this_month", "This month"),
        ("last_month", "Last month"),
        ("custom", "Custom range"),
    )
    period = forms.ChoiceField(label="Period", choices=PERIODS, required=False)
    start = forms.DateField(label="From", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label="To", required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict:
        data = super().clean()
        if data.get("period") == "custom":
            start, end = data.get("start"), data.get("end")
            if start is None or end is None:
                raise forms.ValidationError("A custom range needs both a first and a last day.")
            if start > end:
                raise forms.ValidationError("The first day of the range comes after the last one.")
        return data

    def words(self) -> str:
        """The period as ``ledger.periods.period_parse`` reads it (after ``is_valid``)."""
        period = self.cleaned_data.get("period") or "today"
        if period == "custom":
            return f"{self.cleaned_data['start'].isoformat()}..{self.cleaned_data['end'].isoformat()}"
        return period.replace("_", " ")
