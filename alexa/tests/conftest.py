"""Fixtures for the Alexa endpoint: a trusted test PKI, its chains served by a fake fetcher, signed requests."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from alexa import verify
from alexa.tests import pki

SKILL_ID = "amzn1.ask.skill.00000000-1111-2222-3333-444444444444"
CERT_BASE = "https://s3.amazonaws.com/echo.api/"
GOOD_URL = CERT_BASE + "echo-api-cert-test.pem"


@dataclass
class Pki:
    """The trusted root, its intermediate, the signing key and chains (good and bad) by URL."""

    root: pki.Authority
    intermediate: pki.Authority
    key: Any
    chains: dict[str, bytes] = field(default_factory=dict)


@pytest.fixture(scope="session")
def test_pki() -> Pki:
    root = pki.root()
    middle = pki.intermediate(root)
    key = pki._key()
    made = Pki(root=root, intermediate=middle, key=key)
    good = pki.signing_cert(middle, key)
    made.chains[GOOD_URL] = pki.chain_pem(good, middle.cert)
    made.chains[CERT_BASE + "expired.pem"] = pki.chain_pem(
        pki.signing_cert(middle, key, valid_from=timedelta(days=-60), valid_until=timedelta(days=-1)), middle.cert)
    made.chains[CERT_BASE + "not-yet.pem"] = pki.chain_pem(
        pki.signing_cert(middle, key, valid_from=timedelta(days=1), valid_until=timedelta(days=30)), middle.cert)
    made.chains[CERT_BASE + "no-san.pem"] = pki.chain_pem(pki.signing_cert(middle, key, names=()), middle.cert)
    made.chains[CERT_BASE + "other-name.pem"] = pki.chain_pem(
        pki.signing_cert(middle, key, names=("echo-api.example.com",)), middle.cert)
    stranger_root = pki.root("Untrusted Root CA")
    stranger_middle = pki.intermediate(stranger_root, "Untrusted Intermediate CA")
    made.chains[CERT_BASE + "untrusted.pem"] = pki.chain_pem(
        pki.signing_cert(stranger_middle, key), stranger_middle.cert, stranger_root.cert)
    made.chains[CERT_BASE + "no-intermediate.pem"] = pki.chain_pem(good)
    made.chains[CERT_BASE + "garbage.pem"] = b"not a certificate"
    return made


class ChainFetcher:
    """Serves the test chains in place of S3 and records every URL it was asked for."""

    def __init__(self, chains: dict[str, bytes]) -> None:
        self.chains = chains
        self.urls: list[str] = []

    def __call__(self, url: str, timeout: float) -> bytes:
        self.urls.append(url)
        if url not in self.chains:
            raise OSError(f"404 for {url}")
        return self.chains[url]


@pytest.fixture
def fetcher(test_pki, settings, tmp_path):
    roots = tmp_path / "roots.pem"
    roots.write_bytes(test_pki.root.pem)
    settings.ALEXA_SKILL_ID = SKILL_ID
    settings.ALEXA_VERIFY = True
    settings.DEBUG = False
    settings.ALEXA_EXTRA_ROOTS_PEM_FILE = str(roots)
    fake = ChainFetcher(test_pki.chains)
    with verify.fetcher_override(fake):
        yield fake


def alexa_request(
    kind: str = "LaunchRequest",
    *,
    token: str | None = None,
    session: str | None = None,
    intent: str | None = None,
    words: str | None = None,
    skill: str = SKILL_ID,
    at: datetime | None = None,
) -> dict[str, Any]:
    """An Alexa Skills Kit request body shaped as a real Echo sends it."""
    session = session or f"amzn1.echo-api.session.{uuid.uuid4()}"
    user: dict[str, Any] = {"userId": "amzn1.ask.account.TESTUSER"}
    if token is not None:
        user["accessToken"] = token
    request: dict[str, Any] = {
        "type": kind,
        "requestId": f"amzn1.echo-api.request.{uuid.uuid4()}",
        "timestamp": (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "locale": "en-US",
    }
    if kind == "IntentRequest":
        slots = {}
        if words is not None:
            slots["request"] = {"name": "request", "value": words, "confirmationStatus": "NONE"}
        request["intent"] = {"name": intent, "confirmationStatus": "NONE", "slots": slots}
    if kind == "SessionEndedRequest":
        request["reason"] = "USER_INITIATED"
    return {
        "version": "1.0",
        "session": {"new": kind == "LaunchRequest", "sessionId": session, "application": {"applicationId": skill},
                    "user": user},
        "context": {"System": {"application": {"applicationId": skill}, "user": user,
                               "device": {"deviceId": "amzn1.ask.device.TEST", "supportedInterfaces": {}},
                               "apiEndpoint": "https://api.amazonalexa.com"}},
        "request": request,
    }


def post(
    payload: dict[str, Any] | bytes,
    *,
    key: Any,
    url: str | None = GOOD_URL,
    signature: str | None = None,
    tamper: bool = False,
):
    """POST a request to /alexa/ as Alexa does: the raw body signed with ``key``, the chain URL in a header."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {}
    if url is not None:
        headers["HTTP_SIGNATURECERTCHAINURL"] = url
    sig = signature if signature is not None else (pki.sign(key, body) if key is not None else None)
    if sig is not None:
        headers["HTTP_SIGNATURE_256"] = sig
    if tamper:
        body = body.replace(b'"en-US"', b'"en-GB"')
    return Client().post("/alexa/", data=body, content_type="application/json", **headers)
