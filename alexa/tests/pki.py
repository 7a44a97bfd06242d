"""A throwaway public-key infrastructure for Alexa request tests: a root, an intermediate and signing certificates.

Built with ``cryptography`` exactly as Amazon's chain is shaped (a leaf naming echo-api.amazon.com,
issued by an intermediate, issued by a root), so the endpoint's real verification code runs
against it; the tests trust the root through ``ALEXA_EXTRA_ROOTS_PEM_FILE``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Shelfwise Test PKI"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@dataclass
class Authority:
    key: rsa.RSAPrivateKey
    cert: x509.Certificate

    @property
    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)


def root(common_name: str = "Test Root CA") -> Authority:
    key = _key()
    now = datetime.now(UTC)
    name = _name(common_name)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=365)).not_valid_after(now + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_ca_usage(), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return Authority(key, cert)


def intermediate(issuer: Authority, common_name: str = "Test Intermediate CA") -> Authority:
    key = _key()
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name)).issuer_name(issuer.cert.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=365)).not_valid_after(now + timedelta(days=1825))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_ca_usage(), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
        .sign(issuer.key, hashes.SHA256())
    )
    return Authority(key, cert)


def signing_cert(
    issuer: Authority,
    key: rsa.RSAPrivateKey,
    *,
    names: tuple[str, ...] = ("echo-api.amazon.com",),
    valid_from: timedelta = timedelta(days=-1),
    valid_until: timedelta = timedelta(days=30),
) -> x509.Certificate:
    """A signing certificate for ``key``; ``valid_from``/``valid_until`` are offsets from now."""
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(names[0] if names else "no-san.example")).issuer_name(issuer.cert.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now + valid_from).not_valid_after(now + valid_until)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, content_commitment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                       critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
    return builder.sign(issuer.key, hashes.SHA256())


def chain_pem(*certs: x509.Certificate) -> bytes:
    return b"".join(cert.public_bytes(serialization.Encoding.PEM) for cert in certs)


def sign(key: rsa.RSAPrivateKey, body: bytes) -> str:
    """The ``Signature-256`` header value for ``body``."""
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode()


def _ca_usage() -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=True, key_encipherment=False, content_commitment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                         encipher_only=False, decipher_only=False)
