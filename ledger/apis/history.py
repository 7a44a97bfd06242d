"""REST reads of the store's sales over time: a period's totals (with a comparison), and its products,
categories and days as pages. Periods are plain words or ISO dates, resolved in the store's time zone
(``ledger.periods``), exactly as the MCP tool ``get_sales`` reads them."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import sales_history, selectors
from ledger.apis.pagination import paginated
from ledger.apis.reads import PAGE_PARAMETERS, page_of
from ledger.errors import NotFound
from ledger.models import DecimalPlaces
from ledger.periods import Period, period_parse, same_length, store_now
from ledger.sales_history import PeriodSales
from tenants.authentication import StoreRequest

PERIOD_HELP = ("The period in plain words ('yesterday', 'last week', 'this month', 'since Monday', 'in October', "
               "'the last 7 days') or ISO dates ('2026-10-01', '2026-10-01..2026-10-31'), in the store's time zone. "
               "Default: today.")
_MONEY: DecimalPlaces = {"max_digits": 14, "decimal_places": 2}


class SalesQuery(serializers.Serializer):
    period = serializers.CharField(required=False, default="today", max_length=80)
    compare = serializers.CharField(required=False, allow_blank=True, max_length=80)
    sku = serializers.CharField(required=False, allow_blank=True, max_length=64)
    category = serializers.CharField(required=False, allow_blank=True, max_length=60)
    sort = serializers.ChoiceField(choices=list(sales_history.SORTS), required=False, default="best")


class PeriodOutput(serializers.Serializer):
    # A declared field (DRF's metaclass takes it off the class); the stubs see Field.label.
    label = serializers.CharField()  # type: ignore[assignment]
    unit = serializers.CharField(allow_blank=True, help_text="day, week, weekend, month, quarter, year, or empty for a span.")
    first_day = serializers.DateField(source="from")
    last_day = serializers.DateField(source="to")
    days = serializers.IntegerField()
    running = serializers.BooleanField(help_text="The period includes now: its figures are so far.")
    trimmed = serializers.BooleanField(help_text="A comparison period cut to the same length as a running one.")
    start = serializers.DateTimeField()
    end = serializers.DateTimeField(help_text="Exclusive.")


class FiguresOutput(serializers.Serializer):
    period = PeriodOutput()
    receipts = serializers.IntegerField(help_text="Sales rung up, less the sales voided in the period.")
    revenue = serializers.DecimalField(**_MONEY, help_text="Net of refunds and voids recorded in the period.")
    units = serializers.IntegerField(help_text="Units sold, less units given back.")
    average_basket = serializers.DecimalField(**_MONEY, allow_null=True)
    given_back = serializers.DecimalField(**_MONEY)
    product_units = serializers.IntegerField(required=False, help_text="With sku: that product's net units.")
    product_revenue = serializers.DecimalField(**_MONEY, required=False)
    category_units = serializers.IntegerField(required=False, help_text="With category: that category's net units.")
    category_revenue = serializers.DecimalField(**_MONEY, required=False)


class SalesOutput(FiguresOutput):
    currency = serializers.CharField()
    timezone = serializers.CharField()
    comparison = FiguresOutput(required=False, allow_null=True)


class RowOutput(serializers.Serializer):
    name = serializers.CharField()
    units = serializers.IntegerField()
    revenue = serializers.DecimalField(**_MONEY)


class DayOutput(serializers.Serializer):
    date = serializers.DateField(source="day")
    units = serializers.IntegerField()
    revenue = serializers.DecimalField(**_MONEY)


def _periods(request: StoreRequest, data: dict) -> tuple[Period, Period | None]:
    """The query's period and comparison period.

    Raises:
        PeriodError: words or dates that name no period we can use (400).
    """
    now = store_now(selectors.store_tz(request.store))
    period = period_parse(data["period"], now=now)
    if not data.get("compare"):
        return period, None
    return period, same_length(period, period_parse(data["compare"], now=now, base=period), now=now)


def _figures(sales: PeriodSales) -> dict:
    figures = sales.figures
    data = {
        "period": sales.period.as_dict(), "receipts": figures.receipts, "revenue": figures.revenue,
        "units": figures.units, "average_basket": figures.average_basket, "given_back": figures.given_back,
    }
    if sales.focus is not None:
        prefix = "product" if sales.focus.product_id else "category"
        data[f"{prefix}_units"], data[f"{prefix}_revenue"] = sales.focus.units, sales.focus.revenue
    return data


def _query(request: StoreRequest) -> dict:
    query = SalesQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data


def _product(request: StoreRequest, sku: str):
    """Raises: NotFound: no product with that SKU in this store."""
    by_sku, _ = selectors.products_by_code(store=request.store, skus={sku.strip()}, barcodes=set())
    if not by_sku:
        raise NotFound("product")
    return next(iter(by_sku.values()))


_PERIOD_PARAMETERS = [OpenApiParameter("period", str, description=PERIOD_HELP)]
_BAD = OpenApiResponse(description="A period that cannot be read (in the future, too long, no period), or a bad filter.")


class SalesApi(APIView):
    @extend_schema(
        parameters=[
            *_PERIOD_PARAMETERS,
            OpenApiParameter("compare", str, description="A second period to compare with, in the same words ('last "
                             "month', 'the week before'); a running period is compared with the same length of it."),
            OpenApiParameter("sku", str, description="Only this product's units and revenue (as well as the totals)."),
            OpenApiParameter("category", str, description="Only this category's units and revenue (any case)."),
        ],
        responses={200: SalesOutput, 400: _BAD, 404: OpenApiResponse(description="No product with that SKU.")},
    )
    def get(self, request: StoreRequest) -> Response:
        data = _query(request)
        period, other = _periods(request, data)
        product = _product(request, data["sku"]) if data.get("sku") else None
        category = (data.get("category") or None) if product is None else None
        sales = sales_history.period_sales(store=request.store, period=period, product=product, category=category)
        body = {"currency": request.store.currency, "timezone": request.store.timezone, **_figures(sales),
                "comparison": None}
        if other is not None:
            body["comparison"] = _figures(sales_history.period_sales(store=request.store, period=other, product=product,
                                                                         category=category))
        return Response(SalesOutput(body).data)


class SalesProductsApi(APIView):
    @extend_schema(
        parameters=[
            *_PERIOD_PARAMETERS,
            OpenApiParameter("category", str, description="Only this category's products (any case)."),
            OpenApiParameter("sort", str, enum=list(sales_history.SORTS),
                             description="best: most units first (products that sold); worst: fewest first, active "
                             "products that sold nothing included."),
            *PAGE_PARAMETERS,
        ],
        responses={200: page_of(RowOutput, "ProductSalesPage"), 400: _BAD},
    )
    def get(self, request: StoreRequest) -> Response:
        data = _query(request)
        period, _other = _periods(request, data)
        rows = sales_history.products_ranked(store=request.store, period=period,
                                             category=data.get("category") or None, sort=data["sort"])
        return paginated(self, request, rows, lambda page: RowOutput(page, many=True).data)


class SalesCategoriesApi(APIView):
    @extend_schema(parameters=[*_PERIOD_PARAMETERS, *PAGE_PARAMETERS],
                   responses={200: page_of(RowOutput, "CategorySalesPage"), 400: _BAD})
    def get(self, request: StoreRequest) -> Response:
        period, _other = _periods(request, _query(request))
        rows = sales_history.sales_by_category(store=request.store, start=period.start, end=period.end)
        return paginated(self, request, rows, lambda page: RowOutput(page, many=True).data)


class SalesDaysApi(APIView):
    @extend_schema(parameters=[*_PERIOD_PARAMETERS, *PAGE_PARAMETERS],
                   responses={200: page_of(DayOutput, "DaySalesPage"), 400: _BAD})
    def get(self, request: StoreRequest) -> Response:
        period, _other = _periods(request, _query(request))
        rows = sales_history.sales_by_day(store=request.store, period=period)
        return paginated(self, request, rows, lambda page: DayOutput(page, many=True).data)
