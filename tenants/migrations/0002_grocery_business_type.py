from django.db import migrations


def create_grocery(apps, schema_editor):
    BusinessType = apps.get_model("tenants", "BusinessType")
    BusinessType.objects.update_or_create(
        slug="grocery",
        defaults={
            "name": "Grocery",
            "description": "A neighbourhood grocery: staples, spices, dairy, frozen food and snacks.",
            "position": 0,
        },
    )


class Migration(migrations.Migration):
    dependencies = [("tenants", "0001_initial")]
    operations = [migrations.RunPython(create_grocery, migrations.RunPython.noop)]
