"""REST reads of the store's books: products, today's sales, drafts and orders, a page at a time."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import selectors
from ledger.apis.pagination import MAX_LIMIT, paginated
from ledger.models import Order, ReorderDraft
from ledger.stock_velocity import Suggestion, reorder_suggestions
from tenants.authentication import StoreRequest

MAX_SEARCH = 100


PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, description=f"Rows per page, 1 to {MAX_LIMIT} (default 50)."),
    OpenApiParameter("offset", int, description="Rows to skip."),
]


def page_of(serializer: type[serializers.Serializer], name: str) -> serializers.Serializer:
    """The paginated envelope of ``serializer`` rows, for the schema."""
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer(many=True),
        },
    )


class ProductOutput(serializers.Serializer):
    id = serializers.IntegerField()
    sku = serializers.CharField()
    barcode = serializers.CharField(allow_blank=True)
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    unit = serializers.CharField()
    pack_size = serializers.IntegerField()
    category = serializers.CharField()
    aisle = serializers.CharField(allow_blank=True)
    shelf = serializers.CharField(allow_blank=True)
    position = serializers.CharField(allow_blank=True)
    location = serializers.CharField(allow_blank=True)
    shelf_note = serializers.CharField(allow_blank=True)
    stock = serializers.IntegerField()
    par = serializers.IntegerField(source="par_level")
    reorder_point = serializers.IntegerField()
    price = serializers.DecimalField(max_digits=12, decimal_places=2)
    unit_cost = serializers.DecimalField(max_digits=12, decimal_places=2)
    supplier = serializers.CharField(allow_blank=True)
    is_low = serializers.BooleanField()
    needs_recount = serializers.BooleanField()
    active = serializers.BooleanField()
    version = serializers.IntegerField()
    photo_url = serializers.SerializerMethodField()
    daily_sales = serializers.SerializerMethodField(help_text="Net units a day over the 28 days before today.")
    days_of_cover = serializers.SerializerMethodField(help_text="Stock / daily sales; null when nothing sold.")
    suggested_reorder_qty = serializers.SerializerMethodField()
    reorder_reason = serializers.SerializerMethodField(help_text="Why that quantity, in plain words.")

    def _suggestion(self, product) -> Suggestion:
        return self.context["suggestions"][product.pk]

    def get_daily_sales(self, product) -> float | None:
        return self._suggestion(product).velocity.per_day

    def get_days_of_cover(self, product) -> float | None:
        return self._suggestion(product).velocity.days_of_cover

    def get_suggested_reorder_qty(self, product) -> int:
        return self._suggestion(product).qty

    def get_reorder_reason(self, product) -> str:
        return self._suggestion(product).reason

    def get_photo_url(self, product) -> str | None:
        if not product.photo:
            return None
        request = self.context.get("request")
        url = product.photo.url
        return request.build_absolute_uri(url) if request else url


def _products_out(request: StoreRequest, products: list, *, many: bool) -> Any:
    """Products rendered with their velocity and reorder suggestion (one sales query for the page)."""
    context = {"request": request, "suggestions": reorder_suggestions(store=request.store, products=products)}
    return ProductOutput(products if many else products[0], many=many, context=context).data


class ProductQuery(serializers.Serializer):
    search = serializers.CharField(required=False, allow_blank=True, max_length=MAX_SEARCH, trim_whitespace=True)
    low = serializers.BooleanField(required=False, default=False)
    category = serializers.CharField(required=False, allow_blank=True, max_length=60)
    code = serializers.CharField(required=False, allow_blank=True, max_length=64)
    archived = serializers.ChoiceField(choices=["exclude", "include", "only"], required=False, default="exclude")


class ProductListApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("search", str, description="Matches the start of any word of a name or alias, any case."),
            OpenApiParameter("low", bool, description="Only products at or below their reorder point."),
            OpenApiParameter("category", str, description="Only this category (any case)."),
            OpenApiParameter("code", str, description="Only the product with this exact SKU or barcode."),
            OpenApiParameter("archived", str, enum=["exclude", "include", "only"], description="Archived products."),
            *PAGE_PARAMETERS,
        ],
        responses={200: page_of(ProductOutput, "ProductPage"), 400: OpenApiResponse(description="A bad filter.")},
    )
    def get(self, request: StoreRequest) -> Response:
        query = ProductQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        products = selectors.product_list(
            store=request.store,
            search=data.get("search") or None,
            low_only=data["low"],
            category=data.get("category") or None,
            code=data.get("code") or None,
            active={"exclude": True, "include": None, "only": False}[data["archived"]],
        )
        return paginated(self, request, products, lambda page: _products_out(request, page, many=True))


class TopSellerOutput(serializers.Serializer):
    product = serializers.CharField()
    units = serializers.IntegerField()
    revenue = serializers.DecimalField(max_digits=12, decimal_places=2)


class SalesTodayOutput(serializers.Serializer):
    date = serializers.DateField()
    currency = serializers.CharField()
    receipts = serializers.IntegerField()
    units = serializers.IntegerField()
    revenue = serializers.DecimalField(max_digits=12, decimal_places=2)
    top_sellers = TopSellerOutput(many=True)


class SalesTodayApi(APIView):
    @extend_schema(responses=SalesTodayOutput)
    def get(self, request: StoreRequest) -> Response:
        sales = selectors.sales_today(store=request.store)
        return Response(
            SalesTodayOutput(
                {
                    "date": sales.date,
                    "currency": request.store.currency,
                    "receipts": sales.receipts,
                    "units": sales.units,
                    "revenue": sales.revenue,
                    "top_sellers": [
                        {"product": seller.product, "units": seller.units, "revenue": seller.revenue}
                        for seller in sales.top_sellers
                    ],
                }
            ).data
        )


class LineOutput(serializers.Serializer):
    product = serializers.CharField(source="product.name")
    qty = serializers.IntegerField()
    unit_cost = serializers.DecimalField(max_digits=12, decimal_places=2)


class DraftLineOutput(LineOutput):
    est_cost = serializers.DecimalField(max_digits=12, decimal_places=2)


class DraftOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    # A declared field (DRF's metaclass takes it off the class); the stubs see Serializer.source.
    source = serializers.CharField()  # type: ignore[assignment]
    supplier = serializers.CharField()
    est_total = serializers.DecimalField(max_digits=12, decimal_places=2)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    decided_by = serializers.CharField(allow_blank=True)
    lines = DraftLineOutput(many=True)


class DraftQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReorderDraft.Status.choices, required=False)


class DraftListApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=ReorderDraft.Status.values), *PAGE_PARAMETERS],
        responses={200: page_of(DraftOutput, "DraftPage"), 400: OpenApiResponse(description="An unknown status.")},
    )
    def get(self, request: StoreRequest) -> Response:
        query = DraftQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        drafts = selectors.draft_list(store=request.store, status=query.validated_data.get("status"))
        return paginated(self, request, drafts, lambda page: DraftOutput(page, many=True).data)


class OrderLineOutput(LineOutput):
    id = serializers.IntegerField()
    sku = serializers.CharField(source="product.sku")
    cost = serializers.DecimalField(max_digits=12, decimal_places=2)
    received_qty = serializers.IntegerField()
    open_qty = serializers.IntegerField()


class OrderOutput(serializers.Serializer):
    id = serializers.IntegerField()
    draft = serializers.IntegerField(source="draft_id")
    supplier = serializers.CharField()
    status = serializers.CharField()
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    placed_at = serializers.DateTimeField()
    placed_by = serializers.CharField()
    lines = OrderLineOutput(many=True)


class OrderQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=Order.Status.choices, required=False)


class OrderListApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=Order.Status.values), *PAGE_PARAMETERS],
        responses={200: page_of(OrderOutput, "OrderPage"), 400: OpenApiResponse(description="An unknown status.")},
    )
    def get(self, request: StoreRequest) -> Response:
        query = OrderQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        orders = selectors.order_list(store=request.store)
        if query.validated_data.get("status"):
            orders = [order for order in orders if order.status == query.validated_data["status"]]
        return paginated(self, request, orders, lambda page: OrderOutput(page, many=True).data)


class ProductDetailApi(APIView):
    @extend_schema(responses=ProductOutput)
    def get(self, request: StoreRequest, product_id: int) -> Response:
        product = selectors.product_get(store=request.store, product_id=product_id)
        return Response(_products_out(request, [product], many=False))


class DraftDetailApi(APIView):
    @extend_schema(responses=DraftOutput)
    def get(self, request: StoreRequest, draft_id: int) -> Response:
        return Response(DraftOutput(selectors.draft_get(store=request.store, draft_id=draft_id)).data)
