"""``manage.py pack eval`` and the standard bench commands on a pack's own sample-catalog store.

Only the router model is replaced, at its process boundary (``router``: a FakeBackend answering by
the request's words); the guard's judge says safe and the general model says "Happy to help!"
(``inference.fake.fake_models``). Everything else is real: the pack's version in the database, the
catalog import of its sample catalog, the pipeline, the bench runner and the routing scorer.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from packs.source import BUNDLED, read_folder
from tenants.models import PackVersion, Store

BAKERY = BUNDLED / "bakery"
SUITE = BAKERY / "evaluation" / "suites" / "owner_session.json"
ROUTING_SET = BAKERY / "evaluation" / "routing_set.json"


def _said(request) -> str:
    content = str(request.messages[-1]["content"])
    return content.rsplit("Request:", 1)[-1].removesuffix("JSON:").strip().casefold()


def _bakery_router(request) -> dict:
    """What a router that knows the bakery's first turns would answer; its answer about the baguettes is not JSON, nor is its repair."""
    text = _said(request)
    if "36" in text:
        return {"action": "update_count", "item": "croissant"}
    if "18" in text:
        return {"action": "update_count", "item": "pain au chocolat"}
    if "baguet" in text or "was invalid" in text:
        return "baguettes, I think"  # not JSON: invalid, after the repair too
    for words, item in (("pain", "pain au chocolat"), ("sour", "sourdough loaf"), ("croissant", "croissant")):
        if words in text:
            return {"action": "find_product", "item": item, "ask": "where"}
    return {"action": "general"}


@pytest.fixture
def bakery_router():
    from inference.base import Role
    from inference.fake import fake_models

    with fake_models(Role.ROUTER, default=_bakery_router) as fake:
        yield fake


@pytest.mark.django_db(transaction=True)
def test_pack_eval_runs_the_suite_and_routing_set_on_a_draft_store_of_the_packs_sample_catalog(bakery_router):
    router = bakery_router
    stores_before = set(Store.objects.values_list("pk", flat=True))
    output = io.StringIO()

    call_command("pack", "eval", str(BAKERY), "--runs", "2", "--limit", "4", "--fast-path", "off", "--no-warm",
                 stdout=output)

    text = output.getvalue()
    version = PackVersion.objects.get(business_type__slug="bakery")
    assert (version.status, version.digest) == ("draft", read_folder(BAKERY).digest)  # installed as a draft
    assert f"Pack bakery@1+{version.digest[:12]} (draft): 2 run(s) of each suite in router mode, fast path off" in text
    assert "== Suite bakery-owner-session-v1 (4 turns, sample store) ==" in text
    assert text.count("/4 = 100.0%") >= 2  # both runs: the counts set on the sample catalog, then read back
    assert "Runs: run 1 4/4, run 2 4/4" in text
    assert "== Routing set evaluation/routing_set.json (4 utterances, sample store) ==" in text
    assert "Action:      3/4 = 75.0% (95% CI" in text
    assert "Misses (1):\n  b-002" in text and "got (invalid)" in text
    # the router was prompted with the bakery's own catalog, not the demo grocery's
    prompt = router.requests[0].messages[0]["content"]
    assert "Croissant" in prompt and "Basmati" not in prompt
    assert set(Store.objects.values_list("pk", flat=True)) == stores_before  # the throwaway stores are gone


@pytest.mark.django_db(transaction=True)
def test_bench_and_route_eval_read_a_sample_suite_and_set_from_the_pack_folder_they_sit_in(bakery_router):
    from assistant.models import BenchmarkRun

    output = io.StringIO()

    call_command("bench", "--suite", str(SUITE), "--limit", "3", "--no-warm", "--no-progress", stdout=output)
    call_command("route_eval", "--set", str(ROUTING_SET), "--limit", "3", "--fast-path", "off", "--no-warm",
                 "--no-progress", stdout=output)
    call_command("bench", "--routing", str(ROUTING_SET), "--pack", "bakery", "--limit", "3", "--repeat", "2",
                 "--fast-path", "off", "--no-warm", stdout=output)

    text = output.getvalue()
    assert "Passed: 3/3" in text
    run = BenchmarkRun.objects.filter(settings__pack__isnull=False).get()
    assert run.settings["pack"].startswith("bakery@1+") and run.settings["store"] == "sample"
    assert "pass^1" in text  # bench --routing: the same set, twice, on the stored draft named by its slug
    assert "pack bakery@1+" in text and "on its sample catalog" in text
    assert "Action:      2/3 = 66.7%" in text  # the baguettes: invalid


def test_a_sample_suite_without_its_pack_and_an_unknown_pack_are_refused_clearly(tmp_path, db):
    loose = tmp_path / "suite.json"
    loose.write_text(SUITE.read_text())

    with pytest.raises(CommandError, match=r"runs on its pack's sample catalog \('store': 'sample'\): name the pack"):
        call_command("bench", "--suite", str(loose), "--no-warm")
    with pytest.raises(CommandError, match=r"No stored pack version 'florist'"):
        call_command("pack", "eval", "florist")
    with pytest.raises(CommandError, match=r"neither a pack folder"):
        call_command("pack", "eval", "Not A Pack!")
    assert json.loads(loose.read_text())["store"] == "sample"
