"""Row-level security on PostgreSQL: the database's own tenant fence under the selectors.

How the pieces fit:

* Every table that holds a store's data is fenced: each model, in any app, with a ``store``
  foreign key to ``tenants.Store`` (the ledger, the audit's turns and records, conversations,
  MCP idempotency keys, report deliveries, the worker's turn jobs and report dispatches, store
  tokens, invitations, report recipients...), except the models in ``RLS_EXEMPT_MODELS``; and
  each model in ``RLS_CHILDREN``, which reaches its store through a parent row (an audit record's
  SQL statements). It gets ``ENABLE`` and ``FORCE ROW LEVEL SECURITY`` and the policy
  ``store_isolation``: a row is visible and writable only while its ``store_id`` (its parent's,
  for a child) equals the connection's ``app.store_id`` setting. Fenced by default: a new table
  with a store is covered by the next ``migrate`` (``post_migrate``) without anyone listing it,
  and the system check ``tenants.E001`` reports a table that lacks the policy.
* Memberships are exempt: they are how a signed-in user's stores are found, before any store is
  known (``tenants.selectors``). Stores and business types have no store column.
* A few lookups must find a fenced row before its store is known: a store token by its prefix and
  hash, an invitation or a report recipient by its link's hash, the store credential behind an
  OAuth access token. Each is a ``fence_lookup`` (``tenants.lookups``, ``identity.lookups``): one
  query past the fence by a secret-derived key, returning that one row (or a yes/no); what follows
  (recording a token's use, accepting, confirming) runs in the row's own store context.
  ``LOOKUPS`` lists them and ``tenants/tests/test_fence_lookups.py`` audits each one.
* Tables of the apps in ``RLS_WORKER_ONLY_APPS`` (django-celery-results: task states and
  results, with no store column) are not readable by the app role at all: its privileges on them
  are revoked, and only the login role (Celery's result backend runs its statements in
  ``bypass()``, ``worker.results``; the Django admin) reads and writes them. ``tenants.E006``
  reports the app role holding a privilege there.
* Superusers and ``BYPASSRLS`` roles ignore policies, so the application never queries as the
  login role: the database backend ``tenants.db`` (set as ENGINE on PostgreSQL) switches its
  connections to the unprivileged role ``settings.DATABASE_APP_ROLE`` (default ``shelfwise_app``,
  NOLOGIN, created and granted by the migration).
* What a connection should be is kept in context variables: ``set_db_store`` (called by
  ``tenants.context.use_store``) and ``bypass()``. The backend brings the connection to that state
  right before each statement that Django sends, with one ``set_config`` round trip when it
  differs and none otherwise. So sync code, async code (``sync_to_async`` copies the context),
  threads and Celery tasks each get their own store on a shared or reused connection; a reconnect
  is re-applied; a rollback that undid a ``set_config`` is noticed. Statements sent through a raw
  driver cursor (``connection.connection.cursor()``) skip this: call ``sync_connection`` first.
* ``bypass()`` runs a block as the login role (which must be a superuser or have ``BYPASSRLS``):
  the ``migrate`` and ``flush`` commands run inside it (so do test-database setup and teardown),
  and so must cross-store platform maintenance. Creating a store needs no bypass (stores have no
  policy); deleting one needs its own context or a bypass (``tenants.services.store_delete``
  does it). Writing a store's tokens, invitations or recipients needs that store's context
  (the tenants services enter it).

On SQLite all of this is inert: the context variables are kept and nothing is sent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, NamedTuple, ParamSpec, TypeVar

from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db.models import ForeignKey

if TYPE_CHECKING:
    from django.apps.registry import Apps
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models import Model

# Models with a store that are looked up before a store is known (a user's memberships): not fenced.
RLS_EXEMPT_MODELS = ("tenants.membership",)
# Apps whose tables hold no store column and are read only by the login role (Celery's task results).
RLS_WORKER_ONLY_APPS = ("django_celery_results",)
# Tables without a store column that belong to a fenced parent: model label -> its parent foreign key.
RLS_CHILDREN = {"audit.sqlstatement": "record"}
POLICY_NAME = "store_isolation"
SETTING = "app.store_id"
DEFAULT_APP_ROLE = "shelfwise_app"
# The login role, as ``set_config('role', ...)`` spells RESET ROLE.
LOGIN_ROLE = "none"
_ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_db_store: ContextVar[int | None] = ContextVar("shelfwise_db_store", default=None)
_bypass: ContextVar[bool] = ContextVar("shelfwise_rls_bypass", default=False)
_repairing: ContextVar[bool] = ContextVar("shelfwise_rls_repairing", default=False)

P = ParamSpec("P")
R = TypeVar("R")
# Every lookup past the fence made before a store is known: "module.function" -> the function.
LOOKUPS: dict[str, Callable[..., object]] = {}


# ---------------------------------------------------------------------------------------------
# The desired state of the connection, per context


def set_db_store(store_id: int | None) -> int | None:
    """Make ``store_id`` the ``app.store_id`` of this context's queries; return the previous one.

    The setting reaches the connection before the next statement Django sends on it
    (``set_config('app.store_id', ..., false)``; ``''`` when ``None``).
    """
    previous = _db_store.get()
    _db_store.set(store_id)
    return previous


def db_store() -> int | None:
    return _db_store.get()


@contextmanager
def bypass() -> Iterator[None]:
    """Run the block as the login role, past row-level security: maintenance only.

    For migrations, test-database setup and cross-store platform work (an admin's audit
    across stores). Request, MCP, assistant and task code never needs it: they use
    ``tenants.context.use_store``.
    """
    token = _bypass.set(True)
    try:
        yield
    finally:
        _bypass.reset(token)


def bypass_active() -> bool:
    return _bypass.get()


def fence_lookup(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` past the fence (``bypass()``) and list it in ``LOOKUPS``.

    Only for reads that must find one row before its store is known, by a key derived from a
    secret the caller holds; the function returns that row (or a yes/no) and nothing else.
    """

    @functools.wraps(func)
    def past_the_fence(*args: P.args, **kwargs: P.kwargs) -> R:
        with bypass():
            return func(*args, **kwargs)

    LOOKUPS[f"{func.__module__}.{func.__qualname__}"] = past_the_fence
    return past_the_fence


