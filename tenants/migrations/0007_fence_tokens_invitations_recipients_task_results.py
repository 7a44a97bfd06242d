"""Row-level security on store tokens, invitations and report recipients; task results closed to the app role.

PostgreSQL only. Until now the tenants app was exempt as a whole; only memberships stay outside
the fence (they are how a user's stores are found). Tokens, invitations and recipients are looked
up before their store is known only through the ``fence_lookup`` functions (``tenants.lookups``,
``identity.lookups``). django-celery-results' tables have no store column: the app role loses its
privileges on them and only the login role (the worker's result backend, the admin) uses them.
``post_migrate`` would do both too; this migration says when it happened and undoes it on the way back.
"""

from django.db import migrations

from tenants import rls

MODELS = ("StoreToken", "Invitation", "ReportRecipient")


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    if rls.is_postgres(connection):
        with rls.bypass():
            rls.ensure_app_role(connection)
            rls.apply_policies(connection, [apps.get_model("tenants", name) for name in MODELS])
            rls.restrict_tables(connection, rls.worker_only_tables(apps))


def backwards(apps, schema_editor):
    connection = schema_editor.connection
    if rls.is_postgres(connection):
        with rls.bypass():
            rls.remove_policies(connection, [apps.get_model("tenants", name) for name in MODELS])
            rls.unrestrict_tables(connection, rls.worker_only_tables(apps))


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0006_merge_20261201_2003"),
        ("django_celery_results", "0014_alter_taskresult_status"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
