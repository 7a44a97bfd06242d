"""Row-level security for the ledger (PostgreSQL only; nothing on SQLite).

Creates the unprivileged role the application acts as (``DATABASE_APP_ROLE``), grants it the
tables, and fences every store-scoped ledger table with the ``store_isolation`` policy. Ledger
tables created by later migrations get the same after each ``migrate`` (``tenants.rls``'s
post_migrate hook), and the system check ``tenants.E001`` reports any table left without it.
"""

from django.db import migrations

from tenants import rls


def forwards(apps, schema_editor):
    rls.install(schema_editor.connection, apps)


def backwards(apps, schema_editor):
    connection = schema_editor.connection
    if rls.is_postgres(connection):
        rls.remove_policies(connection, rls.rls_models(apps))


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0002_grocery_business_type"),
        ("ledger", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
