"""Row-level security on the worker's queue tables (turn jobs, report dispatches), PostgreSQL only.

``identity.0003`` took the policy off while the queue code still read jobs outside a store's
context; it now works inside each store's context (``worker.turns``, ``worker.reports``) and
lists across stores only under ``tenants.rls.bypass()`` (the reaper). ``post_migrate`` would
fence them too; this migration says when it happened and undoes it on the way back.
"""

from django.db import migrations

from tenants import rls

MODELS = ("TurnJob", "ReportDispatch")


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    if rls.is_postgres(connection):
        with rls.bypass():
            rls.ensure_app_role(connection)
            rls.apply_policies(connection, [apps.get_model("worker", name) for name in MODELS])


def backwards(apps, schema_editor):
    connection = schema_editor.connection
    if rls.is_postgres(connection):
        rls.remove_policies(connection, [apps.get_model("worker", name) for name in MODELS])


class Migration(migrations.Migration):
    dependencies = [
        ("worker", "0001_initial"),
        ("identity", "0003_unfence_worker_tables"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
