"""Store tokens, invitations, report recipients and task results under row-level security, and the
few named lookups that reach past it before a store is known (``rls.fence_lookup``).

The audit: every lookup is listed here by name; each sends exactly one statement past the fence, a
SELECT by its secret-derived key with LIMIT 1, and returns the one row it found (another store's
too: finding the store is its purpose) or nothing. Outside those, ``bypass()`` is called only from
the modules named below. The fence itself (invisible, unchangeable, unplantable rows) is
PostgreSQL's; the lookups' answers are checked on SQLite as well.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone

import identity.lookups
import tenants.lookups
from tenants import rls
from tenants.context import use_store
from tenants.members import invitation_accept, invitation_create
from tenants.models import Invitation, ReportRecipient, StoreToken
from tenants.services import token_authenticate, token_create
from tenants.store_settings import recipient_add
from tests.factories import UserFactory, verified

on_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="row-level security is PostgreSQL's")

LOOKUPS = {
    "tenants.lookups.token_for_secret",
    "tenants.lookups.invitation_for_link",
    "tenants.lookups.recipient_for_link",
    "identity.lookups.access_token_with_credential",
    "identity.lookups.credential_is_active",
}
# First-party modules (not tests, migrations or scripts) that may call ``bypass()`` themselves:
# migrate/flush/checks/test-database machinery, the platform admin's views, cross-store maintenance jobs that
# read store ids only, the operator's token command, the lookups' decorator and Celery's results.
BYPASS_CALLERS = {
    "tenants/rls.py", "tenants/checks.py", "tenants/db/base.py", "tenants/management/commands/flush.py",
    "tenants/management/commands/store_token.py", "identity/admin_site.py", "identity/permissions.py",
    "mcp_gateway/execution.py", "worker/turns.py", "ledger/selectors.py", "worker/results.py",
}
APPS = ("alerts", "alexa", "assistant", "audit", "dashboard", "identity", "inference", "ledger", "mcp_gateway",
        "shelfwise", "speech", "tenants", "worker")


_CALL = re.compile(r"^\s*with\b.*\bbypass\(\)", re.MULTILINE)


def _sha(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class _PastTheFence:
    """Records each statement sent while ``bypass()`` is active."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def __call__(self, execute, sql, params, many, context):
        if rls.bypass_active():
            self.statements.append(sql)
        return execute(sql, params, many, context)


def _past_the_fence(lookup, **kwargs):
    watch = _PastTheFence()
    with connection.execute_wrapper(watch):
        found = lookup(**kwargs)
    [sql] = watch.statements
    assert sql.lstrip().upper().startswith("SELECT") and re.search(r"LIMIT 1\b", sql), sql
    return found, sql


@pytest.fixture
def stores(store, other_store):
    """Store B (``other_store``) holds a token, an invitation and a report recipient; A holds a token."""
    owner_b = verified(UserFactory(username="bea", email="bea@example.com"))
    from tenants.models import Membership

    Membership.objects.create(user=owner_b, store=other_store, role=Membership.Role.OWNER)
    ours, our_raw = token_create(store=store, name="ours", scopes=["api"])
    theirs, their_raw = token_create(store=other_store, name="theirs", scopes=["api", "mcp"])
    invitation, invitation_secret = invitation_create(store=other_store, email="new@example.com", role="staff",
                                                      invited_by=owner_b)
    recipient = recipient_add(store=other_store, email="books@other.example", actor="user:1")
    with use_store(other_store):
        recipient_secret = "recipient-link-secret"
        ReportRecipient.objects.filter(pk=recipient.pk).update(token_hash=_sha(recipient_secret))
    return {
        "ours": ours, "our_raw": our_raw, "theirs": theirs, "their_raw": their_raw, "invitation": invitation,
        "invitation_secret": invitation_secret, "recipient": recipient, "recipient_secret": recipient_secret,
    }


# ---------------------------------------------------------------------------------------------
# The audit


def test_the_lookups_past_the_fence_are_exactly_the_named_ones():
    assert set(rls.LOOKUPS) == LOOKUPS
    assert {tenants.lookups.__name__, identity.lookups.__name__} == {name.rsplit(".", 1)[0] for name in LOOKUPS}


def test_bypass_is_called_only_from_the_known_modules():
    root = Path(settings.BASE_DIR)
    callers = {
        str(path.relative_to(root))
        for app in APPS
        for path in (root / app).rglob("*.py")
        if "tests" not in path.parts and "migrations" not in path.parts and _CALL.search(path.read_text())
    }
    assert callers == BYPASS_CALLERS


def test_a_token_is_found_past_the_fence_only_with_its_secrets_hash(stores, store):
    theirs = stores["theirs"]
    secret = stores["their_raw"].split("_", 2)[2]

    with use_store(store):
        found, sql = _past_the_fence(tenants.lookups.token_for_secret, prefix=theirs.prefix, secret_hash=_sha(secret))
        missed, _ = _past_the_fence(tenants.lookups.token_for_secret, prefix=theirs.prefix, secret_hash=_sha("guess"))

    assert found.pk == theirs.pk and found.store.pk == theirs.store_id
    assert missed is None
    assert '"prefix" =' in sql and '"secret_hash" =' in sql


def test_an_invitation_and_a_recipient_are_found_past_the_fence_only_by_their_links_hash(stores, store):
    with use_store(store):
        invitation, sql_i = _past_the_fence(tenants.lookups.invitation_for_link,
                                            token_hash=_sha(stores["invitation_secret"]))
        recipient, sql_r = _past_the_fence(tenants.lookups.recipient_for_link,
                                           token_hash=_sha(stores["recipient_secret"]))
        nothing, _ = _past_the_fence(tenants.lookups.invitation_for_link, token_hash=_sha("guess"))

    assert invitation.pk == stores["invitation"].pk and recipient.pk == stores["recipient"].pk
    assert nothing is None
    assert '"token_hash" =' in sql_i and '"token_hash" =' in sql_r


