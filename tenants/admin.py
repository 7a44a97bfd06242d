"""Platform admin for stores, memberships and tokens (token secrets are never stored, so never shown)."""

from __future__ import annotations

from django.contrib import admin

from tenants.models import BusinessType, Membership, Store, StoreToken
from tenants.services import store_delete, token_revoke


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(BusinessType)
class BusinessTypeAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "position")
    prepopulated_fields = {"slug": ("name",)}  # noqa: RUF012


@admin.register(Store)
class StoreAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "business_type", "timezone", "currency", "created_at")
    list_filter = ("business_type",)
    search_fields = ("name", "slug")
    inlines = (MembershipInline,)

    def delete_model(self, request, obj) -> None:
        # The ledger rows are fenced by row-level security: delete inside the store's context.
        store_delete(store=obj, actor=f"user:{request.user.pk}")

    def delete_queryset(self, request, queryset) -> None:
        for store in queryset:
            store_delete(store=store, actor=f"user:{request.user.pk}")


@admin.register(StoreToken)
class StoreTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "store", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = ("store",)
    search_fields = ("name", "prefix", "store__slug")
    readonly_fields = ("store", "prefix", "scopes", "created_by", "created_at", "last_used_at", "revoked_at")
    exclude = ("secret_hash",)
    actions = ("revoke",)

    def has_add_permission(self, request) -> bool:
        return False  # created with a shown-once secret: the app's token page or `manage.py store_token`

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset) -> None:
        for token in queryset.select_related("store"):
            token_revoke(store=token.store, token_id=token.pk, actor=f"user:{request.user.pk}")
