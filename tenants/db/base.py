"""Django's PostgreSQL backend plus the row-level security state of ``tenants.rls``.

Before each statement Django sends, the connection is brought to the state the running context
asks for: the unprivileged app role (or the login role inside ``rls.bypass()``) and the
``app.store_id`` of ``use_store``. The applied state is remembered per connection, so only a
change costs a round trip; connecting and rolling back forget it, because a new session starts
blank and a rollback may undo a ``set_config`` made inside the transaction.
"""

from __future__ import annotations

from django.db import DatabaseError
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base as postgresql
from django.db.backends.postgresql import creation as postgresql_creation

from tenants import rls

_SYNC_SQL = "SELECT set_config('role', %s, false), set_config('app.store_id', %s, false)"


def _in_failed_transaction(raw_connection) -> bool:
    """True when the server already rejects statements until rollback (no round trip)."""
    info = getattr(raw_connection, "info", None)
    status = getattr(info, "transaction_status", None)
    # psycopg 3 and psycopg2 both number INERROR 3 (libpq's PQTRANS_INERROR).
    return status is not None and int(status) == 3


class DatabaseCreation(postgresql_creation.DatabaseCreation):
    """Test-database setup is maintenance: its snapshot of the rows (``serialized_rollback``) and
    their restoring run past the fence, which also reaches the task-result tables the app role
    may not read (``tenants.rls.RLS_WORKER_ONLY_APPS``)."""

    def serialize_db_to_string(self):
        with rls.bypass():
            return super().serialize_db_to_string()

    def deserialize_db_from_string(self, data):
        with rls.bypass():
            return super().deserialize_db_from_string(data)


class DatabaseWrapper(postgresql.DatabaseWrapper):
    creation_class = DatabaseCreation

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The no-database connection (CREATE DATABASE for tests) is maintenance, not tenant work.
        self.rls_enabled = self.alias != NO_DB_ALIAS
        self._rls_role: str | None = None
        self._rls_applied: tuple[str, str] | None = None
        if self.rls_enabled:
            # First in the list, so it is the outermost wrapper and survives
            # ``connection.execute_wrapper()`` blocks, which pop the last entry.
            self.execute_wrappers.insert(0, self._rls_execute_wrapper)

    @property
    def rls_role(self) -> str:
        if self._rls_role is None:
            self._rls_role = rls.app_role()
        return self._rls_role

    def init_connection_state(self) -> None:
        super().init_connection_state()
        # A new (or pooled) session: its role and setting are unknown until set.
        self._rls_applied = None

    def _rollback(self) -> None:
        try:
            return super()._rollback()  # type: ignore[misc]  # django-stubs leaves out the private _rollback
        finally:
            self._rls_applied = None

    def _savepoint_rollback(self, sid) -> None:
        try:
            super()._savepoint_rollback(sid)  # type: ignore[misc]  # and _savepoint_rollback
        finally:
            self._rls_applied = None

    def rls_sync(self, *, force: bool = False) -> None:
        """Apply the running context's role and store to the open connection if it differs."""
        if not self.rls_enabled or self.connection is None:
            return
        desired = rls.desired_state(self.rls_role)
        if not force and desired == self._rls_applied:
            return
        if self.needs_rollback or _in_failed_transaction(self.connection):
            # The statement that follows fails (or is the rollback); state is re-applied after it.
            self._rls_applied = None
            return
        self._rls_applied = None
        try:
            with self.wrap_database_errors, self.connection.cursor() as cursor:
                cursor.execute(_SYNC_SQL, list(desired))
        except DatabaseError as exc:
            exc.add_note(
                f"Shelfwise switches connections to the role {self.rls_role!r} for row-level security; "
                "run `python manage.py migrate` to create it (see tenants.rls)."
            )
            raise
        self._rls_applied = desired

    def _rls_execute_wrapper(self, execute, sql, params, many, context):
        self.rls_sync()
        return execute(sql, params, many, context)
