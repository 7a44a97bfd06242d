"""The store's books. Every row carries its store; only ``ledger.services`` writes them."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from django.core.validators import MinValueValidator
from django.db import models

from tenants.models import Store


class DecimalPlaces(TypedDict):
    """A decimal field's size, spelled once for every money field."""

    max_digits: int
    decimal_places: int


MONEY: DecimalPlaces = {"max_digits": 12, "decimal_places": 2}


class StoreScoped(models.Model):
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")

    class Meta:
        abstract = True


class Product(StoreScoped):
    sku = models.CharField(max_length=64, help_text="The store's own code for the product (unique in the store).")
    barcode = models.CharField(max_length=32, blank=True, help_text="EAN/UPC or the store's own; unique in the store.")
    name = models.CharField(max_length=120)
    aliases = models.JSONField(default=list, blank=True, help_text="Other names, local names, spoken variants.")
    unit = models.CharField(max_length=40, help_text="The unit sold, e.g. '10 lb bag'.")
    pack_size = models.PositiveIntegerField(default=1, help_text="Units in one case from the supplier.")
    category = models.CharField(max_length=60)
    aisle = models.CharField(max_length=40, blank=True)
    shelf = models.CharField(max_length=40, blank=True)
    position = models.CharField(max_length=40, blank=True)
    location = models.CharField(
        max_length=124, blank=True, help_text="Aisle, shelf and position as one phrase (derived from those three)."
    )
    shelf_note = models.CharField(max_length=120, blank=True, help_text="What to look for on the shelf.")
    photo = models.ImageField(upload_to="shelves/", blank=True)
    stock = models.IntegerField(validators=[MinValueValidator(0)])
    par_level = models.PositiveIntegerField()
    reorder_point = models.PositiveIntegerField()
    price = models.DecimalField(**MONEY)
    unit_cost = models.DecimalField(**MONEY)
    supplier = models.CharField(max_length=80, blank=True, default="")
    active = models.BooleanField(default=True, help_text="Archived products (inactive) keep their history.")
    needs_recount = models.BooleanField(
        default=False, help_text="A sale exceeded the books' count: stock stopped at zero until someone counts."
    )
    version = models.PositiveIntegerField(default=1, help_text="Raised by every edit, so concurrent edits conflict.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["store", "name"], name="product_unique_store_name"),
            models.UniqueConstraint(fields=["store", "sku"], name="product_unique_store_sku"),
            models.UniqueConstraint(
                fields=["store", "barcode"], condition=~models.Q(barcode=""), name="product_unique_store_barcode"
            ),
            models.CheckConstraint(condition=models.Q(stock__gte=0), name="product_stock_not_negative"),
        ]
        indexes = [models.Index(fields=["store", "category"], name="product_store_category")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_low(self) -> bool:
        return self.stock <= self.reorder_point


class StockEntry(StoreScoped):
    """The append-only stock journal: every change of a product's count, with who, why and before/after."""

    class Reason(models.TextChoices):
        OPENING = "opening", "Opening count"
        SALE = "sale", "Sale"
        COUNT = "count", "Count correction"
        DELIVERY = "delivery", "Delivery received"
        ADJUSTMENT = "adjustment", "Adjustment"
        REFUND = "refund", "Refund"
        VOID = "void", "Voided sale"

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="journal")
    reason = models.CharField(max_length=12, choices=Reason.choices)
    before = models.IntegerField()
    after = models.IntegerField()
    actor = models.CharField(max_length=120, help_text="Who made the change: user:ID, token:PREFIX, assistant:MODE, system.")
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["store", "product", "created_at"], name="journal_store_product_time")]

    def __str__(self) -> str:
        return f"{self.get_reason_display()}: {self.before} -> {self.after} (product {self.product_id})"

    @property
    def delta(self) -> int:
        return self.after - self.before


