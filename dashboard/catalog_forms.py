"""Forms of the catalog pages: a product, its shelf photo, a CSV upload, a sale, goods received.

The forms only shape the request; the ledger's services check every value (the same checks as
the CSV import) and their errors are put back on the field they name.
"""

from __future__ import annotations

from django import forms

from ledger.models import CatalogImport
from ledger.services.product_fields import MAX_ALIASES

MAX_UPLOAD = 10 * 1024 * 1024


class ProductForm(forms.Form):
    """A product's fields as the owner edits them; ``version`` is the one the page showed."""

    name = forms.CharField(max_length=120)
    sku = forms.CharField(label="SKU", max_length=64, required=False, help_text="Leave empty to get the next P-number.")
    barcode = forms.CharField(max_length=32, required=False)
    category = forms.CharField(max_length=60, required=False)
    unit = forms.CharField(max_length=40, required=False, help_text="What one unit is, e.g. “4 lb bag”.")
    pack_size = forms.IntegerField(label="Pack size", min_value=1, max_value=10_000, initial=1,
                                   help_text="Units in one case from the supplier.")
    aisle = forms.CharField(max_length=40, required=False, help_text="e.g. 2 (read “Aisle 2”) or “Cooler 1”.")
    shelf = forms.CharField(max_length=40, required=False, help_text="e.g. “bottom shelf” or 3.")
    position = forms.CharField(max_length=40, required=False, help_text="e.g. “left”.")
    shelf_note = forms.CharField(label="On the shelf", max_length=120, required=False,
                                 help_text="What to look for, e.g. “white and gold bags”.")
    price = forms.DecimalField(max_digits=12, decimal_places=2, min_value=0)
    unit_cost = forms.DecimalField(label="Unit cost", max_digits=12, decimal_places=2, min_value=0, initial=0)
    supplier = forms.CharField(max_length=80, required=False)
    par_level = forms.IntegerField(label="Par level", min_value=0, max_value=1_000_000, initial=0)
    reorder_point = forms.IntegerField(label="Reorder point", min_value=0, max_value=1_000_000, initial=0)
    aliases = forms.CharField(max_length=2500, required=False,
                              help_text=f"Other names, local names or spoken variants, separated by | (at most {MAX_ALIASES}).")
    stock = forms.IntegerField(label="Opening stock", min_value=0, max_value=1_000_000, initial=0, required=False)
    version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    FIELD_ORDER = ("name", "sku", "barcode", "category", "unit", "pack_size", "aisle", "shelf", "position",
                   "shelf_note", "price", "unit_cost", "supplier", "par_level", "reorder_point", "aliases")

    def values(self) -> dict[str, object]:
        """The product fields to hand to the service (not stock or version)."""
        return {field: self.cleaned_data[field] for field in self.FIELD_ORDER}


class PhotoForm(forms.Form):
    photo = forms.FileField(label="Shelf photo", help_text="A JPEG, PNG or WebP image up to 5 MB.")


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=CatalogImport.Kind.choices, initial=CatalogImport.Kind.CATALOG, widget=forms.RadioSelect)
    file = forms.FileField(label="CSV file", help_text="Up to 10 MB, UTF-8 (“CSV UTF-8” in Excel).")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD:
            raise forms.ValidationError("The file is larger than 10 MB; split it into smaller files.")
        return upload


class SaleForm(forms.Form):
    product = forms.CharField(label="Product", max_length=120, help_text="Name, SKU or barcode.",
                              widget=forms.TextInput(attrs={"list": "product-names", "autocomplete": "off"}))
    qty = forms.IntegerField(label="Quantity", min_value=1, max_value=10_000, initial=1)
