"""The store's sums per UTC quarter-hour (``SalesQuarterHour``) replace its sums per UTC month
(``SalesMonth``): a year by day took 2.9 s on SQLite from month sums and the receipts around them,
past the 200 ms a spoken answer allows (``scripts/bench_sales.py``); a local day is a run of whole
quarter-hours in any time zone, so days, weeks and years read sums alone. Existing receipts are
summed into them here; from now on the receipt writers keep them (``ledger.services.sales_months``).
Undone, the month sums are refilled from the quarter-hours.
"""

import datetime as dt
from collections import defaultdict
from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models

_FIELDS = ("sales", "voids", "revenue", "given_back", "units")


def _empty():
    return {"sales": 0, "voids": 0, "revenue": Decimal(0), "given_back": Decimal(0), "units": 0}


def fill(apps, schema_editor):
    from tenants import rls

    alias = schema_editor.connection.alias
    Receipt = apps.get_model("ledger", "Receipt")
    ReceiptLine = apps.get_model("ledger", "ReceiptLine")
    SalesQuarterHour = apps.get_model("ledger", "SalesQuarterHour")

    def quarter(moment):
        utc = moment.astimezone(dt.UTC)
        return utc.replace(minute=utc.minute - utc.minute % 15, second=0, microsecond=0)

    with rls.bypass():
        quarters = defaultdict(_empty)
        for store_id, sold_at, kind, total in (Receipt.objects.using(alias)
                                               .values_list("store_id", "sold_at", "kind", "total").iterator(2000)):
            row = quarters[(store_id, quarter(sold_at))]
            row["sales"] += kind == "sale"
            row["voids"] += kind == "void"
            row["revenue"] += total
            if kind != "sale":
                row["given_back"] += total
        for store_id, sold_at, qty in ReceiptLine.objects.using(alias).values_list("store_id", "sold_at", "qty").iterator(5000):
            quarters[(store_id, quarter(sold_at))]["units"] += qty
        SalesQuarterHour.objects.using(alias).bulk_create(
            [SalesQuarterHour(store_id=store_id, starts=starts, **row) for (store_id, starts), row in quarters.items()],
            batch_size=2000)


def refill_months(apps, schema_editor):
    from tenants import rls

    alias = schema_editor.connection.alias
    SalesQuarterHour = apps.get_model("ledger", "SalesQuarterHour")
    SalesMonth = apps.get_model("ledger", "SalesMonth")
    with rls.bypass():
        months = defaultdict(_empty)
        for row in SalesQuarterHour.objects.using(alias).values("store_id", "starts", *_FIELDS).iterator(5000):
            month = months[(row["store_id"], row["starts"].astimezone(dt.UTC).date().replace(day=1))]
            for field in _FIELDS:
                month[field] += row[field]
        SalesMonth.objects.using(alias).bulk_create(
            [SalesMonth(store_id=store_id, month=month, **row) for (store_id, month), row in months.items()],
            batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0005_sales_months'),
        ('tenants', '0007_fence_tokens_invitations_recipients_task_results'),
    ]

    operations = [
        migrations.CreateModel(
            name='SalesQuarterHour',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('starts', models.DateTimeField(help_text='The start of the quarter-hour (UTC).')),
                ('sales', models.IntegerField(default=0, help_text='Sale receipts rung up in it.')),
                ('voids', models.IntegerField(default=0, help_text='Void receipts recorded in it.')),
                ('revenue', models.DecimalField(decimal_places=2, default=Decimal('0.00'), max_digits=12)),
                ('given_back', models.DecimalField(decimal_places=2, default=Decimal('0.00'), help_text='Refund and void totals (negative).', max_digits=12)),
                ('units', models.IntegerField(default=0)),
                ('store', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenants.store')),
            ],
            options={
                'ordering': ['starts'],
                'constraints': [models.UniqueConstraint(fields=('store', 'starts'), name='salesquarterhour_unique')],
            },
        ),
        migrations.RunPython(fill, refill_months),
        migrations.DeleteModel(name='SalesMonth'),
    ]
