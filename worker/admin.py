"""Platform admin: every turn handed to a worker and every report email, with its state.

Celery's own task list (all tasks, their state, worker and result) is django-celery-results'
"Task results"; the schedules are django-celery-beat's "Periodic tasks" (one per store).
"""

from __future__ import annotations

from django.contrib import admin

from worker.models import ReportDispatch, TurnJob


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by workers: shown, never edited by hand."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(TurnJob)
class TurnJobAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "store", "channel", "mode", "status", "error_code", "attempts", "worker", "finished_at")
    list_filter = ("status", "channel", "mode")
    search_fields = ("id", "store__slug", "conversation", "text")
    list_select_related = ("store",)
    date_hierarchy = "created_at"


@admin.register(ReportDispatch)
class ReportDispatchAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "store", "kind", "recipient", "status", "attempts", "sent_at")
    list_filter = ("status", "kind")
    search_fields = ("key", "store__slug", "recipient")
    list_select_related = ("store",)
