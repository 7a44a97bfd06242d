"""Row-level security on PostgreSQL: the database itself keeps each store's ledger rows apart."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.checks import run_checks
from django.db import DatabaseError, connection, transaction

from ledger import selectors
from ledger.models import Product
from tenants import rls
from tenants.context import use_store
from tests.factories import ProductFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="row-level security is PostgreSQL's")


def _count(sql: str = "SELECT count(*) FROM ledger_product", params=None) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


@pytest.fixture
def shelves(store, other_store):
    with use_store(store):
        ours = [ProductFactory(store=store, name=name) for name in ("Atta", "Ghee")]
    with use_store(other_store):
        theirs = ProductFactory(store=other_store, name="Secret sauce")
    return {"ours": ours, "theirs": theirs}


def test_the_app_queries_as_the_unprivileged_role(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (rls.app_role(), False, False)


def test_with_no_store_set_a_raw_query_sees_no_ledger_rows(shelves):
    assert _count() == 0
    assert Product.objects.count() == 0


def test_with_the_wrong_store_set_nothing_of_ours_is_visible(shelves, store, other_store):
    with use_store(other_store):
        assert _count("SELECT count(*) FROM ledger_product WHERE store_id = %s", [store.pk]) == 0
        assert _count() == 1
        assert not Product.objects.filter(pk=shelves["ours"][0].pk).exists()


def test_with_the_right_store_set_its_rows_are_visible(shelves, store):
    with use_store(store):
        assert _count() == 2
        assert {p.name for p in selectors.product_list(store=store)} == {"Atta", "Ghee"}


def test_an_insert_for_another_store_is_rejected(shelves, store, other_store):
    with use_store(other_store):
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            ProductFactory(store=store, name="Smuggled")
        # The connection is still usable and still fenced after the rollback.
        assert _count() == 1
    with use_store(store):
        assert not Product.objects.filter(name="Smuggled").exists()


def test_updates_and_deletes_cannot_reach_another_stores_rows(shelves, other_store):
    ours = shelves["ours"][0]
    with use_store(other_store):
        assert Product.objects.filter(pk=ours.pk).update(stock=0) == 0
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_product WHERE id = %s", [ours.pk])
            assert cursor.rowcount == 0
    with rls.bypass():
        assert Product.objects.get(pk=ours.pk).stock == ours.stock


def test_bypass_sees_every_store_and_ends_with_its_block(shelves):
    with rls.bypass():
        assert _count() == 3
    assert _count() == 0


def test_the_setting_follows_the_context_into_sync_to_async(shelves, store):
    async def count_in_store():
        with use_store(store):
            return await sync_to_async(Product.objects.count)()

    assert async_to_sync(count_in_store)() == 2
    assert _count() == 0


def test_leaving_the_store_resets_the_setting(shelves, store):
    with use_store(store):
        assert _count() == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('app.store_id', true)")
        assert cursor.fetchone()[0] == ""


def _session(conn) -> tuple[str, str, int]:
    """The server session's role, ``app.store_id`` and backend pid, as ``conn`` runs now."""
    with conn.cursor() as cursor:
        cursor.execute("SELECT current_user, current_setting('app.store_id', true), pg_backend_pid()")
        return cursor.fetchone()


def test_a_new_or_reconnected_connection_is_fenced_again(store, other_store):
    # A second connection (as a thread or a reconnect gets): its session starts blank.
    other = connection.copy()
    try:

        def state():
            return _session(other)[:2]

        with use_store(store):
            assert state() == (rls.app_role(), str(store.pk))
            other.close()
            assert state() == (rls.app_role(), str(store.pk))
        assert state() == (rls.app_role(), "")
        other.close()
        with use_store(other_store):
            assert state() == (rls.app_role(), str(other_store.pk))
        with rls.bypass():
            assert state()[0] != rls.app_role()
    finally:
        other.close()


def test_every_ledger_table_is_fenced_and_the_check_says_so(db):
    tables = [m._meta.db_table for m in rls.rls_models(__import__("django.apps").apps.apps)]
    assert "ledger_product" in tables and "ledger_receiptline" in tables
    status = rls.table_status(connection, tables)
    assert set(status) == set(tables) and all(state.fenced for state in status.values())
    assert [e for e in run_checks(databases=["default"]) if e.id.startswith("tenants.")] == []


def test_the_check_reports_a_ledger_table_without_its_policy(db):
    with rls.bypass(), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"DROP POLICY {rls.POLICY_NAME} ON ledger_product")
        errors = [e for e in run_checks(databases=["default"]) if e.id == "tenants.E001"]
        assert [e.obj for e in errors] == ["ledger_product"]
        transaction.set_rollback(True)


def test_a_pooled_session_handed_to_the_next_request_is_fenced_again(store, other_store):
    # The web process pools its sessions (shelfwise.env, DATABASE_POOL_MAX): a session goes back to
    # the pool with the last request's role and store set, and the next one must not inherit them.
    pooled = connection.copy(alias="rls_pool_test")
    pooled.settings_dict["CONN_MAX_AGE"] = 0
    pooled.settings_dict["OPTIONS"] = {**pooled.settings_dict["OPTIONS"], "pool": {"min_size": 1, "max_size": 1}}
    try:

        def state():
            role, setting, pid = _session(pooled)
            return pid, role, setting

        with use_store(store):
            pid, role, setting = state()
            assert (role, setting) == (rls.app_role(), str(store.pk))
        pooled.close()  # back to the pool, still set for ``store`` on the server
        assert state() == (pid, rls.app_role(), "")  # the same session, blank again
        pooled.close()
        with use_store(other_store):
            assert state() == (pid, rls.app_role(), str(other_store.pk))
        pooled.close()
        with rls.bypass():
            assert state()[1] != rls.app_role()
        pooled.close()
        assert state() == (pid, rls.app_role(), "")
    finally:
        pooled.close()
        pooled.close_pool()
