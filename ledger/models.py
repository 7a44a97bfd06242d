"""The store's books. Every row carries its store; only ``ledger.services`` writes them."""

from __future__ import annotations

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models

from tenants.models import Store

MONEY = {"max_digits": 12, "decimal_places": 2}


class StoreScoped(models.Model):
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")

    class Meta:
        abstract = True


class Product(StoreScoped):
    name = models.CharField(max_length=120)
    aliases = models.JSONField(default=list, blank=True, help_text="Other names, local names, spoken variants.")
    unit = models.CharField(max_length=40, help_text="The unit sold, e.g. '10 lb bag'.")
    category = models.CharField(max_length=60)
    location = models.CharField(max_length=120, help_text="Aisle, shelf and position.")
    shelf_note = models.CharField(max_length=120, blank=True, help_text="What to look for on the shelf.")
    photo = models.ImageField(upload_to="shelves/", blank=True)
    stock = models.IntegerField(validators=[MinValueValidator(0)])
    par_level = models.PositiveIntegerField()
    reorder_point = models.PositiveIntegerField()
    price = models.DecimalField(**MONEY)
    unit_cost = models.DecimalField(**MONEY)
    supplier = models.CharField(max_length=80, default="Amazon Business")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["store", "name"], name="product_unique_store_name"),
            models.CheckConstraint(condition=models.Q(stock__gte=0), name="product_stock_not_negative"),
        ]
        indexes = [models.Index(fields=["store", "category"], name="product_store_category")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_low(self) -> bool:
        return self.stock <= self.reorder_point

    @property
    def suggested_reorder_qty(self) -> int:
        return max(self.par_level - self.stock, 0)


class StockEntry(StoreScoped):
    """The append-only stock journal: every change of a product's count, with who, why and before/after."""

    class Reason(models.TextChoices):
        OPENING = "opening", "Opening count"
        SALE = "sale", "Sale"
        COUNT = "count", "Count correction"
        DELIVERY = "delivery", "Delivery received"
        ADJUSTMENT = "adjustment", "Adjustment"

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

    @property
    def delta(self) -> int:
        return self.after - self.before


class Receipt(StoreScoped):
    number = models.PositiveIntegerField()
    sold_at = models.DateTimeField()
    total = models.DecimalField(**MONEY)
    actor = models.CharField(max_length=120)
    historical = models.BooleanField(
        default=False,
        help_text="Imported history: recorded for reports, but it did not move stock and is not part of a day's "
        "reconciliation.",
    )

    class Meta:
        ordering = ["sold_at", "id"]
        constraints = [models.UniqueConstraint(fields=["store", "number"], name="receipt_unique_store_number")]
        indexes = [models.Index(fields=["store", "sold_at"], name="receipt_store_sold_at")]


class ReceiptLine(StoreScoped):
    receipt = models.ForeignKey(Receipt, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="receipt_lines")
    qty = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    unit_price = models.DecimalField(**MONEY)
    line_total = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["id"]


class Reconciliation(StoreScoped):
    """Closing the day: sales against stock, and what is at or below its reorder point."""

    business_date = models.DateField()
    created_at = models.DateTimeField()
    actor = models.CharField(max_length=120)
    receipts = models.PositiveIntegerField()
    units_sold = models.PositiveIntegerField()
    revenue = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["store", "business_date"], name="recon_store_date")]


class ReconciliationLine(StoreScoped):
    reconciliation = models.ForeignKey(Reconciliation, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    opening_stock = models.IntegerField()
    units_sold = models.PositiveIntegerField()
    stock = models.IntegerField()
    reorder_point = models.PositiveIntegerField()
    par_level = models.PositiveIntegerField()
    is_low = models.BooleanField()
    suggested_qty = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]


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


class DraftLine(StoreScoped):
    draft = models.ForeignKey(ReorderDraft, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="+")
    qty = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    unit_cost = models.DecimalField(**MONEY)
    est_cost = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["id"]


class Order(StoreScoped):
    class Status(models.TextChoices):
        PLACED = "placed", "Placed"
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


class OrderLine(StoreScoped):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.RESTRICT, related_name="+")
    qty = models.PositiveIntegerField()
    unit_cost = models.DecimalField(**MONEY)
    cost = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["id"]


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
