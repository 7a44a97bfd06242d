from django.urls import path

from dashboard.views import owner

app_name = "owner"

urlpatterns = [
    path("inventory/", owner.inventory, name="inventory"),
    path("inventory/<int:product_id>/", owner.product_journal, name="product"),
    path("inventory/<int:product_id>/count", owner.stock_count, name="stock-count"),
    path("sales/", owner.sales, name="sales"),
    path("approvals/", owner.approvals, name="approvals"),
    path("approvals/draft-low", owner.draft_low, name="draft-low"),
    path("approvals/<int:draft_id>/approve", owner.draft_approve, name="draft-approve"),
    path("approvals/<int:draft_id>/decline", owner.draft_decline, name="draft-decline"),
    path("orders/", owner.orders, name="orders"),
    path("reports/", owner.reports, name="reports"),
    path("reports/send", owner.report_send, name="report-send"),
    path("assistant/", owner.assistant_history, name="assistant"),
]
