"""The worker's queue tables (turn jobs, report dispatches) are not under row-level security yet
(see tenants.rls.RLS_EXEMPT_APPS): take off the policy an earlier migrate put on them."""

from django.db import migrations

TABLES = ("worker_turnjob", "worker_reportdispatch")


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute("SELECT to_regclass(%s)", [table])
            if cursor.fetchone()[0] is None:
                continue
            cursor.execute(f"DROP POLICY IF EXISTS store_isolation ON {qn(table)}")
            cursor.execute(f"ALTER TABLE {qn(table)} NO FORCE ROW LEVEL SECURITY")
            cursor.execute(f"ALTER TABLE {qn(table)} DISABLE ROW LEVEL SECURITY")


class Migration(migrations.Migration):
    dependencies = [
        ("identity", "0002_oauth_connections"),
        ("worker", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
