"""Row-level security covers every table that holds a store's data, and the app role must obey it."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.checks import run_checks
from django.db import connection, transaction

from audit.models import Record, SqlStatement, Turn
from audit.services import CapturedStatement, tool_call_record
from tenants import rls
from tenants.context import use_store

STORE_DATA_TABLES = {
    "audit_turn", "audit_record", "audit_sqlstatement", "assistant_conversation",
    "mcp_gateway_idempotencykey", "ledger_reportdelivery", "ledger_product",
}
on_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="row-level security is PostgreSQL's")


def test_the_fence_covers_the_audit_conversations_idempotency_and_the_ledger():
    tables = set(rls.fenced_tables(apps))

    assert STORE_DATA_TABLES <= tables
    assert not any(table.startswith("tenants_") for table in tables)


def _record(store, sql: str) -> Record:
    with use_store(store):
        return tool_call_record(
            store=store, channel="mcp", actor="token:x", name="get_inventory", arguments={}, result={"ok": 1},
            outcome="ok", duration_ms=1, statements=[CapturedStatement(sql, 0.1)],
        )


@on_postgres
def test_every_store_data_table_is_fenced_and_the_checks_pass(db):
    status = rls.table_status(connection, rls.fenced_tables(apps))

    assert STORE_DATA_TABLES <= set(status)
    assert all(state.fenced for state in status.values())
    assert [e for e in run_checks(databases=["default"]) if e.id.startswith("tenants.E")] == []


@on_postgres
def test_audit_records_and_their_sql_are_invisible_outside_their_store(store, other_store):
    ours = _record(store, "SELECT 'ours'")
    _record(other_store, "SELECT 'secret of the other store'")

    assert Record.objects.count() == 0 and SqlStatement.objects.count() == 0
    with use_store(store):
        assert list(Record.objects.values_list("pk", flat=True)) == [ours.pk]
        assert list(SqlStatement.objects.values_list("sql", flat=True)) == ["SELECT 'ours'"]
    with rls.bypass():
        assert SqlStatement.objects.count() == 2


@on_postgres
def test_a_turn_cannot_be_written_into_another_store(store, other_store):
    from django.db import DatabaseError

    with use_store(other_store), pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
        Turn.objects.create(store=store, conversation="c", index=1, mode="router", channel="api", actor="x",
                            text="hi", outcome="answered")


@on_postgres
def test_the_check_refuses_an_app_role_that_bypasses_row_level_security(db):
    role = rls.app_role()
    with rls.bypass(), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER ROLE {connection.ops.quote_name(role)} BYPASSRLS")
        errors = [e for e in run_checks(databases=["default"]) if e.id == "tenants.E005"]
        transaction.set_rollback(True)

    assert len(errors) == 1 and "BYPASSRLS" in errors[0].msg
