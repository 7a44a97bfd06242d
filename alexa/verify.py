"""Verification of Alexa Skills Kit requests, as Alexa requires of endpoints it does not host.

A request is accepted only when all of these hold (any failure raises ``VerificationFailed``):

1. ``SignatureCertChainUrl`` is https, host ``s3.amazonaws.com`` (any case), port 443 if one is
   given, and its path, after decoding and normalising ``..``, starts with ``/echo.api/``.
2. The PEM chain at that URL (fetched through a replaceable fetcher, with a timeout, a size cap
   and a small in-process cache) has a signing certificate that is valid now, names
   ``echo-api.amazon.com`` in its subject alternative names, and chains to a trusted root: the
   certifi bundle plus any roots in ``ALEXA_EXTRA_ROOTS_PEM_FILE``.
3. ``Signature-256`` is a base64 RSA PKCS#1 v1.5 SHA-256 signature of the raw body by that
   certificate. The legacy SHA-1 ``Signature`` header is not accepted: Alexa sends both.
4. ``request.timestamp`` is within 150 seconds of now.
5. The skill id (``context.System.application.applicationId`` and, when present,
   ``session.application.applicationId``) equals ``ALEXA_SKILL_ID``; with none configured every
   request is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import posixpath
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.utils import CryptographyDeprecationWarning
from cryptography.x509.verification import (
    DNSName,
    PolicyBuilder,
    Store,
    VerificationError,
)
from django.conf import settings

logger = logging.getLogger(__name__)

CERT_HOST = "s3.amazonaws.com"
CERT_PATH_PREFIX = "/echo.api/"
SIGNING_NAME = "echo-api.amazon.com"
TIMESTAMP_TOLERANCE = timedelta(seconds=150)
MAX_CHAIN_BYTES = 64 * 1024
CHAIN_CACHE_SIZE = 8
CHAIN_CACHE_SECONDS = 3600.0

CertFetcher = Callable[[str, float], bytes]
"""``fetch(url, timeout_seconds) -> PEM bytes``; raises ``OSError`` or ``VerificationFailed``."""


class VerificationFailed(Exception):
    """The request is not a genuine, fresh Alexa request for this skill."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def cert_url_normalize(url: str) -> str:
    """The certificate chain URL in canonical form, if Alexa could have sent it.

    Raises:
        VerificationFailed: not https, another host or port, or a path outside /echo.api/.
    """
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        raise VerificationFailed("bad_cert_url", "The certificate URL is malformed.") from None
    if parts.scheme.lower() != "https":
        raise VerificationFailed("bad_cert_url", "The certificate URL must use https.")
    if (parts.hostname or "").lower() != CERT_HOST or parts.username is not None or parts.password is not None:
        raise VerificationFailed("bad_cert_url", "The certificate URL must be on s3.amazonaws.com.")
    if port is not None and port != 443:
        raise VerificationFailed("bad_cert_url", "The certificate URL must use port 443.")
    if parts.query or parts.fragment:
        raise VerificationFailed("bad_cert_url", "The certificate URL must not carry a query.")
    # Decode first, so "%2e%2e" cannot step out of /echo.api/ after the check.
    path = posixpath.normpath(unquote(parts.path or "/"))
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if not path.startswith(CERT_PATH_PREFIX):
        raise VerificationFailed("bad_cert_url", "The certificate URL must be under /echo.api/.")
    return urlunsplit(("https", CERT_HOST, quote(path), "", ""))


def http_fetch(url: str, timeout: float) -> bytes:
    """Download a certificate chain: no redirects, a size cap, and the given timeout."""
    import httpx

    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=False) as response:
            if response.status_code != 200:
                raise VerificationFailed("cert_unavailable", "The certificate chain could not be downloaded.")
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > MAX_CHAIN_BYTES:
                    raise VerificationFailed("bad_cert", "The certificate chain is too large.")
            return bytes(body)
    except httpx.HTTPError as exc:
        raise OSError(f"fetching {url}: {exc}") from exc


