from django.urls import path

from ledger import apis

urlpatterns = [
    path("products", apis.ProductListApi.as_view(), name="api-products"),
    path("products/<int:product_id>", apis.ProductDetailApi.as_view(), name="api-product"),
    path("sales/today", apis.SalesTodayApi.as_view(), name="api-sales-today"),
    path("drafts", apis.DraftListApi.as_view(), name="api-drafts"),
    path("drafts/<int:draft_id>", apis.DraftDetailApi.as_view(), name="api-draft"),
    path("orders", apis.OrderListApi.as_view(), name="api-orders"),
]
