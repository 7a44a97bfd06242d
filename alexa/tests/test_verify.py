"""Request verification at POST /alexa/, as Alexa requires of endpoints it does not host.

The certificates come from a test PKI made with ``cryptography`` (root, intermediate, signing
certificate naming echo-api.amazon.com); the test root is trusted through
``ALEXA_EXTRA_ROOTS_PEM_FILE`` and the chains are served by a fake fetcher in place of S3. No model
runs: every request here is refused before the pipeline, or is a launch (answered in code).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from alexa import verify
from alexa.tests import pki
from alexa.tests.conftest import CERT_BASE, GOOD_URL, alexa_request, post
from audit.models import Record, Turn
from ledger.models import Order, ReorderDraft, StockEntry
from tenants.context import use_store
from tenants.services import token_create


@pytest.fixture
def raw_token(store):
    return token_create(store=store, name="alexa", scopes=["api"])[1]


def _books(store) -> tuple[int, ...]:
    with use_store(store):
        return (StockEntry.objects.filter(store=store).count(), ReorderDraft.objects.filter(store=store).count(),
                Order.objects.filter(store=store).count(), Turn.objects.filter(store=store).count(),
                Record.objects.filter(store=store).count())


def _refused(response, code: str) -> None:
    assert response.status_code == 400, response.content
    assert response.json()["error"] == code
    assert "response" not in response.json()


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("https://s3.amazonaws.com/echo.api/echo-api-cert.pem", "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
        ("HTTPS://s3.amazonaws.com/echo.api/echo-api-cert.pem", "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
        ("https://S3.AMAZONAWS.COM/echo.api/echo-api-cert.pem", "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
        ("https://s3.amazonaws.com:443/echo.api/echo-api-cert.pem", "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
        ("https://s3.amazonaws.com/echo.api/../echo.api/echo-api-cert.pem",
         "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
        ("https://s3.amazonaws.com/echo.api/./sub/../echo-api-cert.pem",
         "https://s3.amazonaws.com/echo.api/echo-api-cert.pem"),
    ],
)
def test_certificate_urls_that_alexa_may_send_are_accepted_in_canonical_form(url, canonical):
    assert verify.cert_url_normalize(url) == canonical


@pytest.mark.parametrize(
    "url",
    [
        "http://s3.amazonaws.com/echo.api/echo-api-cert.pem",
        "https://notamazon.com/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com.evil.example/echo.api/echo-api-cert.pem",
        "https://evil.example/s3.amazonaws.com/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com@evil.example/echo.api/echo-api-cert.pem",
        "https://user@s3.amazonaws.com/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com/EcHo.aPi/echo-api-cert.pem",
        "https://s3.amazonaws.com/invalid.path/echo-api-cert.pem",
        "https://s3.amazonaws.com/echo.api/../invalid.path/echo-api-cert.pem",
        "https://s3.amazonaws.com/echo.api/%2e%2e/invalid.path/echo-api-cert.pem",
        "https://s3.amazonaws.com/echo.api",
        "https://s3.amazonaws.com/echo.api/",
        "https://s3.amazonaws.com:563/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com:80/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com:notaport/echo.api/echo-api-cert.pem",
        "https://s3.amazonaws.com/echo.api/echo-api-cert.pem?x=1",
        "",
    ],
)
def test_certificate_urls_off_amazons_echo_api_path_are_refused_before_any_download(url, fetcher, test_pki, store,
                                                                                       raw_token):
    before = _books(store)
    with pytest.raises(verify.VerificationFailed):
        verify.cert_url_normalize(url)
    response = post(alexa_request(token=raw_token), key=test_pki.key, url=url)
    _refused(response, "bad_cert_url")
    assert fetcher.urls == []
    assert _books(store) == before


def test_a_correctly_signed_launch_is_answered_and_the_chain_is_downloaded_once(fetcher, test_pki, store, raw_token):
    first = post(alexa_request(token=raw_token), key=test_pki.key)
    second = post(alexa_request(token=raw_token), key=test_pki.key,
                  url="https://s3.amazonaws.com:443/echo.api/../echo.api/echo-api-cert-test.pem")
    assert first.status_code == 200, first.content
    assert second.status_code == 200, second.content
    assert first.json()["response"]["shouldEndSession"] is False
    assert "Corner Shop" in first.json()["response"]["outputSpeech"]["text"]
    assert fetcher.urls == [GOOD_URL]  # normalised, then served from the cache


def test_a_signature_over_another_body_is_refused(fetcher, test_pki, store, raw_token):
    before = _books(store)
    response = post(alexa_request("IntentRequest", token=raw_token, intent="AMAZON.YesIntent"), key=test_pki.key,
                    tamper=True)
    _refused(response, "bad_signature")
    assert _books(store) == before


def test_a_signature_by_another_key_is_refused(fetcher, test_pki, store, raw_token):
    response = post(alexa_request(token=raw_token), key=pki._key())
    _refused(response, "bad_signature")


@pytest.mark.parametrize("signature", ["", "not base64 at all!", "c2hvcnQ="])
def test_a_missing_or_malformed_signature_is_refused(fetcher, test_pki, store, raw_token, signature):
    response = post(alexa_request(token=raw_token), key=None, signature=signature)
    _refused(response, "bad_signature")


def test_a_request_without_a_certificate_url_is_refused(fetcher, test_pki, store, raw_token):
    _refused(post(alexa_request(token=raw_token), key=test_pki.key, url=None), "bad_cert_url")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("expired.pem", "not valid at this time"),
        ("not-yet.pem", "not valid at this time"),
        ("no-san.pem", "not issued to echo-api.amazon.com"),
        ("other-name.pem", "not issued to echo-api.amazon.com"),
        ("untrusted.pem", "does not lead to a trusted root"),
        ("no-intermediate.pem", "does not lead to a trusted root"),
        ("garbage.pem", "not a PEM certificate list"),
        ("missing.pem", "could not be downloaded"),
    ],
)
def test_a_signing_certificate_that_is_out_of_date_misnamed_or_untrusted_is_refused(
    fetcher, test_pki, store, raw_token, name, why
):
    before = _books(store)
    response = post(alexa_request("IntentRequest", token=raw_token, intent="AMAZON.YesIntent"), key=test_pki.key,
                    url=CERT_BASE + name)
    _refused(response, "cert_unavailable" if name == "missing.pem" else "bad_cert")
    assert why in response.json()["message"]
    assert fetcher.urls == [CERT_BASE + name]
    assert _books(store) == before


def test_the_test_root_is_trusted_only_because_settings_add_it(fetcher, test_pki, store, raw_token, settings):
    settings.ALEXA_EXTRA_ROOTS_PEM_FILE = ""
    verify.cache_clear()
    _refused(post(alexa_request(token=raw_token), key=test_pki.key), "bad_cert")


@pytest.mark.parametrize("offset", [timedelta(seconds=-151), timedelta(seconds=151), timedelta(days=-1)])
def test_a_request_stamped_more_than_150_seconds_away_is_refused(fetcher, test_pki, store, raw_token, offset):
    before = _books(store)
    stale = alexa_request("IntentRequest", token=raw_token, intent="AMAZON.YesIntent", at=datetime.now(UTC) + offset)
    _refused(post(stale, key=test_pki.key), "stale_request")
    assert _books(store) == before


def test_a_request_stamped_within_the_tolerance_is_accepted(fetcher, test_pki, store, raw_token):
    recent = alexa_request(token=raw_token, at=datetime.now(UTC) - timedelta(seconds=120))
    assert post(recent, key=test_pki.key).status_code == 200


def test_a_request_for_another_skill_is_refused(fetcher, test_pki, store, raw_token):
    before = _books(store)
    other = alexa_request("IntentRequest", token=raw_token, intent="AMAZON.YesIntent",
                          skill="amzn1.ask.skill.someone-else")
    _refused(post(other, key=test_pki.key), "wrong_skill")
    mixed = alexa_request(token=raw_token)
    mixed["session"]["application"]["applicationId"] = "amzn1.ask.skill.someone-else"
    _refused(post(mixed, key=test_pki.key), "wrong_skill")
    assert _books(store) == before


def test_without_a_configured_skill_id_every_request_is_refused(fetcher, test_pki, store, raw_token, settings):
    settings.ALEXA_SKILL_ID = ""
    _refused(post(alexa_request(token=raw_token), key=test_pki.key), "skill_not_configured")


def test_a_signed_body_that_is_not_an_alexa_request_is_refused(fetcher, test_pki):
    _refused(post(b"{not json", key=test_pki.key), "bad_request")
    _refused(post(json.dumps({"version": "1.0"}).encode(), key=test_pki.key), "bad_request")


def test_verification_can_be_switched_off_only_in_debug(fetcher, test_pki, store, raw_token, settings):
    settings.ALEXA_VERIFY = False
    _refused(post(alexa_request(token=raw_token), key=None, url=None), "bad_cert_url")
    settings.DEBUG = True
    assert post(alexa_request(token=raw_token), key=None, url=None).status_code == 200
    _refused(post(alexa_request(token=raw_token, skill="amzn1.ask.skill.x"), key=None, url=None), "wrong_skill")


def test_get_is_not_allowed(fetcher):
    from django.test import Client

    assert Client().get("/alexa/").status_code == 405


def test_an_oversized_body_is_refused_before_it_is_read(fetcher, test_pki):
    _refused(post(b"{" + b" " * (200 * 1024) + b"}", key=test_pki.key), "too_large")
    assert fetcher.urls == []
