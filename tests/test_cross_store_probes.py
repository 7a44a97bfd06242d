"""Cross-store probes: Charlie (owner of another store) tries every surface on Alice's store's rows.

Each probe uses Charlie's own valid credentials (session, store tokens, an OAuth token from
the consent page) and Alice's store's ids and words; the Celery probes (at the end) send
each store task Charlie's store with Alice's ids. Nothing of Alice's may come back, and
nothing of hers may change. Runs on SQLite and, in CI's second run, on PostgreSQL with
row-level security (where the database refuses too).
"""

from __future__ import annotations

import asyncio
import inspect

import pytest
from django.test import Client
from rest_framework.test import APIClient

from audit.services import tool_call_record
from audit.turns import turn_start
from identity.tests.oauth_flow import tokens_for
from ledger import services
from ledger.models import CatalogImport, Product, ReorderDraft, StockEntry
from mcp_gateway.execution import execute_tool
from mcp_gateway.policy import Caller
from tenants.context import use_store
from tenants.services import token_create

SECRET = "Alice secret saffron"


@pytest.fixture
def alice_rows(store, owner):
    """Alice's store: a product only she carries, a pending draft, an audited conversation."""
    with use_store(store):
        product = services.product_create(
            store=store, name=SECRET, unit="1 g tin", category="Spices", location="Safe, top shelf", stock=3,
            par_level=10, reorder_point=4, price="40.00", unit_cost="30.00", aliases=["kesar"], actor="system:test",
        )
        draft = services.draft_create(store=store, items=[(product, 7)], actor="system:test", source=ReorderDraft.Source.ASSISTANT)
        turn = turn_start(store=store, conversation="alice-conv", index=1, mode="router", channel="api", actor="t",
                          text=f"how much {SECRET}")
        record = tool_call_record(store=store, channel="assistant", actor="t", name="get_inventory",
                                  arguments={"item": SECRET}, result={"stock": 3}, outcome="ok", duration_ms=1,
                                  conversation="alice-conv", turn_id=turn.pk)
    return {"product": product, "draft": draft, "turn": turn, "record": record}


@pytest.fixture
def charlie(other_store, other_owner):
    with use_store(other_store):
        services.product_create(
            store=other_store, name="Claw hammer", unit="1", category="Tools", location="Aisle 9", stock=5,
            par_level=10, reorder_point=2, price="9.00", unit_cost="5.00", actor="system:test",
        )
    return other_owner


