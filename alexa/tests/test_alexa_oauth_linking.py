"""Alexa account linking through the OAuth server: the token from the code grant works on /alexa/."""

from __future__ import annotations

from django.test import Client

from alexa.tests.conftest import alexa_request, post
from audit.models import Turn
from identity.tests.oauth_flow import tokens_for
from tenants.context import use_store


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_linked_oauth_token_runs_the_owners_words_as_a_turn(fetcher, test_pki, demo, owner, router):  # noqa: F811
    token = tokens_for(_browser(owner), demo.pk, ["api"], resource=None)["access_token"]
    router.add({"action": "find_product", "item": "gur", "ask": "where"})

    response = post(alexa_request("IntentRequest", token=token, intent="OwnerRequestIntent",
                                  words="where did we put the gur"), key=test_pki.key)

    assert response.status_code == 200
    assert "Aisle 1" in response.json()["response"]["outputSpeech"]["text"]
    with use_store(demo):
        assert Turn.objects.get(store=demo).channel == "alexa"


def test_a_token_issued_for_mcp_is_asked_to_link_again(fetcher, test_pki, demo, owner, router):  # noqa: F811
    token = tokens_for(_browser(owner), demo.pk, ["api", "mcp"])["access_token"]  # bound to /mcp

    response = post(alexa_request("IntentRequest", token=token, intent="OwnerRequestIntent",
                                  words="where did we put the gur"), key=test_pki.key)

    assert response.status_code == 200
    assert response.json()["response"]["card"]["type"] == "LinkAccount"
    with use_store(demo):
        assert not Turn.objects.filter(store=demo).exists()
