"""Month sums of every store's receipts (``SalesMonth``, ``ProductSalesMonth``): a year ranked by
product summed 360,633 lines on a 5,000-product store, past the 200 ms a spoken answer allows
(``scripts/bench_sales.py``). Existing receipts are summed into them here; from now on the receipt
writers keep them (``ledger.services.sales_months``).
"""

import datetime as dt

import django.db.models.deletion
from decimal import Decimal
from django.db import migrations, models


def fill(apps, schema_editor):
    from django.db.models import Count, Q, Sum
    from django.db.models.functions import TruncMonth

    from tenants import rls

    alias = schema_editor.connection.alias
    Receipt = apps.get_model("ledger", "Receipt")
    ReceiptLine = apps.get_model("ledger", "ReceiptLine")
    SalesMonth = apps.get_model("ledger", "SalesMonth")
    ProductSalesMonth = apps.get_model("ledger", "ProductSalesMonth")
    month = TruncMonth("sold_at", tzinfo=dt.UTC)

    def day(value):
        return value.date() if isinstance(value, dt.datetime) else value

    with rls.bypass():
        totals = {}
        for row in (Receipt.objects.using(alias).annotate(m=month).values("store_id", "m").order_by()
                    .annotate(sales=Count("id", filter=Q(kind="sale")), voids=Count("id", filter=Q(kind="void")),
                              revenue=Sum("total"), given_back=Sum("total", filter=~Q(kind="sale")))):
            totals[(row["store_id"], day(row["m"]))] = SalesMonth(
                store_id=row["store_id"], month=day(row["m"]), sales=row["sales"], voids=row["voids"],
                revenue=row["revenue"] or 0, given_back=row["given_back"] or 0, units=0)
        products = []
        for row in (ReceiptLine.objects.using(alias).annotate(m=month).values("store_id", "m", "product_id").order_by()
                    .annotate(units=Sum("qty"), revenue=Sum("line_total"))):
            products.append(ProductSalesMonth(store_id=row["store_id"], month=day(row["m"]), product_id=row["product_id"],
                                              units=row["units"] or 0, revenue=row["revenue"] or 0))
            totals[(row["store_id"], day(row["m"]))].units += row["units"] or 0
        SalesMonth.objects.using(alias).bulk_create(totals.values(), batch_size=2000)
        ProductSalesMonth.objects.using(alias).bulk_create(products, batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0004_receiptline_sold_at'),
        ('tenants', '0006_merge_20261201_2003'),
    ]

    operations = [
        migrations.CreateModel(
            name='ProductSalesMonth',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('month', models.DateField(help_text='The first day of the UTC month.')),
                ('units', models.IntegerField(default=0)),
                ('revenue', models.DecimalField(decimal_places=2, default=Decimal('0.00'), max_digits=12)),
                ('product', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='ledger.product')),
                ('store', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenants.store')),
            ],
            options={
                'ordering': ['month', 'product'],
                'indexes': [models.Index(fields=['store', 'month', 'product', 'units', 'revenue'], name='psm_store_month_product')],
                'constraints': [models.UniqueConstraint(fields=('store', 'month', 'product'), name='productsalesmonth_unique')],
            },
        ),
        migrations.CreateModel(
            name='SalesMonth',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('month', models.DateField(help_text='The first day of the UTC month.')),
                ('sales', models.IntegerField(default=0, help_text='Sale receipts rung up in the month.')),
                ('voids', models.IntegerField(default=0, help_text='Void receipts recorded in the month.')),
                ('revenue', models.DecimalField(decimal_places=2, default=Decimal('0.00'), max_digits=12)),
                ('given_back', models.DecimalField(decimal_places=2, default=Decimal('0.00'), help_text='Refund and void totals (negative).', max_digits=12)),
                ('units', models.IntegerField(default=0)),
                ('store', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenants.store')),
            ],
            options={
                'ordering': ['month'],
                'constraints': [models.UniqueConstraint(fields=('store', 'month'), name='salesmonth_unique_store_month')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