_fetcher: CertFetcher = http_fetch
_chain_cache: OrderedDict[str, tuple[float, list[x509.Certificate]]] = OrderedDict()
_roots_cache: dict[tuple[str, float], Store] = {}
_lock = threading.Lock()


def cache_clear() -> None:
    """Forget downloaded chains and loaded roots (settings or the fetcher changed)."""
    with _lock:
        _chain_cache.clear()
        _roots_cache.clear()


@contextmanager
def fetcher_override(fetcher: CertFetcher) -> Iterator[CertFetcher]:
    """Fetch certificate chains with ``fetcher`` inside the block (tests serve their own chain)."""
    global _fetcher
    previous = _fetcher
    _fetcher = fetcher
    cache_clear()
    try:
        yield fetcher
    finally:
        _fetcher = previous
        cache_clear()


def chain_load(url: str) -> list[x509.Certificate]:
    """The chain at the (already normalised) URL, signing certificate first; cached for an hour.

    Raises:
        VerificationFailed: it cannot be downloaded or parsed.
    """
    now = time.monotonic()
    with _lock:
        cached = _chain_cache.get(url)
        if cached is not None and cached[0] > now:
            _chain_cache.move_to_end(url)
            return cached[1]
    try:
        pem = _fetcher(url, float(settings.ALEXA_CERT_FETCH_TIMEOUT))
    except OSError as exc:
        logger.warning("Alexa certificate chain download failed: %s", exc)
        raise VerificationFailed("cert_unavailable", "The certificate chain could not be downloaded.") from None
    if len(pem) > MAX_CHAIN_BYTES:
        raise VerificationFailed("bad_cert", "The certificate chain is too large.")
    try:
        chain = x509.load_pem_x509_certificates(pem)
    except ValueError:
        raise VerificationFailed("bad_cert", "The certificate chain is not a PEM certificate list.") from None
    with _lock:
        _chain_cache[url] = (now + CHAIN_CACHE_SECONDS, chain)
        _chain_cache.move_to_end(url)
        while len(_chain_cache) > CHAIN_CACHE_SIZE:
            _chain_cache.popitem(last=False)
    return chain


def trust_store() -> Store:
    """The trusted roots: the certifi bundle plus ``ALEXA_EXTRA_ROOTS_PEM_FILE`` (cached per file version)."""
    import certifi

    extra = str(getattr(settings, "ALEXA_EXTRA_ROOTS_PEM_FILE", "") or "")
    try:
        version = Path(extra).stat().st_mtime if extra else 0.0
    except OSError:
        logger.error("ALEXA_EXTRA_ROOTS_PEM_FILE %r cannot be read; using the system roots only.", extra)
        extra, version = "", 0.0
    key = (extra, version)
    with _lock:
        cached = _roots_cache.get(key)
    if cached is not None:
        return cached
    with warnings.catch_warnings():
        # A few long-lived roots in the bundle carry a non-positive serial; they still load today.
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        roots = x509.load_pem_x509_certificates(Path(certifi.where()).read_bytes())
    if extra:
        try:
            roots += x509.load_pem_x509_certificates(Path(extra).read_bytes())
        except (OSError, ValueError):
            logger.error("ALEXA_EXTRA_ROOTS_PEM_FILE %r holds no readable PEM certificates; ignoring it.", extra)
    store = Store(roots)
    with _lock:
        _roots_cache.clear()
        _roots_cache[key] = store
    return store