class Receipt(StoreScoped):
    """A sale, or a refund or void of one (their lines and total are negative and restore stock)."""

    class Kind(models.TextChoices):
        SALE = "sale", "Sale"
        REFUND = "refund", "Refund"
        VOID = "void", "Void"

    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=6, choices=Kind.choices, default=Kind.SALE)
    refund_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.RESTRICT, related_name="refunds",
        help_text="The sale a refund or void gives back.",
    )
    sold_at = models.DateTimeField()
    total = models.DecimalField(**MONEY)
    actor = models.CharField(max_length=120)
    historical = models.BooleanField(
        default=False,
        help_text="Imported history: recorded for reports, but it did not move stock and is not part of a day's "
        "reconciliation.",
    )
    external_id = models.CharField(max_length=100, blank=True, help_text="The till's own receipt id, if it sent one.")
    idempotency_key = models.CharField(max_length=128, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True, help_text="Hash of the request that recorded it.")

    class Meta:
        ordering = ["sold_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["store", "number"], name="receipt_unique_store_number"),
            models.UniqueConstraint(
                fields=["store", "external_id"], condition=~models.Q(external_id=""), name="receipt_unique_external_id"
            ),
            models.UniqueConstraint(
                fields=["store", "idempotency_key"], condition=~models.Q(idempotency_key=""),
                name="receipt_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["store", "sold_at"], name="receipt_store_sold_at")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.number}"


class ReceiptLineQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        """Each line takes its receipt's ``sold_at`` (the only way lines are written: ``ledger.services.receipts``)."""
        objs = list(objs)
        for line in objs:
            line.sold_at = line.receipt.sold_at
        return super().bulk_create(objs, *args, **kwargs)


class ReceiptLine(StoreScoped):
    """A product on a receipt: positive on a sale, negative on a refund or void.

    ``sold_at`` is the receipt's, copied when the line is written (a receipt's time never changes),
    so sales over a period read the lines alone through one index instead of joining every receipt.
    """

    receipt = models.ForeignKey(Receipt, on_delete=models.CASCADE, related_name="lines")
    sold_at = models.DateTimeField(help_text="The receipt's sold_at, copied so period sums need no join.")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="receipt_lines")
    qty = models.IntegerField()
    unit_price = models.DecimalField(**MONEY)
    line_total = models.DecimalField(**MONEY)
    oversold = models.PositiveIntegerField(
        default=0, help_text="Units sold beyond what the books held (stock stopped at zero)."
    )

    objects = ReceiptLineQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [models.CheckConstraint(condition=~models.Q(qty=0), name="receiptline_qty_not_zero")]
        # Covering: a period's sums per product read the index alone.
        indexes = [models.Index(fields=["store", "sold_at", "product", "qty", "line_total"], name="line_store_sold_product")]

    def __str__(self) -> str:
        return f"{self.qty} x product {self.product_id} on receipt {self.receipt_id}"

    def save(self, *args, **kwargs) -> None:
        self.sold_at = self.receipt.sold_at
        super().save(*args, **kwargs)


class SalesQuarterHour(StoreScoped):
    """A store's receipts summed over one quarter of an hour (UTC), kept by the receipt writers.

    ``ledger.sales_history`` reads a period's totals, and its days, from these rows for the whole
    quarter-hours inside it and from the receipts only for the minutes around them, so a year costs
    a few thousand rows instead of every receipt and line. A local day (the store's time zone, which
    may change) is a run of whole quarter-hours: every time zone's offset is a multiple of 15 minutes.
    ``ledger.services.sales_months`` is the only writer (and rebuilds them from the receipts).
    """

    starts = models.DateTimeField(help_text="The start of the quarter-hour (UTC).")
    sales = models.IntegerField(default=0, help_text="Sale receipts rung up in it.")
    voids = models.IntegerField(default=0, help_text="Void receipts recorded in it.")
    revenue = models.DecimalField(default=Decimal("0.00"), **MONEY)
    given_back = models.DecimalField(default=Decimal("0.00"), help_text="Refund and void totals (negative).", **MONEY)
    units = models.IntegerField(default=0)

    class Meta:
        ordering = ["starts"]
        constraints = [models.UniqueConstraint(fields=["store", "starts"], name="salesquarterhour_unique")]

    def __str__(self) -> str:
        return f"sales from {self.starts:%Y-%m-%d %H:%M} UTC"


class ProductSalesMonth(StoreScoped):
    """One product's receipt lines summed over one UTC month (net units and revenue), kept by the receipt
    writers: a long period ranks products from the whole UTC months inside it and reads only the days
    around them from the lines. UTC, so a row never depends on the store's time zone."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    month = models.DateField(help_text="The first day of the UTC month.")
    units = models.IntegerField(default=0)
    revenue = models.DecimalField(default=Decimal("0.00"), **MONEY)

    class Meta:
        ordering = ["month", "product"]
        constraints = [
            models.UniqueConstraint(fields=["store", "month", "product"], name="productsalesmonth_unique"),
        ]
        # Covering: a period's months per product read the index alone.
        indexes = [models.Index(fields=["store", "month", "product", "units", "revenue"], name="psm_store_month_product")]

    def __str__(self) -> str:
        return f"product {self.product_id} in {self.month:%Y-%m} (UTC)"


class Reconciliation(StoreScoped):
    """Closing the day: sales against stock, and what is at or below its reorder point."""

    business_date = models.DateField()
    created_at = models.DateTimeField()
    actor = models.CharField(max_length=120)
    receipts = models.PositiveIntegerField()
    units_sold = models.IntegerField(help_text="Net of refunds.")
    revenue = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["store", "business_date"], name="recon_store_date")]

    def __str__(self) -> str:
        return f"Day closed {self.business_date}"


class ReconciliationLine(StoreScoped):
    reconciliation = models.ForeignKey(Reconciliation, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    opening_stock = models.IntegerField()
    units_sold = models.IntegerField(help_text="Net of refunds.")
    stock = models.IntegerField()
    reorder_point = models.PositiveIntegerField()
    par_level = models.PositiveIntegerField()
    is_low = models.BooleanField()
    suggested_qty = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Product {self.product_id}: {self.units_sold} sold, {self.stock} left"


class ReorderDraft(StoreScoped):
    """A proposed purchase order. pending -> confirmed | declined | expired | replaced."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        CONFIRMED = "confirmed", "Confirmed"
        DECLINED = "declined", "Declined"
        EXPIRED = "expired", "Expired"
        REPLACED = "replaced", "Replaced"

    class Source(models.TextChoices):
        ASSISTANT = "assistant", "Assistant"
        MCP = "mcp", "MCP client"
        DASHBOARD = "dashboard", "Dashboard"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    source = models.CharField(max_length=10, choices=Source.choices)
    supplier = models.CharField(max_length=80)
    est_total = models.DecimalField(**MONEY, default=Decimal("0.00"))
    actor = models.CharField(max_length=120)
    conversation = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=120, blank=True)
    replaced_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["store", "status"], name="draft_store_status")]

    def __str__(self) -> str:
        return f"Reorder draft {self.pk} for {self.supplier} ({self.status})"


