from django.urls import path

from dashboard.views import alerts, catalog, owner, sales, teach, till

app_name = "owner"

urlpatterns = [
    path("inventory/", owner.inventory, name="inventory"),
    path("inventory/<int:product_id>/", owner.product_journal, name="product"),
    path("inventory/<int:product_id>/count", owner.stock_count, name="stock-count"),
    path("inventory/new", catalog.product_new, name="product-new"),
    path("inventory/<int:product_id>/edit", catalog.product_edit, name="product-edit"),
    path("inventory/<int:product_id>/archive", catalog.product_active, {"active": False}, name="product-archive"),
    path("inventory/<int:product_id>/restore", catalog.product_active, {"active": True}, name="product-restore"),
    path("inventory/<int:product_id>/photo", catalog.product_photo, name="product-photo"),
    path("catalog/import/", catalog.catalog_import, name="catalog-import"),
    path("catalog/imports/<int:import_id>/", catalog.import_detail, name="import"),
    path("catalog/imports/<int:import_id>/apply", catalog.import_apply, name="import-apply"),
    path("catalog/imports/<int:import_id>/preview", catalog.import_repreview, name="import-preview"),
    path("catalog/export.csv", catalog.catalog_export, name="catalog-export"),
    path("sales/", sales.sales, name="sales"),
    path("sales/new", till.sale_new, name="sale-new"),
    path("orders/<int:order_id>/receive", till.order_receive, name="order-receive"),
    path("approvals/", owner.approvals, name="approvals"),
    path("approvals/draft-low", owner.draft_low, name="draft-low"),
    path("approvals/<int:draft_id>/approve", owner.draft_approve, name="draft-approve"),
    path("approvals/<int:draft_id>/decline", owner.draft_decline, name="draft-decline"),
    path("orders/", owner.orders, name="orders"),
    path("reports/", owner.reports, name="reports"),
    path("reports/send", owner.report_send, name="report-send"),
    path("assistant/", owner.assistant_history, name="assistant"),
    path("assistant/turns/<int:turn_id>/teach", teach.turn_teach, name="turn-teach"),
    path("assistant/taught/<int:phrase_id>/forget", teach.taught_forget, name="taught-forget"),
    path("alerts/", alerts.alerts_page, name="alerts"),
    path("alerts/<int:alert_id>/ack", alerts.alert_ack, name="alert-ack"),
    path("alerts/<int:alert_id>/snooze", alerts.alert_snooze, name="alert-snooze"),
    path("alerts/preferences", alerts.alert_preferences, name="alert-preferences"),
]