def chain_verify(chain: list[x509.Certificate], *, now: datetime) -> x509.Certificate:
    """The signing certificate, once it is valid now, names echo-api.amazon.com and chains to a root.

    Raises:
        VerificationFailed: any of those does not hold.
    """
    if not chain:
        raise VerificationFailed("bad_cert", "The certificate chain is empty.")
    leaf, intermediates = chain[0], chain[1:]
    if not leaf.not_valid_before_utc <= now <= leaf.not_valid_after_utc:
        raise VerificationFailed("bad_cert", "The signing certificate is not valid at this time.")
    try:
        names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        dns_names = {name.lower() for name in names.get_values_for_type(x509.DNSName)}
    except (x509.ExtensionNotFound, ValueError):
        dns_names = set()
    if SIGNING_NAME not in dns_names:
        raise VerificationFailed("bad_cert", "The signing certificate is not issued to echo-api.amazon.com.")
    if not isinstance(leaf.public_key(), rsa.RSAPublicKey):
        raise VerificationFailed("bad_cert", "The signing certificate does not hold an RSA key.")
    verifier = PolicyBuilder().store(trust_store()).time(now).build_server_verifier(DNSName(SIGNING_NAME))
    try:
        verifier.verify(leaf, intermediates)
    except VerificationError as exc:
        logger.warning("Alexa certificate chain rejected: %s", exc)
        raise VerificationFailed("bad_cert", "The certificate chain does not lead to a trusted root.") from None
    return leaf


def signature_verify(leaf: x509.Certificate, *, signature: str, body: bytes) -> None:
    """Check ``Signature-256`` over the raw body.

    Raises:
        VerificationFailed: missing, not base64, or not this body signed by this certificate.
    """
    if not signature:
        raise VerificationFailed("bad_signature", "The Signature-256 header is missing.")
    try:
        raw = base64.b64decode(signature.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise VerificationFailed("bad_signature", "The request signature is not base64.") from None
    key = leaf.public_key()
    assert isinstance(key, rsa.RSAPublicKey)  # chain_verify accepts RSA keys only
    try:
        key.verify(raw, body, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise VerificationFailed("bad_signature", "The request signature does not match its body.") from None


def timestamp_check(payload: Mapping[str, Any], *, now: datetime) -> None:
    """Raises ``VerificationFailed`` unless ``request.timestamp`` is within 150 seconds of now."""
    request = payload.get("request")
    stamp = request.get("timestamp") if isinstance(request, Mapping) else None
    if not isinstance(stamp, str):
        raise VerificationFailed("bad_timestamp", "The request has no timestamp.")
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        raise VerificationFailed("bad_timestamp", "The request timestamp is malformed.") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if abs(now - when) > TIMESTAMP_TOLERANCE:
        raise VerificationFailed("stale_request", "The request timestamp is more than 150 seconds away from now.")


def application_check(payload: Mapping[str, Any]) -> None:
    """Raises ``VerificationFailed`` unless the request names this skill (``ALEXA_SKILL_ID``)."""
    expected = str(getattr(settings, "ALEXA_SKILL_ID", "") or "")
    if not expected:
        logger.error("Alexa request refused: ALEXA_SKILL_ID is not set, so no request can be trusted.")
        raise VerificationFailed("skill_not_configured", "This endpoint has no Alexa skill configured.")
    ids = []
    for container in (_dig(payload, "context", "System", "application"), _dig(payload, "session", "application")):
        if container is not None:
            ids.append(container.get("applicationId"))
    if not ids or any(found != expected for found in ids):
        raise VerificationFailed("wrong_skill", "The request is for another skill.")


def request_verify(*, body: bytes, headers: Mapping[str, str], now: datetime | None = None) -> dict[str, Any]:
    """The parsed request, once every check in the module docstring has passed.

    With ``ALEXA_VERIFY`` off (honoured only when ``DEBUG`` is on) the certificate, signature and
    timestamp checks are skipped; the skill id is always checked.

    Raises:
        VerificationFailed: the request must be refused with nothing run.
    """
    now = now or datetime.now(UTC)
    check_signature = bool(settings.ALEXA_VERIFY) or not settings.DEBUG
    if check_signature:
        url = cert_url_normalize(headers.get("SignatureCertChainUrl", ""))
        leaf = chain_verify(chain_load(url), now=now)
        signature_verify(leaf, signature=headers.get("Signature-256", ""), body=body)
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise VerificationFailed("bad_request", "The request body is not JSON.") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("request"), dict):
        raise VerificationFailed("bad_request", "The request body is not an Alexa request.")
    if check_signature:
        timestamp_check(payload, now=now)
    application_check(payload)
    return payload


def _dig(data: Any, *keys: str) -> dict[str, Any] | None:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data if isinstance(data, dict) else None
