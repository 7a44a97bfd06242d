"""REST writes for a till or POS integration: receipts, refunds and voids, and goods received.

``POST /api/v1/receipts`` takes lines by SKU or barcode. A retry with the same ``Idempotency-Key``
header (or the same ``external_id``) answers 200 with the first receipt and records nothing more;
the first answer is 201. A line that names an unknown product, or a quantity that is not a whole
number of 1 or more, is a 400 naming the line (``error.line``, ``error.field``) and nothing of the
receipt is written. A sale of more than the books hold is recorded: the answer's ``warnings``
say which lines oversold, their products' stock stopped at zero and they are flagged for a recount.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import selectors, services
from ledger.apis.pagination import paginated
from ledger.apis.reads import PAGE_PARAMETERS, OrderOutput, page_of
from ledger.errors import InvalidInput, InvalidLine
from ledger.models import Receipt
from ledger.services.receipts import MAX_KEY, MAX_LINES, Recorded, SaleLine
from shelfwise.parsers import JSONParser
from tenants.authentication import StoreRequest, request_actor

KEY_HEADER = "Idempotency-Key"
ERROR = OpenApiResponse(description='`{"error": {"code", "message", "line"?, "field"?}}`')
KEY_PARAMETER = OpenApiParameter(
    KEY_HEADER, str, location=OpenApiParameter.HEADER,
    description=f"Up to {MAX_KEY} printable characters; a retry with the same key records nothing more.",
)


class ReceiptLineInput(serializers.Serializer):
    sku = serializers.CharField(required=False, help_text="The product's SKU (or give barcode).")
    barcode = serializers.CharField(required=False, help_text="The product's barcode (or give sku).")
    qty = serializers.IntegerField(help_text="Units sold: a whole number of 1 or more.")
    price = serializers.DecimalField(max_digits=12, decimal_places=2, required=False,
                                     help_text="The unit price charged; the product's price if left out.")


class ReceiptInput(serializers.Serializer):
    lines = ReceiptLineInput(many=True, help_text=f"1 to {MAX_LINES} lines.")
    external_id = serializers.CharField(required=False, max_length=100, help_text="The till's own receipt id.")


class ReceiptLineOutput(serializers.Serializer):
    sku = serializers.CharField(source="product.sku")
    product = serializers.CharField(source="product.name")
    qty = serializers.IntegerField()
    unit_price = serializers.DecimalField(max_digits=12, decimal_places=2)
    line_total = serializers.DecimalField(max_digits=12, decimal_places=2)
    oversold = serializers.IntegerField()
    stock = serializers.IntegerField(source="product.stock")
    needs_recount = serializers.BooleanField(source="product.needs_recount")


class ReceiptOutput(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    kind = serializers.CharField()
    refund_of = serializers.IntegerField(source="refund_of_id", allow_null=True)
    external_id = serializers.CharField(allow_blank=True)
    sold_at = serializers.DateTimeField()
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    actor = serializers.CharField()
    lines = ReceiptLineOutput(many=True)


class WarningOutput(serializers.Serializer):
    line = serializers.IntegerField()
    code = serializers.CharField()
    sku = serializers.CharField()
    message = serializers.CharField()


class RecordedOutput(ReceiptOutput):
    replayed = serializers.BooleanField()
    warnings = WarningOutput(many=True)


def _line(number: int, raw: Any, by_sku: dict, by_barcode: dict) -> SaleLine:
    if not isinstance(raw, dict):
        raise InvalidLine(line=number, field="line", reason=_("each line is an object with sku (or barcode) and qty"))
    unknown = set(raw) - {"sku", "barcode", "qty", "price"}
    if unknown:
        raise InvalidLine(line=number, field=sorted(unknown)[0], reason=_("is not a line field"))
    sku, barcode = raw.get("sku"), raw.get("barcode")
    if (sku is None) == (barcode is None):
        raise InvalidLine(line=number, field="sku", reason=_("give either sku or barcode"))
    field, code = ("sku", sku) if sku is not None else ("barcode", barcode)
    if not isinstance(code, str) or not code.strip():
        raise InvalidLine(line=number, field=field, reason=_("must be text"))
    product = by_sku.get(code.strip()) if field == "sku" else by_barcode.get(code.strip().casefold())
    if product is None:
        raise InvalidLine(line=number, field=field, reason=_("no product with %(field)s “%(code)s” in this store")
                          % {"field": field.upper(), "code": code.strip()[:64]})
    qty = raw.get("qty")
    if isinstance(qty, bool) or not isinstance(qty, int) or qty < 1:
        raise InvalidLine(line=number, field="qty", reason=_("must be a whole number of 1 or more"))
    price = raw.get("price")
    if price is not None and (isinstance(price, bool) or not isinstance(price, (int, str))):
        raise InvalidLine(line=number, field="price", reason=_("must be an amount such as \"4.99\" (a string)"))
    return SaleLine(product=product, qty=qty, unit_price=price)


def _lines(store, raw: Any) -> list[SaleLine]:
    """The request's lines as products and quantities, or a 400 naming the first bad line."""
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(_("lines: give a list of 1 to %(max)s lines.") % {"max": MAX_LINES})
    if len(raw) > MAX_LINES:
        raise InvalidInput(_("lines: at most %(max)s lines.") % {"max": MAX_LINES})
    skus = {line["sku"].strip() for line in raw if isinstance(line, dict) and isinstance(line.get("sku"), str)}
    barcodes = {line["barcode"].strip() for line in raw if isinstance(line, dict) and isinstance(line.get("barcode"), str)}
    by_sku, by_barcode = selectors.products_by_code(store=store, skus=skus, barcodes=barcodes)
    return [_line(number, line, by_sku, by_barcode) for number, line in enumerate(raw, start=1)]