def _api(store, scopes=("api",)) -> APIClient:
    _, raw = token_create(store=store, name="probe", scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _untouched(store, rows) -> None:
    with use_store(store):
        assert Product.objects.get(pk=rows["product"].pk).stock == 3
        assert ReorderDraft.objects.get(pk=rows["draft"].pk).status == ReorderDraft.Status.PENDING


def _no_secret(response) -> None:
    assert SECRET not in response.content.decode(errors="replace")


REST_READS = ["/api/v1/products/{product}", "/api/v1/drafts/{draft}", "/api/v1/audit?conversation=alice-conv"]


@pytest.mark.parametrize("path", REST_READS)
def test_rest_with_charlies_token_finds_none_of_alices_rows(alice_rows, charlie, other_store, store, path):
    response = _api(other_store).get(path.format(product=alice_rows["product"].pk, draft=alice_rows["draft"].pk))

    assert response.status_code == 404
    _no_secret(response)


def test_rest_search_and_lists_show_only_charlies_store(alice_rows, charlie, other_store, store):
    client = _api(other_store)
    for path in ("/api/v1/products?search=saffron", "/api/v1/products?search=kesar", "/api/v1/drafts", "/api/v1/orders"):
        response = client.get(path)
        assert response.status_code == 200
        _no_secret(response)


def test_rest_writes_on_alices_draft_are_not_found_and_change_nothing(alice_rows, charlie, other_store, store):
    response = _api(other_store).post(f"/api/v1/drafts/{alice_rows['draft'].pk}", {"action": "approve"}, format="json")

    assert response.status_code in (404, 405)
    _untouched(store, alice_rows)


def test_rest_with_charlies_session_finds_none_of_alices_rows(alice_rows, charlie, store):
    client = APIClient()
    client.force_login(charlie)

    assert client.get(f"/api/v1/products/{alice_rows['product'].pk}").status_code == 404
    assert client.get("/api/v1/audit?conversation=alice-conv").status_code == 404


def test_mcp_tools_with_charlies_token_cannot_reach_alices_store(alice_rows, charlie, other_store, store):
    token, _ = token_create(store=other_store, name="probe", scopes=["mcp", "orders:confirm"])
    caller = Caller.for_token(token)

    aimed_at_alice = execute_tool("get_inventory", {"item": "kesar"}, store=store, caller=caller)
    own_store = execute_tool("get_inventory", {"item": "kesar"}, store=other_store, caller=caller)
    confirm = execute_tool("place_reorder", {"confirmed": True, "draftId": alice_rows["draft"].pk}, store=other_store,
                           caller=caller)

    assert aimed_at_alice.outcome == "denied"
    assert SECRET not in str(own_store.data) and SECRET not in own_store.message
    assert not confirm.ok or not confirm.data.get("confirmed")
    _untouched(store, alice_rows)


@pytest.mark.parametrize("path", ["/app/inventory/{product}/", "/app/approvals/", "/app/assistant/"])
def test_owner_pages_as_charlie_show_none_of_alices_rows(alice_rows, charlie, store, path):
    response = _browser(charlie).get(path.format(product=alice_rows["product"].pk))

    assert response.status_code in (200, 404)
    _no_secret(response)


def test_page_actions_on_alices_draft_are_not_found(alice_rows, charlie, store):
    browser = _browser(charlie)

    for action in ("approve", "decline"):
        assert browser.post(f"/app/approvals/{alice_rows['draft'].pk}/{action}").status_code == 404
    assert browser.post(f"/app/inventory/{alice_rows['product'].pk}/count", {"count": 0, "expected": 3}).status_code == 404
    _untouched(store, alice_rows)


@pytest.mark.parametrize("path", ["/admin/", "/admin/ledger/product/", "/ops/", "/ops/audit/turns/{turn}/",
                                  "/ops/audit/calls/{record}/"])
def test_admin_and_ops_refuse_a_store_owner(alice_rows, charlie, path):
    response = _browser(charlie).get(path.format(turn=alice_rows["turn"].pk, record=alice_rows["record"].pk))

    assert response.status_code == 403
    _no_secret(response)


def test_the_shelf_finder_of_charlies_store_never_shows_alices_shelves(alice_rows, charlie, other_store, store):
    for query in ("saffron", "kesar", SECRET):
        response = Client().get(f"/s/{other_store.slug}/find", {"q": query})
        assert response.status_code == 200
        # The page may repeat the shopper's words; Alice's shelf and product must not appear.
        assert "Safe, top shelf" not in response.content.decode()
        if query != SECRET:
            _no_secret(response)


def test_the_vendor_prompt_preview_of_alices_store_is_refused(alice_rows, charlie, store):
    response = _browser(charlie).get("/vendors/grocery/", {"store": store.slug})

    assert response.status_code == 404
    _no_secret(response)


def test_an_oauth_token_minted_for_charlies_store_reads_nothing_of_alices(alice_rows, charlie, other_store, store):
    answer = tokens_for(_browser(charlie), other_store.pk, ["api"], resource="http://testserver/api/v1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {answer['access_token']}")

    assert client.get(f"/api/v1/products/{alice_rows['product'].pk}").status_code == 404
    _no_secret(client.get("/api/v1/products?search=saffron"))


def test_charlie_cannot_consent_for_alices_store(alice_rows, charlie, store):
    from identity.tests.oauth_flow import Pkce, authorize_url, consent, register

    client_id = register()["client_id"]
    response = consent(_browser(charlie), authorize_url(client_id, Pkce.new()), store_id=store.pk, scopes=["mcp"])

    assert response.status_code == 200 and "Choose one of your stores" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_voice_socket_of_alices_store_closes_for_charlie(alice_rows, charlie, store):
    from channels.testing import WebsocketCommunicator
    from django.conf import settings

    from shelfwise.asgi import application

    cookie = _browser(charlie).cookies[settings.SESSION_COOKIE_NAME].value

    async def probe():
        socket = WebsocketCommunicator(application, f"/ws/stores/{store.slug}/voice", headers=[
            (b"origin", b"http://testserver"), (b"host", b"testserver"),
            (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())])
        connected, _ = await socket.connect(timeout=10)
        first = await socket.receive_output(timeout=10) if connected else {"type": "websocket.close"}
        await socket.disconnect()
        return first

    first = asyncio.run(probe())

    assert first["type"] == "websocket.close"
    assert SECRET not in str(first)


# -- Celery task arguments ----------------------------------------------------------------------
# Every store task (``worker.base.store_task``) is sent Charlie's store with the id of one of
# Alice's queued rows (a turn job, a report key, an import), as a forged or mixed-up message
# would be. Nothing of Alice's is read, changed or returned, the task ends cleanly (no error
# that Celery retries), and the same call with Alice's own store shows the id was live. Tasks
# are discovered from the Celery app: a store task without a probe here fails the test.

CROSS_STORE_TASKS = {  # platform maintenance: no store argument; each store's work inside its context
    "worker.tasks.drafts_expire_task", "worker.tasks.report_schedules_sync_task", "worker.tasks.turn_jobs_reap_task",
    "alerts.tasks.alerts_check_task", "lab.benchmark_run",
    "lab.pack_eval",  # a pack version's evaluation: on throwaway stores of its own, deleted afterwards
}
ALICE_CATALOG = f"sku,name,category,unit,aisle,shelf,price\nSAF-1,{SECRET} refill,Spices,1 g tin,1,safe,45.00\n"
TASK_PROBES = {}


def _task_probe(name):
    def register(probe):
        TASK_PROBES[name] = probe
        return probe

    return register


def _celery_tasks():
    from shelfwise.celery import app

    app.loader.import_default_modules()  # what a worker does at start: every app's tasks.py
    return {name: task for name, task in app.tasks.items()
            if not name.startswith("celery.") and ".tests." not in name}  # Celery's own, and tests' examples


def _run(task, store, **kwargs):
    """The task as a worker runs it (eagerly, its errors kept on the result); nothing of Alice's in it."""
    result = task.apply(kwargs={"store_id": store.pk, **kwargs}, throw=False)
    assert SECRET not in repr(result.result)
    return result


def _job_state(store, job):
    from worker.models import TurnJob

    with use_store(store):
        return TurnJob.objects.filter(pk=job.pk).values_list("status", "attempts", "text", "events").first()


def _dispatch_state(store):
    from worker.models import ReportDispatch

    with use_store(store):
        return sorted(ReportDispatch.objects.filter(store=store).values_list("key", "status", "attempts"))


def _import_state(store, job):
    with use_store(store):
        return CatalogImport.objects.filter(pk=job.pk).values_list("status", "plan", "error").first()


@pytest.fixture
def alice_queue(alice_rows, store, owner, charlie, other_store):
    """Alice's queued work: a turn job a dead worker left running, a report being sent, two imports,
    and a sale that took a product below its reorder point (its alert not raised yet)."""
    from ledger.services import SaleLine, imports
    from worker.models import ReportDispatch, TurnJob
    from worker.reports import daily_key, report_moment

    with use_store(store):
        job = TurnJob.objects.create(store=store, channel="api", mode="router", actor="alice", status="running",
                                     text=f"how much {SECRET} is left", attempts=1)
        day = report_moment(store=store).date()
        for key in (f"{store.pk}:tool:abc", daily_key(store=store, kind="sales", day=day)):
            ReportDispatch.objects.create(store=store, key=key, kind="sales", status=ReportDispatch.Status.SENDING)
        uploaded, applying = (imports.import_create(store=store, kind="catalog", filename="alice.csv",
                                                    content=ALICE_CATALOG.encode(), actor="user:alice")
                              for _ in range(2))
        imports.import_preview(store=store, import_id=applying.pk)
        imports.import_apply_request(store=store, import_id=applying.pk, actor="user:alice")
        jar = services.product_create(store=store, name=f"{SECRET} jar", unit="1 jar", category="Spices", stock=5,
                                      par_level=10, reorder_point=4, price="9.00", unit_cost="6.00", actor="system:test")
        services.sale_record(store=store, lines=[SaleLine(product=jar, qty=2)], actor="system:test")
        entry = StockEntry.objects.filter(store=store, product=jar).latest("pk")
    return {"job": job, "uploaded": uploaded, "applying": applying, "entry": entry}


def _alerts(store):
    from alerts.models import Alert

    with use_store(store):
        return sorted(Alert.objects.filter(store=store).values_list("kind", "event_key"))


@_task_probe("worker.tasks.turn_task")
def _probe_turn(task, alice, charlie, rows):
    from audit.models import Turn

    job = rows["job"]
    before = _job_state(alice, job)
    for job_id in (str(job.pk), job.pk.hex, "not-a-job"):
        assert _run(task, charlie, job_id=job_id).successful()  # not Charlie's job: nothing to run, no retry
    assert _job_state(alice, job) == before
    with use_store(charlie):
        assert not Turn.objects.filter(store=charlie).exists()
    _run(task, alice, job_id=str(job.pk))  # Alice's own: the dead worker's turn is reported interrupted
    assert _job_state(alice, job)[0] == "failed"


@_task_probe("worker.tasks.speech_partial_task")
def _probe_speech_partial(task, alice, charlie, rows, monkeypatch):
    import base64

    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    import speech.transcribe
    from speech.transcribe import Transcript

    heard = []

    def model(samples, *, prompt_words=(), hearing=None, beam_size=None, preview=False):  # Whisper's process boundary
        heard.append([*prompt_words, *(term for term, _ in (hearing.terms if hearing else []))])
        return Transcript(text="how much claw hammer", language="en", duration_s=len(samples) / 16_000)

    monkeypatch.setattr(speech.transcribe, "transcribe", model)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    audio = base64.b64encode(b"\x10\x00" * 16_000).decode()
    for final in (False, True):
        assert _run(task, charlie, audio_b64=audio, sample_rate=16_000, notify=channel, seq=1, final=final).successful()
        pushed = async_to_sync(layer.receive)(channel)
        assert pushed["text"] == "how much claw hammer" and SECRET not in str(pushed)
    assert len(heard) == 2 and all("Claw hammer" in words for words in heard)
    assert not any(word.casefold() in {SECRET.casefold(), "kesar"} for words in heard for word in words)


@_task_probe("worker.tasks.daily_reports_task")
def _probe_daily_reports(task, alice, charlie, rows, mailoutbox):
    before = _dispatch_state(alice)
    outcome = _run(task, charlie).get()

    assert outcome == {"sales": "sent", "inventory": "sent"}
    assert {m.to[0] for m in mailoutbox} == {"charlie@example.com"}
    assert all(SECRET not in m.body and "Corner Shop" not in m.subject for m in mailoutbox)
    assert _dispatch_state(alice) == before
    assert _run(task, alice).get()["sales"] == "unknown"  # Alice's own run finds her report being sent


@_task_probe("worker.tasks.report_email_task")
def _probe_report_email(task, alice, charlie, rows, mailoutbox):
    before = _dispatch_state(alice)
    for key, to in (("tool:abc", None), (f"{alice.pk}:tool:abc", None), ("tool:xyz", "alice@example.com")):
        status = _run(task, charlie, kind="sales", key=key, actor="assistant:router", to=to).get()
        assert status == ("skipped" if to else "sent")  # Alice's address is not one of Charlie's recipients
    assert {m.to[0] for m in mailoutbox} == {"charlie@example.com"}
    assert all(SECRET not in m.body for m in mailoutbox)
    assert _dispatch_state(alice) == before
    assert _run(task, alice, kind="sales", key="tool:abc", actor="assistant:router").get() == "unknown"


@_task_probe("ledger.tasks.catalog_import_preview_task")
def _probe_import_preview(task, alice, charlie, rows):
    uploaded = rows["uploaded"]
    before = _import_state(alice, uploaded)
    for import_id in (uploaded.pk, str(uploaded.pk), "not-an-import"):
        assert _run(task, charlie, import_id=import_id).get() is None
    assert _import_state(alice, uploaded) == before
    assert _run(task, alice, import_id=uploaded.pk).get() == "previewed"


@_task_probe("ledger.tasks.catalog_import_apply_task")
def _probe_import_apply(task, alice, charlie, rows):
    applying = rows["applying"]
    before = _import_state(alice, applying)
    assert _run(task, charlie, import_id=applying.pk).get() is None
    assert _import_state(alice, applying) == before
    with use_store(charlie):
        assert not Product.objects.filter(store=charlie, name__icontains="saffron").exists()
    assert _run(task, alice, import_id=applying.pk).get() == "applied"


@_task_probe("alerts.tasks.stock_alert_task")
def _probe_stock_alert(task, alice, charlie, rows):
    entry = rows["entry"]
    for entry_id in (entry.pk, str(entry.pk)):
        assert _run(task, charlie, entry_id=entry_id).successful()
    assert _alerts(charlie) == [] and _alerts(alice) == []
    _run(task, alice, entry_id=entry.pk)  # Alice's own: her crossing is alerted, in her store
    assert _alerts(alice) == [("low_stock", f"stock:{entry.pk}")]


@_task_probe("alerts.tasks.alerts_store_check_task")
def _probe_alerts_check(task, alice, charlie, rows, mailoutbox):
    outcome = _run(task, charlie).get()

    assert outcome["stock"] == 0 and _alerts(charlie) == [] and _alerts(alice) == []
    assert all(SECRET not in m.body for m in mailoutbox)
    assert _run(task, alice).get()["stock"] == 1  # Alice's own check finds her crossing


def test_every_celery_task_that_takes_a_store_has_a_cross_store_probe():
    from worker.base import StoreTask

    tasks = _celery_tasks()
    store_tasks = {name for name, task in tasks.items() if isinstance(task, StoreTask)}

    assert store_tasks == set(TASK_PROBES)
    # Every other task is declared cross-store maintenance and takes no store of its own.
    assert set(tasks) - store_tasks == CROSS_STORE_TASKS
    for name in CROSS_STORE_TASKS:
        assert not any("store" in parameter for parameter in inspect.signature(tasks[name].run).parameters), name


@pytest.mark.parametrize("name", sorted(TASK_PROBES))
def test_a_store_task_sent_charlies_store_and_alices_ids_reads_and_changes_nothing_of_hers(
    name, alice_rows, alice_queue, store, other_store, monkeypatch, request
):
    probe = TASK_PROBES[name]
    wanted = inspect.signature(probe).parameters
    extra = {fixture: request.getfixturevalue(fixture) for fixture in ("mailoutbox",) if fixture in wanted}
    if "monkeypatch" in wanted:
        extra["monkeypatch"] = monkeypatch
    task = _celery_tasks()[name]
    retries = []
    monkeypatch.setattr(task, "retry", lambda *args, **kwargs: retries.append(kwargs))

    probe(task, store, other_store, alice_queue, **extra)

    assert retries == []
    _untouched(store, alice_rows)


@pytest.mark.parametrize("name", sorted(TASK_PROBES))
@pytest.mark.parametrize("store_id", [987_654, "not-a-store", True, None])
def test_a_store_task_for_a_store_that_does_not_exist_fails_closed_once(name, store_id, alice_queue, store, monkeypatch):
    from tenants.errors import StoreNotFound

    task = _celery_tasks()[name]
    retries = []
    monkeypatch.setattr(task, "retry", lambda *args, **kwargs: retries.append(kwargs))
    before = _job_state(store, alice_queue["job"]), _dispatch_state(store), _import_state(store, alice_queue["uploaded"])

    result = task.apply(kwargs={"store_id": store_id, "job_id": str(alice_queue["job"].pk),
                                "import_id": alice_queue["uploaded"].pk}, throw=False)

    assert result.failed() and isinstance(result.result, StoreNotFound) and retries == []
    assert (_job_state(store, alice_queue["job"]), _dispatch_state(store),
            _import_state(store, alice_queue["uploaded"])) == before