class DraftLine(StoreScoped):
    draft = models.ForeignKey(ReorderDraft, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="+")
    qty = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    unit_cost = models.DecimalField(**MONEY)
    est_cost = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.qty} x product {self.product_id} on draft {self.draft_id}"


class Order(StoreScoped):
    class Status(models.TextChoices):
        PLACED = "placed", "Placed"
        PARTIAL = "partial", "Partly received"
        RECEIVED = "received", "Received"
        CANCELLED = "cancelled", "Cancelled"

    draft = models.OneToOneField(ReorderDraft, on_delete=models.RESTRICT, related_name="order")
    supplier = models.CharField(max_length=80)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLACED)
    total = models.DecimalField(**MONEY)
    placed_at = models.DateTimeField()
    placed_by = models.CharField(max_length=120)

    class Meta:
        ordering = ["-placed_at", "-id"]

    def __str__(self) -> str:
        return f"Order {self.pk} from {self.supplier} ({self.status})"


class OrderLine(StoreScoped):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="+")
    qty = models.PositiveIntegerField()
    received_qty = models.PositiveIntegerField(default=0, help_text="Units that have arrived so far.")
    unit_cost = models.DecimalField(**MONEY)
    cost = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.received_qty} of {self.qty} x product {self.product_id} received"

    @property
    def open_qty(self) -> int:
        return max(self.qty - self.received_qty, 0)


class ReportDelivery(StoreScoped):
    """A report that was emailed: which, to whom, when, by whom."""

    class Kind(models.TextChoices):
        INVENTORY = "inventory", "Inventory report"
        SALES = "sales", "Sales report"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    recipient = models.EmailField()
    sent_at = models.DateTimeField()
    actor = models.CharField(max_length=120)
    subject = models.CharField(max_length=200)

    class Meta:
        ordering = ["-sent_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.recipient}"


class CatalogImport(StoreScoped):
    """An uploaded catalog or opening-stock CSV: previewed row by row, then applied in one transaction.

    uploaded -> previewing -> previewed -> applying -> applied, or failed at either step. The
    preview's ``plan`` says per row what would be created, changed, left unchanged or rejected
    (with the column and reason), and the product versions and counts it saw, so that applying
    over a catalog that changed since is a conflict rather than a silent overwrite.
    """

    class Kind(models.TextChoices):
        CATALOG = "catalog", "Catalog"
        STOCK = "stock", "Opening stock count"

    class Status(models.TextChoices):
        UPLOADED = "uploaded", "Uploaded"
        PREVIEWING = "previewing", "Previewing"
        PREVIEWED = "previewed", "Ready to apply"
        APPLYING = "applying", "Applying"
        APPLIED = "applied", "Applied"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UPLOADED)
    filename = models.CharField(max_length=200)
    content = models.TextField(help_text="The file as text (kept in the database, never served).")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the content.")
    rows = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    plan = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    actor = models.CharField(max_length=120)
    created_at = models.DateTimeField()
    previewed_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    applied_by = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["store", "created_at"], name="import_store_time")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} import {self.filename} ({self.status})"