@contextmanager
def repairing() -> Iterator[None]:
    """Mark a command that applies the policies itself (``migrate``): the system check stands aside."""
    token = _repairing.set(True)
    try:
        with bypass():
            yield
    finally:
        _repairing.reset(token)


def is_repairing() -> bool:
    return _repairing.get()


def app_role() -> str:
    """The unprivileged role the application's connections act as.

    Raises:
        ImproperlyConfigured: the name is not a plain lower-case identifier.
    """
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    role = getattr(settings, "DATABASE_APP_ROLE", DEFAULT_APP_ROLE)
    if not _ROLE_NAME.match(role):
        raise ImproperlyConfigured(
            f"DATABASE_APP_ROLE must be a lower-case PostgreSQL identifier (letters, digits, _), not {role!r}."
        )
    return role


def desired_state(role: str) -> tuple[str, str]:
    """(role, app.store_id) that this context's statements must run with."""
    store_id = _db_store.get()
    return (LOGIN_ROLE if _bypass.get() else role, "" if store_id is None else str(store_id))


def sync_connection(connection: BaseDatabaseWrapper) -> None:
    """Apply this context's state now, before using a raw driver cursor on ``connection``."""
    sync = getattr(connection, "rls_sync", None)
    if sync is not None:
        connection.ensure_connection()
        sync(force=True)


# ---------------------------------------------------------------------------------------------
# The schema side: role, grants, policies


def is_postgres(connection: BaseDatabaseWrapper) -> bool:
    return connection.vendor == "postgresql"


def rls_models(apps: Apps) -> list[type[Model]]:
    """Concrete models, except ``RLS_EXEMPT_MODELS``, with a ``store`` foreign key to ``tenants.Store``."""
    found = []
    for app_config in apps.get_app_configs():
        for model in app_config.get_models():
            opts = model._meta
            if opts.abstract or opts.proxy or not opts.managed or opts.label_lower in RLS_EXEMPT_MODELS:
                continue
            try:
                field = opts.get_field("store")
            except FieldDoesNotExist:
                continue  # not store-scoped
            related = getattr(field, "related_model", None)
            if related is not None and related._meta.label_lower == "tenants.store":
                found.append(model)
    return found


