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
    "mcp_gateway_idempotencykey", "ledger_reportdelivery", "ledger_product", "worker_turnjob",
    "worker_reportdispatch", "alerts_alert", "alerts_alertpreference", "alerts_alertdigest",
    "tenants_storetoken", "tenants_invitation", "tenants_reportrecipient",
}
# Looked up before a store is known, or holding no store: outside the fence.
UNFENCED_TENANTS_TABLES = {"tenants_store", "tenants_membership", "tenants_businesstype"}
# No store column; closed to the app role, read and written by the login role only.
WORKER_ONLY_TABLES = {"django_celery_results_taskresult", "django_celery_results_groupresult",
                      "django_celery_results_chordcounter"}
on_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="row-level security is PostgreSQL's")


def test_the_fence_covers_the_audit_conversations_idempotency_the_queue_the_ledger_and_tokens():
    tables = set(rls.fenced_tables(apps))

    assert STORE_DATA_TABLES <= tables
    assert not tables & UNFENCED_TENANTS_TABLES
    assert {t for t in tables if t.startswith("tenants_")} == {
        "tenants_storetoken", "tenants_invitation", "tenants_reportrecipient"}
    assert set(rls.worker_only_tables(apps)) == WORKER_ONLY_TABLES


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
    with rls.bypass():
        assert rls.app_role_privileged_tables(connection, WORKER_ONLY_TABLES) == []


@on_postgres
def test_the_check_refuses_an_app_role_that_may_read_task_results(db):
    with rls.bypass(), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"GRANT SELECT ON django_celery_results_taskresult TO {connection.ops.quote_name(rls.app_role())}")
        errors = [e for e in run_checks(databases=["default"]) if e.id == "tenants.E006"]
        transaction.set_rollback(True)

    assert [e.obj for e in errors] == ["django_celery_results_taskresult"]


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


def _job(store, **fields):
    from worker.models import TurnJob

    with use_store(store):
        return TurnJob.objects.create(store=store, channel="api", mode="router", actor="owner", **fields)


@on_postgres
def test_a_turn_job_is_invisible_and_untouchable_outside_its_store(store, other_store):
    from worker.models import ReportDispatch, TurnJob

    theirs = _job(other_store, text="their secret order")
    with use_store(other_store):
        ReportDispatch.objects.create(store=other_store, key=f"{other_store.pk}:k", kind="sales")

    assert TurnJob.objects.count() == 0 and ReportDispatch.objects.count() == 0  # no store: nothing
    with use_store(store):
        assert not TurnJob.objects.filter(pk=theirs.pk).exists() and ReportDispatch.objects.count() == 0
        assert TurnJob.objects.filter(pk=theirs.pk).update(text="changed") == 0
        assert TurnJob.objects.filter(pk=theirs.pk).delete()[0] == 0
    with use_store(other_store):
        assert TurnJob.objects.get(pk=theirs.pk).text == "their secret order"


@on_postgres
def test_a_turn_job_cannot_be_written_into_another_store(store, other_store):
    from django.db import DatabaseError

    from worker.models import TurnJob

    with use_store(other_store), pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
        TurnJob.objects.create(store=store, channel="api", mode="router", actor="owner", text="planted")


def test_the_reaper_fails_each_stores_stale_jobs_in_that_stores_context(store, other_store, monkeypatch):
    import datetime as dt

    from django.utils import timezone

    from tenants import context
    from worker.models import TurnJob
    from worker.turns import turn_jobs_reap

    stale = [_job(each, status="queued") for each in (store, other_store)]
    with rls.bypass():
        TurnJob.objects.update(created_at=timezone.now() - dt.timedelta(hours=1))
    entered, real = [], context.use_store

    def watched(each):
        entered.append((each.pk, rls.bypass_active()))
        return real(each)

    monkeypatch.setattr(context, "use_store", watched)

    assert turn_jobs_reap() == 2
    assert entered == sorted((each.pk, False) for each in (store, other_store))
    with rls.bypass():
        assert set(TurnJob.objects.values_list("pk", "error_code")) == {(job.pk, "expired") for job in stale}


@on_postgres
def test_a_report_key_taken_by_another_stores_dispatch_is_refused_and_left_alone(store, other_store):
    from worker.models import ReportDispatch
    from worker.reports import report_dispatch

    with use_store(other_store):
        ReportDispatch.objects.create(store=other_store, key="shared-key", kind="sales", status="sending")

    with use_store(store), pytest.raises(ValueError, match="belongs to another report"):
        report_dispatch(store=store, kind="sales", key="shared-key", actor="system:test")
    with use_store(other_store):
        assert ReportDispatch.objects.get(key="shared-key").status == "sending"