def _body(request: StoreRequest) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise InvalidInput(_("Send a JSON object with lines."))
    unknown = set(request.data) - {"lines", "external_id"}
    if unknown:
        raise InvalidInput(_("%(field)s: is not a receipt field.") % {"field": sorted(unknown)[0]})
    external_id = request.data.get("external_id", "")
    if not isinstance(external_id, str):
        raise InvalidInput(_("external_id: must be text."))
    return {"lines": request.data.get("lines"), "external_id": external_id}


def _answer(recorded: Recorded) -> Response:
    receipt = selectors.receipt_get(store=recorded.receipt.store, receipt_id=recorded.receipt.pk)
    data = dict(ReceiptOutput(receipt).data)
    data["replayed"] = not recorded.created
    data["warnings"] = [
        {
            "line": item.line,
            "code": "oversold",
            "sku": item.product.sku,
            "message": _("Sold %(sold)s of %(name)s but the books held %(held)s: stock is now 0 and it is flagged "
                         "for a recount.") % {"sold": item.sold, "name": item.product.name, "held": item.in_stock},
        }
        for item in recorded.oversold
    ]
    return Response(data, status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK)


class ReceiptQuery(serializers.Serializer):
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    kind = serializers.ChoiceField(choices=Receipt.Kind.choices, required=False)


class ReceiptListApi(APIView):
    """The store's receipts (sales, refunds, voids), and recording a sale."""

    @extend_schema(
        parameters=[
            OpenApiParameter("since", str, description="ISO time: receipts at or after it."),
            OpenApiParameter("until", str, description="ISO time: receipts before it."),
            OpenApiParameter("kind", str, enum=Receipt.Kind.values),
            *PAGE_PARAMETERS,
        ],
        responses={200: page_of(ReceiptOutput, "ReceiptPage"), 400: ERROR},
    )
    def get(self, request: StoreRequest) -> Response:
        query = ReceiptQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        receipts = selectors.receipt_list(store=request.store, **query.validated_data)
        return paginated(self, request, receipts, lambda page: ReceiptOutput(page, many=True).data)

    @extend_schema(
        summary="Record a sale",
        parameters=[KEY_PARAMETER],
        request=ReceiptInput,
        responses={
            201: RecordedOutput,
            200: OpenApiResponse(RecordedOutput, description="A retry: the receipt the first request recorded."),
            400: OpenApiResponse(description="A bad line (`error.line`, `error.field`) or body; nothing was written."),
            409: OpenApiResponse(description="The key or external_id already recorded a different receipt."),
        },
        examples=[OpenApiExample("Two lines", value={"lines": [{"sku": "LI-004", "qty": 2},
                                                             {"barcode": "2000000000213", "qty": 1, "price": "5.50"}],
                                                   "external_id": "till-1-000123"}, request_only=True)],
    )
    def post(self, request: StoreRequest) -> Response:
        body = _body(request)
        recorded = services.sale_record(
            store=request.store,
            lines=_lines(request.store, body["lines"]),
            actor=request_actor(request),
            external_id=body["external_id"],
            idempotency_key=request.headers.get(KEY_HEADER, ""),
        )
        return _answer(recorded)