def test_an_oauth_token_leads_past_the_fence_to_its_one_credential(stores, other_store):
    from oauth2_provider.models import AccessToken, Application

    from identity.models import AccessTokenBinding

    user = UserFactory(username="client-user")
    app = Application.objects.create(name="c", client_type="public", authorization_grant_type="authorization-code",
                                     redirect_uris="http://127.0.0.1/cb")
    access = AccessToken.objects.create(user=user, application=app, token="oauth-raw-secret", scope="mcp",
                                        expires=timezone.now() + dt.timedelta(hours=1))
    AccessTokenBinding.objects.create(access_token=access, credential=stores["theirs"])
    checksum = AccessToken.objects.values_list("token_checksum", flat=True).get(pk=access.pk)

    found, sql = _past_the_fence(identity.lookups.access_token_with_credential, checksum=checksum)
    live, sql_live = _past_the_fence(identity.lookups.credential_is_active, credential_id=stores["theirs"].pk)

    assert found.pk == access.pk and found.shelfwise.credential.pk == stores["theirs"].pk
    assert found.shelfwise.credential.store.pk == other_store.pk
    assert live is True and '"token_checksum" =' in sql and '"id" =' in sql_live
    with use_store(other_store):
        StoreToken.objects.filter(pk=stores["theirs"].pk).update(revoked_at=timezone.now())
    assert identity.lookups.credential_is_active(credential_id=stores["theirs"].pk) is False


# ---------------------------------------------------------------------------------------------
# The fence (PostgreSQL)


@on_postgres
def test_from_store_as_context_store_bs_tokens_invitations_and_recipients_are_invisible(stores, store):
    with use_store(store):
        assert list(StoreToken.objects.values_list("pk", flat=True)) == [stores["ours"].pk]
        assert not Invitation.objects.exists() and not ReportRecipient.objects.exists()
    assert not StoreToken.objects.exists() and not Invitation.objects.exists()  # no store: nothing


@on_postgres
def test_from_store_as_context_store_bs_rows_cannot_be_updated_or_deleted(stores, store, other_store):
    with use_store(store):
        assert StoreToken.objects.filter(pk=stores["theirs"].pk).update(revoked_at=timezone.now()) == 0
        assert StoreToken.objects.filter(pk=stores["theirs"].pk).update(last_used_at=timezone.now()) == 0
        assert Invitation.objects.filter(pk=stores["invitation"].pk).update(email="me@example.com") == 0
        assert ReportRecipient.objects.filter(pk=stores["recipient"].pk).update(confirmed_at=timezone.now()) == 0
        assert ReportRecipient.objects.filter(pk=stores["recipient"].pk).delete()[0] == 0
    with use_store(other_store):
        theirs = StoreToken.objects.get(pk=stores["theirs"].pk)
        assert theirs.revoked_at is None and theirs.last_used_at is None
        assert Invitation.objects.get().email == "new@example.com"
        assert ReportRecipient.objects.get().confirmed_at is None


@on_postgres
def test_from_store_as_context_a_token_or_recipient_cannot_be_planted_in_store_b(store, other_store):
    with use_store(store):
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            StoreToken.objects.create(store=other_store, name="planted", prefix="0123456789", secret_hash="x")
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            ReportRecipient.objects.create(store=other_store, email="spy@example.com", token_hash="y",
                                           added_by="x", created_at=timezone.now())


@on_postgres
def test_authenticating_store_bs_token_records_its_use_in_bs_context_only(stores, store, other_store):
    with use_store(store):
        token = token_authenticate(raw=stores["their_raw"], scope="api")
    assert token.store.pk == other_store.pk
    with use_store(other_store):
        assert StoreToken.objects.get(pk=token.pk).last_used_at is not None


@on_postgres
def test_an_invitation_to_store_b_is_accepted_from_another_stores_context(stores, store, other_store):
    newcomer = verified(UserFactory(username="newcomer", email="new@example.com"))

    with use_store(store):
        membership = invitation_accept(secret=stores["invitation_secret"], user=newcomer)

    assert membership.store.pk == other_store.pk
    with use_store(other_store):
        assert Invitation.objects.get().accepted_by == newcomer


@on_postgres
def test_a_recipient_confirms_store_bs_link_with_no_store_known(stores, other_store):
    assert Client().get(f"/app/reports/confirm/{stores['recipient_secret']}/").status_code == 200
    with use_store(other_store):
        assert ReportRecipient.objects.get().confirmed_at is not None


@on_postgres
@pytest.mark.filterwarnings("ignore:Results are not stored")  # eager in tests; the backend is called directly
def test_the_app_role_cannot_read_task_results_but_celerys_backend_stores_and_reads_them(store):
    from django_celery_results.models import TaskResult

    from shelfwise.celery import app

    with use_store(store):  # a store task's state is written from inside its store's context
        app.backend.store_result("rls-task-1", {"ok": 1}, "SUCCESS")
        with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic():
            list(TaskResult.objects.all())
    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic():
        TaskResult.objects.filter(task_id="rls-task-1").update(status="FAILURE")

    assert app.backend.get_task_meta("rls-task-1", cache=False)["result"] == {"ok": 1}
    with rls.bypass():
        assert TaskResult.objects.get(task_id="rls-task-1").status == "SUCCESS"
