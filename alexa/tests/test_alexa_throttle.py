"""The linked token's turn rate on POST /alexa/: over it, a spoken ASK answer (never a 429) and nothing runs.

Requests are signed with the test PKI and verified by the real code; the router's language model
is a ``FakeBackend`` (its process boundary); the throttle counts in the configured cache.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from alexa.tests.conftest import alexa_request, post
from alexa.views import SLOW_DOWN
from audit.models import Turn
from ledger.models import Order, ReorderDraft
from shelfwise.throttling import CallerRateThrottle
from tenants.context import use_store
from tenants.services import token_create

SESSION = "amzn1.echo-api.session.7d0c7a52-1f0e-4a3b-8c55-0d6f5b1e9a77"


@pytest.fixture(autouse=True)
def two_turns_a_minute(monkeypatch):
    cache.clear()
    monkeypatch.setattr(CallerRateThrottle, "THROTTLE_RATES", {"turns": "2/min", "writes": "100/min"})
    yield
    cache.clear()


@pytest.fixture
def raw_token(demo):
    return token_create(store=demo, name="alexa", scopes=["api", "orders:confirm"])[1]


def _ask(key, token, words=None, intent="OwnerRequestIntent", kind="IntentRequest"):
    response = post(alexa_request(kind, token=token, intent=intent, words=words, session=SESSION), key=key)
    assert response.status_code == 200, response.content
    return response.json()


def _turns(store) -> int:
    with use_store(store):
        return Turn.objects.filter(store=store).count()


def _where(router, count):
    for _ in range(count):
        router.add({"action": "find_product", "item": "gur", "ask": "where"})


def test_a_turn_over_the_rate_gets_a_spoken_answer_and_nothing_runs(fetcher, test_pki, demo, raw_token, router):
    _where(router, 3)

    answers = [_ask(test_pki.key, raw_token, "where is the gur") for _ in range(3)]

    assert all("Aisle 1" in answer["response"]["outputSpeech"]["text"] for answer in answers[:2])
    assert answers[2] == {
        "version": "1.0",
        "response": {
            "outputSpeech": {"type": "PlainText", "text": "You're asking faster than I can keep up. Try again in a minute."},
            "shouldEndSession": False,
            "card": {"type": "Simple", "title": "Corner Shop", "content": SLOW_DOWN},
        },
    }
    assert len(router.requests) == 2 and _turns(demo) == 2


def test_a_yes_over_the_rate_places_nothing(fetcher, test_pki, demo, raw_token, router):
    router.add({"action": "draft_restock"})
    _where(router, 1)
    _ask(test_pki.key, raw_token, "restock all the low stuff")
    _ask(test_pki.key, raw_token, "where is the gur")  # the offer stands; the budget is spent

    yes = _ask(test_pki.key, raw_token, intent="AMAZON.YesIntent")

    assert yes["response"]["outputSpeech"]["text"] == SLOW_DOWN
    with use_store(demo):
        assert ReorderDraft.objects.filter(store=demo).count() == 1
        assert not Order.objects.filter(store=demo).exists()
    assert _turns(demo) == 2


def test_alexa_and_the_rest_api_share_the_tokens_budget(fetcher, test_pki, demo, raw_token, router):
    _where(router, 2)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_token}")
    assert client.post("/api/v1/turns", {"text": ""}, format="json").status_code == 400  # counted, nothing ran

    first, second = _ask(test_pki.key, raw_token, "where is the gur"), _ask(test_pki.key, raw_token, "where is the gur")

    assert "Aisle 1" in first["response"]["outputSpeech"]["text"]
    assert second["response"]["outputSpeech"]["text"] == SLOW_DOWN
    assert client.post("/api/v1/turns", {"text": ""}, format="json").status_code == 429
    assert len(router.requests) == 1


def test_each_linked_token_has_its_own_budget(fetcher, test_pki, demo, raw_token, router):
    _where(router, 3)
    other = token_create(store=demo, name="second echo", scopes=["api"])[1]
    [_ask(test_pki.key, raw_token, "where is the gur") for _ in range(3)]

    answer = _ask(test_pki.key, other, "where is the gur")

    assert "Aisle 1" in answer["response"]["outputSpeech"]["text"]
    assert len(router.requests) == 3


def test_launch_help_and_stop_run_no_turn_and_are_not_counted(fetcher, test_pki, demo, raw_token, router):
    _where(router, 2)
    _ask(test_pki.key, raw_token, kind="LaunchRequest")
    _ask(test_pki.key, raw_token, intent="AMAZON.HelpIntent")
    _ask(test_pki.key, raw_token, intent="AMAZON.StopIntent")

    answers = [_ask(test_pki.key, raw_token, "where is the gur") for _ in range(2)]

    assert all("Aisle 1" in answer["response"]["outputSpeech"]["text"] for answer in answers)