class ReceiptDetailApi(APIView):
    @extend_schema(responses={200: ReceiptOutput, 404: ERROR})
    def get(self, request: StoreRequest, receipt_id: int) -> Response:
        return Response(ReceiptOutput(selectors.receipt_get(store=request.store, receipt_id=receipt_id)).data)


class RefundLineInput(serializers.Serializer):
    sku = serializers.CharField(required=False)
    barcode = serializers.CharField(required=False)
    qty = serializers.IntegerField()


class RefundInput(serializers.Serializer):
    lines = RefundLineInput(many=True, required=False, help_text="What comes back; everything left if omitted.")


class ReceiptRefundApi(APIView):
    """Give back some or all units of a sale: a receipt of its own, the units back on the shelf."""

    void = False

    @extend_schema(
        parameters=[KEY_PARAMETER],
        request=RefundInput,
        responses={201: RecordedOutput, 200: RecordedOutput, 400: ERROR, 404: ERROR,
                   409: OpenApiResponse(description="Already refunded, not a sale, or the key was used for another.")},
    )
    def post(self, request: StoreRequest, receipt_id: int) -> Response:
        lines = None
        if not self.void and isinstance(request.data, dict) and request.data.get("lines") is not None:
            lines = [(line.product, line.qty) for line in _lines(request.store, request.data["lines"])]
        recorded = services.receipt_refund(
            store=request.store, receipt_id=receipt_id, actor=request_actor(request), lines=lines, void=self.void,
            idempotency_key=request.headers.get(KEY_HEADER, ""),
        )
        return _answer(recorded)


class ReceiptVoidApi(ReceiptRefundApi):
    """Cancel a whole sale (nothing refunded from it yet): a void receipt, the units back on the shelf."""

    void = True

    @extend_schema(parameters=[KEY_PARAMETER], request=None,
                   responses={201: RecordedOutput, 200: RecordedOutput, 404: ERROR, 409: ERROR})
    def post(self, request: StoreRequest, receipt_id: int) -> Response:
        return super().post(request, receipt_id)


class DeliveryLineInput(serializers.Serializer):
    line = serializers.IntegerField(help_text="The order line's id.")
    qty = serializers.IntegerField(help_text="Units that arrived.")


class DeliveryInput(serializers.Serializer):
    lines = DeliveryLineInput(many=True, required=False, help_text="What arrived; everything still open if omitted.")


class OrderReceiveApi(APIView):
    """Goods received for an order, in full or per line; stock rises through the journal."""

    # JSON only: a form-encoded body cannot carry the nested lines (it was read as none, then failed).
    parser_classes = [JSONParser]

    @extend_schema(
        request=DeliveryInput,
        responses={200: OrderOutput, 400: ERROR, 404: ERROR,
                   409: OpenApiResponse(description="The order was already received or cancelled.")},
    )
    def post(self, request: StoreRequest, order_id: int) -> Response:
        arrived = None
        if isinstance(request.data, dict) and request.data.get("lines") is not None:
            data = DeliveryInput(data=request.data)
            data.is_valid(raise_exception=True)
            arrived = {line["line"]: line["qty"] for line in data.validated_data["lines"]}
        order = services.order_receive(store=request.store, order_id=order_id, actor=request_actor(request), arrived=arrived)
        return Response(OrderOutput(order).data)
