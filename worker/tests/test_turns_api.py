"""POST /api/v1/turns through a worker: the answer within the bound, else 202 and a status URL;
retries with an Idempotency-Key run once; another store's job is not found; the `turn` command
and the web process load no model.

Tasks run eagerly (no broker, as `make test` runs); the language model is replaced at its process
boundary by ``fake_models``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from audit.models import Turn
from inference.base import Role
from inference.fake import fake_models
from ledger.models import Product
from tenants.context import use_store
from tenants.services import token_create
from worker.models import TurnJob

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
COUNT_ATTA = {"action": "update_count", "item": "atta"}


def _atta(store):
    with use_store(store):
        return Product.objects.get(store=store, name="Atta").stock


def _in(store, read):
    """What ``read()`` returns inside ``store``'s context (row-level security on PostgreSQL)."""
    with use_store(store):
        return read()


def test_a_turn_that_finishes_within_the_bound_answers_200_with_the_turn(api_client, demo, router):
    router.add(COUNT_ATTA)

    response = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["action"] == "update_count" and _atta(demo) == 15
    assert _in(demo, lambda: TurnJob.objects.get(store=demo).status) == "done"


def test_asking_for_async_answers_202_with_a_status_url_that_gives_the_answer(api_client, demo, router):
    router.add(COUNT_ATTA)

    accepted = api_client.post("/api/v1/turns?async=1", {"text": "we actually have fifteen bags of atta"}, format="json")

    assert accepted.status_code == 202
    body = accepted.json()
    assert body["status"] in ("queued", "running", "done") and accepted["Location"] == body["status_url"]
    status = api_client.get(body["status_url"])
    assert status.status_code == 200
    assert status.json()["status"] == "done" and status.json()["result"]["action"] == "update_count"


def test_when_the_database_goes_away_during_the_wait_the_caller_gets_202_not_nothing_changed(
    api_client, demo, router, monkeypatch
):
    """The job was handed over, so its worker may write: the answer is at the status URL, and a 503
    "Nothing was changed" would not be true (seen in the fault run's PostgreSQL cut)."""
    from django.db import OperationalError

    from assistant import apis

    async def database_gone(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    router.add(COUNT_ATTA)
    monkeypatch.setattr(apis, "turn_wait", database_gone)
    accepted = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json")

    assert accepted.status_code == 202 and "Nothing was changed" not in accepted.content.decode()
    assert api_client.get(accepted.json()["status_url"]).json()["status"] == "done"
    assert _atta(demo) == 15


def test_when_the_bound_passes_the_caller_gets_202_and_the_turn_still_finishes_once(api_client, demo, router, settings):
    settings.SHELFWISE_TURN_WAIT_S = 0
    router.add(COUNT_ATTA)

    accepted = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json")

    assert accepted.status_code == 202
    assert api_client.get(accepted.json()["status_url"]).json()["status"] == "done"
    assert _in(demo, Turn.objects.filter(store=demo).count) == 1


def test_a_retried_request_with_the_same_idempotency_key_runs_the_turn_once(api_client, demo, router):
    router.add(COUNT_ATTA)
    first = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json",
                            HTTP_IDEMPOTENCY_KEY="retry-1")
    again = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json",
                            HTTP_IDEMPOTENCY_KEY="retry-1")

    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert _in(demo, Turn.objects.filter(store=demo).count) == 1
    assert _in(demo, TurnJob.objects.filter(store=demo).count) == 1


def test_another_stores_job_a_missing_one_and_a_malformed_id_all_answer_404(api_client, demo, other_store, router):
    router.add(COUNT_ATTA)
    theirs = APIClient()
    theirs.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(store=other_store, name='t', scopes=['api'])[1]}")
    url = theirs.post("/api/v1/turns?async=1", {"text": "hello"}, format="json").json()["status_url"]

    answers = [api_client.get(url), api_client.get("/api/v1/turns/00000000-0000-0000-0000-000000000000"),
               api_client.get("/api/v1/turns/not-a-job")]

    assert [answer.status_code for answer in answers] == [404, 404, 404]
    assert answers[0].json() == answers[1].json() == answers[2].json()


def test_a_turn_interrupted_by_a_lost_worker_reports_failed_on_its_status_url(api_client, demo):
    with use_store(demo):
        job = TurnJob.objects.create(store=demo, channel="api", mode="router", actor="owner", text="hi",
                                     status="failed", error_code="interrupted", error="That request was interrupted.")

    status = api_client.get(f"/api/v1/turns/{job.pk}").json()

    assert status["status"] == "failed"
    assert status["error"] == {"code": "interrupted", "message": "That request was interrupted."}


def test_an_empty_recording_is_refused_before_any_job_is_made(api_client, demo):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_client.post("/api/v1/turns", {"audio": SimpleUploadedFile("a.wav", b"", content_type="audio/wav")},
                               format="multipart")

    assert response.status_code == 400 and response.json()["error"]["code"] == "empty"
    assert not _in(demo, TurnJob.objects.exists)


def test_the_turn_command_runs_through_a_job_and_prints_the_answer(demo, router):
    router.add(COUNT_ATTA)
    out = StringIO()

    call_command("turn", "we actually have fifteen bags of atta", store=demo.slug, stdout=out)

    assert json.loads(out.getvalue())["action"] == "update_count"
    assert _in(demo, lambda: TurnJob.objects.get(store=demo).channel) == "system" and _atta(demo) == 15


def test_the_web_process_hands_a_turn_over_without_loading_any_model():
    # A separate process with a broker that no worker reads (kombu's in-memory transport).
    script = """
import os, sys, json
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test import Client
from tenants.services import token_create
from tests.factories import StoreFactory
store = StoreFactory(slug="web-only")
raw = token_create(store=store, name="t", scopes=["api"])[1]
client = Client(HTTP_AUTHORIZATION="Bearer " + raw)
import shelfwise.asgi  # the ASGI app, websockets and MCP included
answer = client.post("/api/v1/turns?async=1", {"text": "where is the rice"}, content_type="application/json")
heavy = [m for m in ("torch", "xllamacpp", "faster_whisper", "ctranslate2", "transformers",
                     "sentence_transformers", "llama_cpp") if m in sys.modules]
print(json.dumps({"status": answer.status_code, "job": answer.json().get("status"), "heavy": heavy}))
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "shelfwise.settings", "CELERY_BROKER_URL": "memory://",
           "DATABASE_URL": "sqlite:///:memory:", "SHELFWISE_TURN_WAIT_S": "0"}
    env.pop("REDIS_URL", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"status": 202, "job": "queued", "heavy": []}


def test_with_the_model_server_down_the_owner_gets_a_clear_sentence_and_nothing_is_written(api_client, demo):
    from inference.config import backend_override
    from inference.openai_http import OpenAIHttpBackend
    from shelfwise.testing import closed_port

    dead = OpenAIHttpBackend(role=Role.ROUTER, base_url=f"http://127.0.0.1:{closed_port()}/v1", model="qwen", timeout_s=2)
    before = _atta(demo)
    with fake_models(Role.GUARD), backend_override(Role.ROUTER, dead):
        response = api_client.post("/api/v1/turns", {"text": "we actually have fifteen bags of atta"}, format="json")

    assert response.status_code == 200
    assert response.json()["reply"] == "Sorry, I can't think right now: the assistant's model is not available. Nothing was changed."
    assert response.json()["tool_calls"] == [] and _atta(demo) == before
