"""System checks for the tenant fence (row-level security on PostgreSQL)."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import connections

from tenants import rls

BACKEND = "tenants.db"


@register()
def check_database_backend(app_configs=None, **kwargs):
    errors: list[CheckMessage] = []
    engine = settings.DATABASES.get("default", {}).get("ENGINE", "")
    if engine == "django.db.backends.postgresql":
        errors.append(
            Error(
                "The default database is PostgreSQL without the tenants backend, so row-level security "
                "would not fence the ledger (the login role bypasses it).",
                hint=f"Set DATABASES['default']['ENGINE'] = {BACKEND!r}.",
                id="tenants.E003",
            )
        )
    try:
        rls.app_role()
    except ImproperlyConfigured as exc:
        errors.append(Error(str(exc), id="tenants.E004"))
    return errors


@register(Tags.database)
def check_row_level_security(app_configs=None, databases=None, **kwargs):
    """Every table holding a store's data has RLS enabled, forced, and the policy; the app role obeys it."""
    if not databases or "default" not in databases or rls.is_repairing():
        return []  # migrate applies the policies itself, after this check
    connection = connections["default"]
    if not rls.is_postgres(connection):
        return []
    with rls.bypass():
        status = rls.table_status(connection, rls.fenced_tables(apps))
        if not status:
            return []  # not migrated yet
        errors: list[CheckMessage] = [
            Error(
                f"The table {table!r} holds store data but is not fenced by row-level security "
                f"(enabled={state.enabled}, forced={state.forced}, policy {rls.POLICY_NAME!r}={state.has_policy}).",
                hint="Run `python manage.py migrate`: it applies the policy to every table that holds store data.",
                obj=table,
                id="tenants.E001",
            )
            for table, state in sorted(status.items())
            if not state.fenced
        ]
        errors += [
            Error(
                f"The application's database role may use the table {table!r}, which only the worker and "
                "the admin (the login role) may read: it holds every store's task results.",
                hint="Run `python manage.py migrate`: it revokes the app role's privileges on it.",
                obj=table,
                id="tenants.E006",
            )
            for table in (
                rls.app_role_privileged_tables(connection, rls.worker_only_tables(apps))
                if rls.role_exists(connection, rls.app_role()) else ()
            )
        ]
        if not rls.role_exists(connection, rls.app_role()):
            errors.append(
                Error(
                    f"The database role {rls.app_role()!r} that the application acts as does not exist.",
                    hint="Run `python manage.py migrate` (it creates it) or create it: CREATE ROLE ... NOLOGIN.",
                    id="tenants.E002",
                )
            )
        elif rls.role_can_bypass(connection, rls.app_role()):
            errors.append(
                Error(
                    f"The database role {rls.app_role()!r} that the application acts as is a superuser or has "
                    "BYPASSRLS, so row-level security would fence nothing.",
                    hint=f"ALTER ROLE {rls.app_role()} NOSUPERUSER NOBYPASSRLS; (or set DATABASE_APP_ROLE to a "
                    "plain role).",
                    id="tenants.E005",
                )
            )
        elif not rls.login_role_can_bypass(connection):
            errors.append(
                Warning(
                    "The database login role is neither a superuser nor BYPASSRLS, so work run under "
                    "tenants.rls.bypass() is still fenced: migrations, cross-store admin work, and the lookups "
                    "before a store is known (store tokens, OAuth tokens, invitation and confirmation links), "
                    "which then find nothing.",
                    hint="ALTER ROLE <login role> BYPASSRLS;",
                    id="tenants.W001",
                )
            )
    return errors