def rls_child_models(apps: Apps) -> list[type[Model]]:
    """The installed models of ``RLS_CHILDREN`` (fenced through their parent row)."""
    found = []
    for label in RLS_CHILDREN:
        try:
            found.append(apps.get_model(label))
        except LookupError:
            continue
    return found


def fenced_tables(apps: Apps) -> list[str]:
    """Every table the policy must cover."""
    return [m._meta.db_table for m in (*rls_models(apps), *rls_child_models(apps))]


def worker_only_tables(apps: Apps) -> list[str]:
    """The tables of ``RLS_WORKER_ONLY_APPS`` that the app role must not touch."""
    tables = []
    for label in RLS_WORKER_ONLY_APPS:
        try:
            app_config = apps.get_app_config(label)
        except LookupError:
            continue
        tables += [m._meta.db_table for m in app_config.get_models() if m._meta.managed and not m._meta.proxy]
    return tables


def _foreign_key(model: type[Model], name: str) -> ForeignKey:
    field = model._meta.get_field(name)
    if not isinstance(field, ForeignKey) or not isinstance(field.related_model, type):
        raise ImproperlyConfigured(f"{model._meta.label}.{name} must be a foreign key for row-level security.")
    return field


def _targets(models: Iterable[type[Model]]) -> dict[str, str]:
    """db_table -> the store column, for the given models."""
    return {m._meta.db_table: _foreign_key(m, "store").column for m in models}


def _child_expression(model: type[Model], quote_name) -> str:
    """A child row is visible while its parent row is (the parent's own policy applies inside)."""
    field = _foreign_key(model, RLS_CHILDREN[model._meta.label_lower])
    parent = field.related_model._meta
    return (
        f"EXISTS (SELECT 1 FROM {quote_name(parent.db_table)} AS parent "
        f"WHERE parent.{quote_name(parent.pk.column)} = {quote_name(model._meta.db_table)}.{quote_name(field.column)})"
    )


def policy_expression(column: str, quote_name) -> str:
    return f"{quote_name(column)} = NULLIF(current_setting('{SETTING}', true), '')::bigint"


class TableStatus(NamedTuple):
    enabled: bool
    forced: bool
    has_policy: bool

    @property
    def fenced(self) -> bool:
        return self.enabled and self.forced and self.has_policy


def table_status(connection: BaseDatabaseWrapper, tables: Iterable[str]) -> dict[str, TableStatus]:
    """The row-level security state of those of ``tables`` that exist in the current schema."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
                   EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = %s)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY(%s)
            """,
            [POLICY_NAME, list(tables)],
        )
        return {name: TableStatus(enabled, forced, has_policy) for name, enabled, forced, has_policy in cursor.fetchall()}


def role_exists(connection: BaseDatabaseWrapper, role: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        return cursor.fetchone() is not None


def role_can_bypass(connection: BaseDatabaseWrapper, role: str) -> bool:
    """Whether ``role`` is a superuser or has BYPASSRLS (then no policy applies to it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %s", [role])
        row = cursor.fetchone()
    return bool(row and row[0])


def login_role_can_bypass(connection: BaseDatabaseWrapper) -> bool:
    """Whether the login role (session_user) is a superuser or has BYPASSRLS."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = session_user")
        row = cursor.fetchone()
    return bool(row and row[0])


def ensure_app_role(connection: BaseDatabaseWrapper) -> None:
    """Create the app role (NOLOGIN) if missing, let the login role assume it, and grant it the tables.

    Grants cover the current schema's tables and sequences, also those created later by the
    login role (default privileges). No TRUNCATE: it ignores row-level security.
    """
    role = app_role()
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        if not role_exists(connection, role):
            # Several databases of one cluster (test runs in parallel) may race to create it.
            cursor.execute(
                f"DO $$ BEGIN CREATE ROLE {qn(role)} NOLOGIN; "
                "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
            )
        cursor.execute(
            "SELECT rolsuper, pg_has_role(session_user, %s, 'MEMBER') FROM pg_roles WHERE rolname = session_user",
            [role],
        )
        superuser, member = cursor.fetchone()
        if not superuser and not member:
            cursor.execute(f"GRANT {qn(role)} TO SESSION_USER")
        cursor.execute("SELECT current_schema()")
        schema = qn(cursor.fetchone()[0])
        for statement in (
            f"GRANT USAGE ON SCHEMA {schema} TO {qn(role)}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {qn(role)}",
            f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA {schema} TO {qn(role)}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {qn(role)}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {qn(role)}",
        ):
            cursor.execute(statement)


