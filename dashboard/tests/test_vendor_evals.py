"""The vendor portal's pack evaluation job over HTTP: start, progress, per-action results, and who may see them.

Celery is eager here and ``DASHBOARD_BENCH_INLINE`` runs the job inside the request. Only the
router model is replaced, at its process boundary (a FakeBackend answering by the request's words;
the guard's judge says safe, the general model "Happy to help!"); the pack version, the catalog
import of its sample catalog, the pipeline, the bench runner and the routing scorer are real.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.test import Client

from packs.services import pack_install
from packs.source import BUNDLED, read_folder
from packs.validate import pack_validate
from tests.factories import UserFactory


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _corner_bakery(tmp_path: Path, vendor):
    """The bundled bakery pack as a type of the vendor's own (slug corner-bakery), stored as a draft."""
    folder = tmp_path / "corner-bakery"
    shutil.copytree(BUNDLED / "bakery", folder)
    (folder / "pack.yaml").write_text((folder / "pack.yaml").read_text().replace("slug: bakery", "slug: corner-bakery"))
    for name in ("router.json", "lexicon.json", "guard_vocabulary.json"):
        data = json.loads((folder / name).read_text())
        data["business_type"] = "corner-bakery"
        (folder / name).write_text(json.dumps(data))
    return pack_install(pack=pack_validate(read_folder(folder)), actor="tests", vendor=vendor)


def _router_answer(request) -> dict:
    text = str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1].casefold()
    if "36" in text:
        return {"action": "update_count", "item": "croissant"}
    if "sour" in text:
        return {"action": "find_product", "item": "sourdough loaf", "ask": "where"}
    if "baguet" in text:
        return {"action": "find_product", "item": "baguette", "ask": "where"}
    return {"action": "general"}


@pytest.fixture(autouse=True)
def _no_jobs_of_other_tests():
    """Jobs live in the cache, which outlives a test's database: each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def vendor(db):
    return UserFactory(username="vera", vendor=True)


@pytest.fixture
def scripted_router():
    from inference.base import Role
    from inference.fake import fake_models

    with fake_models(Role.ROUTER, default=_router_answer) as fake:
        yield fake


@pytest.mark.django_db(transaction=True)
def test_a_vendor_runs_a_drafts_evaluation_as_a_job_and_reads_its_runs_and_per_action_results(
        vendor, tmp_path, settings, scripted_router):
    from lab import tasks

    settings.DASHBOARD_BENCH_INLINE = True
    version = _corner_bakery(tmp_path, vendor)
    client = _client(vendor)

    preview = client.get("/vendors/packs/corner-bakery/1/")
    assert 'id="eval-form"' in preview.content.decode()
    response = client.post("/vendors/packs/corner-bakery/1/eval", {"runs": "2", "limit": "2"})

    assert response.status_code == 302
    job = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    assert tasks.pack_eval_latest(version.pk) == job
    progress = client.get(f"/vendors/packs/evaluations/{job}/progress").json()
    assert (progress["state"], progress["done"], progress["total"]) == ("done", 6, 6)  # 2 runs x 2 turns + 2 utterances
    [suite] = progress["result"]["suites"]
    assert [(run["passed"], run["total"]) for run in suite["runs"]] == [(2, 2), (2, 2)]
    routing = progress["result"]["routing"]
    assert (routing["action_ok"], routing["total"], routing["per_action"]) == (
        2, 2, {"find_product": {"total": 2, "action_ok": 2, "item_ok": 2}})
    page = client.get(response["Location"]).content.decode()
    assert "Done: 6 of 6." in page and "Run 2: <strong>2/2</strong>" in page
    assert '<th scope="row">find_product</th><td>2</td>' in page
    assert 'http-equiv="refresh"' not in page  # it stops polling once done
    assert tasks.active_job() is None  # the slot is free again
    prompt = scripted_router.requests[-1].messages[0]["content"]  # the first was the warm-up, on a grocery store
    assert "Croissant" in prompt and "Basmati" not in prompt  # the store held the pack's own sample catalog


def test_another_vendor_neither_starts_nor_sees_the_evaluation(vendor, tmp_path, settings, django_capture_on_commit_callbacks):
    from lab import tasks

    version = _corner_bakery(tmp_path, vendor)
    with django_capture_on_commit_callbacks(execute=False):  # queued, never run here
        job = tasks.pack_eval_start(version_id=version.pk)
    other = _client(UserFactory(username="otto", vendor=True))

    assert other.post("/vendors/packs/corner-bakery/1/eval").status_code == 404
    assert other.get(f"/vendors/packs/evaluations/{job}/").status_code == 404
    assert other.get(f"/vendors/packs/evaluations/{job}/progress").status_code == 404
    assert other.get("/vendors/packs/corner-bakery/1/").status_code == 404  # a draft of another's type
    mine = _client(vendor).get(f"/vendors/packs/evaluations/{job}/")
    assert mine.status_code == 200 and "Queued" in mine.content.decode()
    assert 'http-equiv="refresh"' in mine.content.decode()  # polled while it waits
    owner = _client(UserFactory(username="omar"))
    assert owner.get(f"/vendors/packs/evaluations/{job}/").status_code == 403


def test_a_bad_start_says_why_and_starts_nothing(vendor, tmp_path):
    from lab import tasks

    version = _corner_bakery(tmp_path, vendor)
    client = _client(vendor)
    response = client.post("/vendors/packs/corner-bakery/1/eval", {"runs": "many"})
    assert response.status_code == 400 and "Not started: Runs and the limit are whole numbers." in response.content.decode()
    response = client.post("/vendors/packs/corner-bakery/1/eval", {"runs": "9"})
    assert response.status_code == 400 and "Not started: Runs must be 1 to 5" in response.content.decode()
    assert tasks.pack_eval_latest(version.pk) is None
