"""Receipt lines carry their receipt's ``sold_at`` with a covering index (store, sold_at, product,
qty, line_total), so sales over a period (``ledger.sales_history``) sum the lines through the index
instead of joining every receipt of the period: a year of a 5,000-product store's receipts took
longer than the 200 ms a spoken answer allows (``scripts/bench_sales.py``).

Existing lines are filled from their receipts before the column becomes required.
"""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill(apps, schema_editor):
    Receipt = apps.get_model("ledger", "Receipt")
    ReceiptLine = apps.get_model("ledger", "ReceiptLine")
    ReceiptLine.objects.using(schema_editor.connection.alias).update(
        sold_at=Subquery(Receipt.objects.filter(pk=OuterRef("receipt_id")).values("sold_at")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_catalog_fields_receipt_kinds_deliveries_imports")]

    operations = [
        migrations.AddField(model_name="receiptline", name="sold_at", field=models.DateTimeField(null=True)),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="receiptline", name="sold_at",
            field=models.DateTimeField(help_text="The receipt's sold_at, copied so period sums need no join."),
        ),
        migrations.AddIndex(
            model_name="receiptline",
            index=models.Index(fields=["store", "sold_at", "product", "qty", "line_total"], name="line_store_sold_product"),
        ),
    ]
