"""REST API v1 over the store's books: thin views that call one selector and render it.

The store is always the caller's (session membership or a bearer token with the ``api``
scope, resolved by ``tenants``); no URL or argument can name another store's rows.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import selectors
from ledger.models import ReorderDraft

MAX_SEARCH = 100


class ProductOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    unit = serializers.CharField()
    category = serializers.CharField()
    location = serializers.CharField()
    stock = serializers.IntegerField()
    par = serializers.IntegerField(source="par_level")
    reorder_point = serializers.IntegerField()
    price = serializers.DecimalField(max_digits=12, decimal_places=2)
    is_low = serializers.BooleanField()
    photo_url = serializers.SerializerMethodField()

    def get_photo_url(self, product) -> str | None:
        if not product.photo:
            return None
        request = self.context.get("request")
        url = product.photo.url
        return request.build_absolute_uri(url) if request else url


class ProductQuery(serializers.Serializer):
    search = serializers.CharField(required=False, allow_blank=True, max_length=MAX_SEARCH, trim_whitespace=True)
    low = serializers.BooleanField(required=False, default=False)


class ProductListApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("search", str, description="Matches names and aliases, case-insensitively."),
            OpenApiParameter("low", bool, description="Only products at or below their reorder point."),
        ],
        responses=ProductOutput(many=True),
    )
    def get(self, request: Request) -> Response:
        query = ProductQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        products = selectors.product_list(
            store=request.store, search=query.validated_data.get("search") or None, low_only=query.validated_data["low"]
        )
        return Response(ProductOutput(products, many=True, context={"request": request}).data)


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
    def get(self, request: Request) -> Response:
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
    source = serializers.CharField()
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
        parameters=[OpenApiParameter("status", str, enum=ReorderDraft.Status.values)], responses=DraftOutput(many=True)
    )
    def get(self, request: Request) -> Response:
        query = DraftQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        drafts = selectors.draft_list(store=request.store, status=query.validated_data.get("status"))
        return Response(DraftOutput(drafts, many=True).data)


class OrderLineOutput(LineOutput):
    cost = serializers.DecimalField(max_digits=12, decimal_places=2)


class OrderOutput(serializers.Serializer):
    id = serializers.IntegerField()
    draft = serializers.IntegerField(source="draft_id")
    supplier = serializers.CharField()
    status = serializers.CharField()
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    placed_at = serializers.DateTimeField()
    placed_by = serializers.CharField()
    lines = OrderLineOutput(many=True)


class OrderListApi(APIView):
    @extend_schema(responses=OrderOutput(many=True))
    def get(self, request: Request) -> Response:
        return Response(OrderOutput(selectors.order_list(store=request.store), many=True).data)


class ProductDetailApi(APIView):
    @extend_schema(responses=ProductOutput)
    def get(self, request: Request, product_id: int) -> Response:
        product = selectors.product_get(store=request.store, product_id=product_id)
        return Response(ProductOutput(product, context={"request": request}).data)


class DraftDetailApi(APIView):
    @extend_schema(responses=DraftOutput)
    def get(self, request: Request, draft_id: int) -> Response:
        return Response(DraftOutput(selectors.draft_get(store=request.store, draft_id=draft_id)).data)
