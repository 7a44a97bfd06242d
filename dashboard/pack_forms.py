"""Forms of the vendor portal's pack editor: a new pack from a bundled template."""

from __future__ import annotations

from typing import cast

from django import forms
from django.core.validators import RegexValidator

from packs.drafting import SLUG, template_choices


class PackNewForm(forms.Form):
    """A new business type: which bundled pack it starts from, its slug and its name."""

    template = forms.ChoiceField(label="Start from", help_text="A bundled pack whose files you then edit.")
    slug = forms.CharField(
        label="Slug", max_length=40,
        help_text="Lower-case letters, digits and hyphens, starting with a letter (e.g. key-kiosk). It never changes.",
        validators=[RegexValidator(SLUG, "Use 2 to 40 lower-case letters, digits and hyphens, starting with a letter.")],
    )
    name = forms.CharField(label="Name", max_length=80, help_text="What owners see at sign-up, e.g. “Key kiosk”.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["template"]).choices = template_choices()

    def clean_slug(self) -> str:
        from tenants.models import BusinessType

        slug = self.cleaned_data["slug"]
        if BusinessType.objects.filter(slug=slug).exists():
            raise forms.ValidationError("That slug is taken; choose another.")
        return slug

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Give the business type a name.")
        return name