def app_role_privileged_tables(connection: BaseDatabaseWrapper, tables: Iterable[str]) -> list[str]:
    """Those of ``tables`` (existing ones) on which the app role holds any table privilege."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY(%s)
              AND has_table_privilege(%s, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
            ORDER BY c.relname
            """,
            [list(tables), app_role()],
        )
        return [name for (name,) in cursor.fetchall()]


def restrict_tables(connection: BaseDatabaseWrapper, tables: Iterable[str]) -> list[str]:
    """Revoke the app role's privileges on ``tables`` (idempotent). Returns the tables changed."""
    qn = connection.ops.quote_name
    role = qn(app_role())
    changed = app_role_privileged_tables(connection, tables)
    with connection.cursor() as cursor:
        for table in changed:
            cursor.execute(f"REVOKE ALL ON {qn(table)} FROM {role}")
    return changed


def unrestrict_tables(connection: BaseDatabaseWrapper, tables: Iterable[str]) -> None:
    """Undo ``restrict_tables`` (the reverse of the migration): the app role's usual grants."""
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in table_status(connection, tables):
            cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {qn(table)} TO {qn(app_role())}")


def apply_policies(
    connection: BaseDatabaseWrapper, models: Iterable[type[Model]], children: Iterable[type[Model]] = ()
) -> list[str]:
    """Fence the models' existing tables (idempotent; touches only what is missing). Returns tables changed."""
    qn = connection.ops.quote_name
    expressions = {table: policy_expression(column, qn) for table, column in _targets(models).items()}
    expressions.update({child._meta.db_table: _child_expression(child, qn) for child in children})
    status = table_status(connection, expressions)
    changed = []
    with connection.cursor() as cursor:
        for table, state in sorted(status.items()):
            if state.fenced:
                continue
            if not state.enabled:
                cursor.execute(f"ALTER TABLE {qn(table)} ENABLE ROW LEVEL SECURITY")
            if not state.forced:
                cursor.execute(f"ALTER TABLE {qn(table)} FORCE ROW LEVEL SECURITY")
            if not state.has_policy:
                expression = expressions[table]
                cursor.execute(
                    f"CREATE POLICY {qn(POLICY_NAME)} ON {qn(table)} AS PERMISSIVE FOR ALL TO PUBLIC "
                    f"USING ({expression}) WITH CHECK ({expression})"
                )
            changed.append(table)
    return changed


def remove_policies(connection: BaseDatabaseWrapper, models: Iterable[type[Model]]) -> None:
    """Undo ``apply_policies`` (the reverse of the migration)."""
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in table_status(connection, [m._meta.db_table for m in models]):
            cursor.execute(f"DROP POLICY IF EXISTS {qn(POLICY_NAME)} ON {qn(table)}")
            cursor.execute(f"ALTER TABLE {qn(table)} NO FORCE ROW LEVEL SECURITY")
            cursor.execute(f"ALTER TABLE {qn(table)} DISABLE ROW LEVEL SECURITY")


def install(connection: BaseDatabaseWrapper, apps: Apps) -> None:
    """Role, grants and policies for ``apps``' store-scoped tables, none on the worker-only ones;
    a no-op off PostgreSQL."""
    if not is_postgres(connection):
        return
    with bypass():
        ensure_app_role(connection)
        apply_policies(connection, rls_models(apps), rls_child_models(apps))
        restrict_tables(connection, worker_only_tables(apps))


def install_after_migrate(sender, *, using: str = "default", apps: Apps | None = None, **kwargs) -> None:
    """post_migrate: fence tables that migrations created after ``tenants.0003`` (every later store table)."""
    from django.apps import apps as global_apps
    from django.db import connections

    install(connections[using], apps or global_apps)
