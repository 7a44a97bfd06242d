from django.urls import path

from ledger.apis import history, reads, sales

urlpatterns = [
    path("products", reads.ProductListApi.as_view(), name="api-products"),
    path("products/<int:product_id>", reads.ProductDetailApi.as_view(), name="api-product"),
    path("sales/today", reads.SalesTodayApi.as_view(), name="api-sales-today"),
    path("sales", history.SalesApi.as_view(), name="api-sales"),
    path("sales/products", history.SalesProductsApi.as_view(), name="api-sales-products"),
    path("sales/categories", history.SalesCategoriesApi.as_view(), name="api-sales-categories"),
    path("sales/days", history.SalesDaysApi.as_view(), name="api-sales-days"),
    path("receipts", sales.ReceiptListApi.as_view(), name="api-receipts"),
    path("receipts/<int:receipt_id>", sales.ReceiptDetailApi.as_view(), name="api-receipt"),
    path("receipts/<int:receipt_id>/refund", sales.ReceiptRefundApi.as_view(), name="api-receipt-refund"),
    path("receipts/<int:receipt_id>/void", sales.ReceiptVoidApi.as_view(), name="api-receipt-void"),
    path("drafts", reads.DraftListApi.as_view(), name="api-drafts"),
    path("drafts/<int:draft_id>", reads.DraftDetailApi.as_view(), name="api-draft"),
    path("orders", reads.OrderListApi.as_view(), name="api-orders"),
    path("orders/<int:order_id>/receive", sales.OrderReceiveApi.as_view(), name="api-order-receive"),
]
