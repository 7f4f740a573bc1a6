"""Digital signatures on the documents the Town issues (orders, certificates of completion, citations,
lien certificates, notices of costs): PAdES signatures made with pyHanko (README "Signed documents").

- The Town's key and certificate come from configuration: SIGNING_KEY_FILE and SIGNING_CERT_FILE (PEM;
  an encrypted key's passphrase in SIGNING_KEY_PASSPHRASE), with SIGNING_CHAIN_FILE (a PEM bundle of
  the intermediate certificates between it and the CA's root), or one SIGNING_PKCS12_FILE with its
  passphrase in SIGNING_PKCS12_PASSPHRASE. None set: documents are issued unsigned, and say so.
- The signer's certificate and its chain are embedded in every signature, and with SIGNING_TSA_URL an
  RFC 3161 timestamp from that authority too (PAdES B-T): a validator shows when the document was
  signed, and a document signed with a key since replaced keeps validating.
- A configuration that cannot sign stops the app at start (Config.check_settings calls `check`): a file
  missing or unreadable, a wrong passphrase, a key that is not the certificate's, a half-given pair.
- The loaded key is kept per process for the files it came from (their paths and modification times),
  so a replaced file is read again by the next document signed.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any, Callable

from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from flask import current_app
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko.sign.timestamps.common_utils import TimestampRequestError
from pyhanko.sign.timestamps.requests_client import RequestsHTTPTimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore
from pyhanko_certvalidator.util import get_pyca_cryptography_hash

from .errors import ApiError

log = logging.getLogger(__name__)
DEFAULT_REASON = "Issued by the Stormwater Authority"
DEFAULT_LOCATION = "Fairhaven, MA"
FIELD_NAME = "TownSignature"
TSA_TIMEOUT_SECONDS = 20
SETTINGS = ("SIGNING_KEY_FILE", "SIGNING_CERT_FILE", "SIGNING_CHAIN_FILE", "SIGNING_KEY_PASSPHRASE",
            "SIGNING_PKCS12_FILE", "SIGNING_PKCS12_PASSPHRASE", "SIGNING_TSA_URL")
__all__ = ["DEFAULT_LOCATION", "DEFAULT_REASON", "SigningError", "check", "sign_pdf", "signer_configured",
           "signer_description", "signer_fingerprint", "signer_subject", "timestamped"]


class SigningError(ApiError):
    """The configured key cannot sign, or the timestamp authority did not answer: the document is not
    issued, and the change that issues it is not made (503; the message names the setting, never a
    passphrase)."""
    code, error, default_message = 503, "signing_unavailable", "The document could not be signed; try again."


class _KeySigner(signers.SimpleSigner):
    """pyHanko's SimpleSigner holding the key already loaded: SimpleSigner parses the key again for
    every signature it makes (twice per document, with the size estimate), and parsing an RSA key
    checks it, which costs far more than the signature itself."""

    def __init__(self, *, private_key: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._private_key = private_key

    def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
        mechanism = self.get_signature_mechanism_for_digest(digest_algorithm).signature_algo
        key, hash_algo = self._private_key, get_pyca_cryptography_hash(digest_algorithm)
        if mechanism == "rsassa_pkcs1v15" and isinstance(key, rsa.RSAPrivateKey):
            return key.sign(data, padding.PKCS1v15(), hash_algo)
        if mechanism == "ecdsa" and isinstance(key, ec.EllipticCurvePrivateKey):
            return key.sign(data, ec.ECDSA(hash_algo))
        return super().sign_raw(data, digest_algorithm)


@dataclass(frozen=True)
class LoadedSigner:
    signer: signers.SimpleSigner
    certificate: x509.Certificate
    description: str      # the certificate's common name (or its whole subject): "Digitally signed by ..."
    subject: str          # the subject as RFC 4514 text
    fingerprint: str      # hex SHA-256 of the certificate (DER)


def _get(config: Any, name: str) -> Any:
    value = config.get(name) if hasattr(config, "get") else getattr(config, name, None)
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


def _read(path: str, setting: str) -> bytes:
    try:
        return Path(path).expanduser().read_bytes()
    except OSError as exc:
        raise SigningError(f"{setting}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None


def _passphrase(value: Any) -> bytes | None:
    return value.encode("utf-8") if isinstance(value, str) else value


def _pem_certificates(data: bytes, setting: str) -> list[x509.Certificate]:
    try:
        certs = x509.load_pem_x509_certificates(data)
    except ValueError:
        raise SigningError(f"{setting}: not a PEM file of certificates") from None
    return certs


def _load_pem(config: Any) -> tuple[Any, x509.Certificate, list[x509.Certificate]]:
    key_file, cert_file = _get(config, "SIGNING_KEY_FILE"), _get(config, "SIGNING_CERT_FILE")
    if not key_file or not cert_file:
        missing = "SIGNING_CERT_FILE" if key_file else "SIGNING_KEY_FILE"
        raise SigningError(f"{missing}: required with {'SIGNING_KEY_FILE' if key_file else 'SIGNING_CERT_FILE'}")
    try:
        key = serialization.load_pem_private_key(_read(key_file, "SIGNING_KEY_FILE"),
                                                 password=_passphrase(_get(config, "SIGNING_KEY_PASSPHRASE")))
    except TypeError:
        raise SigningError("SIGNING_KEY_FILE: the key is encrypted; give its passphrase in SIGNING_KEY_PASSPHRASE"
                           if not _get(config, "SIGNING_KEY_PASSPHRASE") else
                           "SIGNING_KEY_PASSPHRASE: given, but the key is not encrypted") from None
    except ValueError:
        raise SigningError("SIGNING_KEY_FILE: not a PEM private key, or SIGNING_KEY_PASSPHRASE is wrong") from None
    certs = _pem_certificates(_read(cert_file, "SIGNING_CERT_FILE"), "SIGNING_CERT_FILE")
    chain_file = _get(config, "SIGNING_CHAIN_FILE")
    chain = _pem_certificates(_read(chain_file, "SIGNING_CHAIN_FILE"), "SIGNING_CHAIN_FILE") if chain_file else []
    return key, certs[0], certs[1:] + chain


def _load_pkcs12(config: Any) -> tuple[Any, x509.Certificate, list[x509.Certificate]]:
    path = _get(config, "SIGNING_PKCS12_FILE")
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(
            _read(path, "SIGNING_PKCS12_FILE"), _passphrase(_get(config, "SIGNING_PKCS12_PASSPHRASE")))
    except ValueError:
        raise SigningError("SIGNING_PKCS12_FILE: not a PKCS#12 file, or SIGNING_PKCS12_PASSPHRASE is wrong") from None
    if key is None or cert is None:
        raise SigningError("SIGNING_PKCS12_FILE: holds no private key with its certificate")
    chain_file = _get(config, "SIGNING_CHAIN_FILE")
    chain = _pem_certificates(_read(chain_file, "SIGNING_CHAIN_FILE"), "SIGNING_CHAIN_FILE") if chain_file else []
    return key, cert, list(extra or []) + chain


def _description(cert: x509.Certificate) -> str:
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else cert.subject.rfc4514_string()


def _load(config: Any) -> LoadedSigner:
    if _get(config, "SIGNING_PKCS12_FILE"):
        if _get(config, "SIGNING_KEY_FILE") or _get(config, "SIGNING_CERT_FILE"):
            raise SigningError("SIGNING_PKCS12_FILE: give either it or SIGNING_KEY_FILE with SIGNING_CERT_FILE, "
                               "not both")
        key, cert, chain = _load_pkcs12(config)
    else:
        key, cert, chain = _load_pem(config)
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, public) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, public):
        raise SigningError("SIGNING_KEY_FILE: the key does not belong to the certificate in SIGNING_CERT_FILE"
                           if not _get(config, "SIGNING_PKCS12_FILE") else
                           "SIGNING_PKCS12_FILE: the key does not belong to its certificate")
    der_key = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    registry = SimpleCertificateStore()
    registry.register_multiple([asn1_x509.Certificate.load(c.public_bytes(serialization.Encoding.DER))
                                for c in chain])
    der_cert = cert.public_bytes(serialization.Encoding.DER)
    signer = _KeySigner(private_key=key, signing_cert=asn1_x509.Certificate.load(der_cert),
                        signing_key=asn1_keys.PrivateKeyInfo.load(der_key), cert_registry=registry)
    return LoadedSigner(signer, cert, _description(cert), cert.subject.rfc4514_string(),
                        hashlib.sha256(der_cert).hexdigest())


_cache: dict[tuple, LoadedSigner] = {}
_lock = threading.Lock()


def _cache_key(config: Any) -> tuple:
    stamps = []
    for name in ("SIGNING_KEY_FILE", "SIGNING_CERT_FILE", "SIGNING_CHAIN_FILE", "SIGNING_PKCS12_FILE"):
        path = _get(config, name)
        try:
            stamps.append((path, os.stat(path).st_mtime_ns) if path else None)
        except OSError:
            stamps.append((path, None))
    return (*stamps, _get(config, "SIGNING_KEY_PASSPHRASE"), _get(config, "SIGNING_PKCS12_PASSPHRASE"))


def configured(config: Any) -> bool:
    return any(_get(config, name) for name in ("SIGNING_KEY_FILE", "SIGNING_CERT_FILE", "SIGNING_PKCS12_FILE"))


def _signer(config: Any) -> LoadedSigner | None:
    if not configured(config):
        return None
    key = _cache_key(config)
    with _lock:
        loaded = _cache.get(key)
        if loaded is None:
            loaded = _cache[key] = _load(config)
        return loaded


def check(config: Any) -> None:
    """Stop the start when the signing settings cannot sign (called by Config.check_settings)."""
    tsa = _get(config, "SIGNING_TSA_URL")
    if tsa and not str(tsa).startswith(("https://", "http://")):
        raise RuntimeError("SIGNING_TSA_URL: must be an http or https address of an RFC 3161 timestamp authority")
    if tsa and not configured(config):
        raise RuntimeError("SIGNING_TSA_URL: set, but no signing key is (SIGNING_KEY_FILE and SIGNING_CERT_FILE, "
                           "or SIGNING_PKCS12_FILE)")
    for name in ("SIGNING_KEY_FILE", "SIGNING_CERT_FILE", "SIGNING_CHAIN_FILE", "SIGNING_PKCS12_FILE"):
        path = _get(config, name)
        if path and not Path(path).expanduser().is_file():
            raise RuntimeError(f"{name}: no such file")
    try:
        _signer(config)
    except SigningError as exc:
        raise RuntimeError(exc.message) from None


def signer_configured() -> bool:
    """Are documents issued now signed?"""
    return configured(current_app.config)


def signer_description() -> str | None:
    """Who signs, as a document says it ("Digitally signed by <this>"): the certificate's common name."""
    loaded = _signer(current_app.config)
    return loaded.description if loaded else None


def signer_subject() -> str | None:
    loaded = _signer(current_app.config)
    return loaded.subject if loaded else None


def signer_fingerprint() -> str | None:
    loaded = _signer(current_app.config)
    return loaded.fingerprint if loaded else None


def timestamped() -> bool:
    return bool(_get(current_app.config, "SIGNING_TSA_URL")) and signer_configured()


_timestampers: dict[str, RequestsHTTPTimeStamper] = {}


def _timestamper(url: str) -> RequestsHTTPTimeStamper:
    """One client per authority for the process: it keeps the sample token pyHanko sizes a signature
    by, so each document costs the authority one request, not two."""
    with _lock:
        found = _timestampers.get(url)
        if found is None:
            found = _timestampers[url] = RequestsHTTPTimeStamper(url, timeout=TSA_TIMEOUT_SECONDS)
        return found


def outside_event_loop(call: Callable[[], Any]) -> Any:
    """`call()`, run where no asyncio event loop is running. pyHanko's blocking functions (signing,
    validating) run their coroutines with asyncio.run, which refuses to start inside a running loop:
    a server or a test harness that keeps one running in this thread (Playwright's sync API does)
    would otherwise fail every signature. Then the call runs in a thread of its own and is waited for."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return call()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pyhanko") as pool:
        return pool.submit(call).result()


def sign_pdf(data: bytes, *, reason: str | None = None) -> bytes:
    """`data` (a PDF) with one PAdES signature of the configured key appended as an incremental update:
    the certificate and its chain embedded, and a signature timestamp when SIGNING_TSA_URL is set.
    Raises SigningError when no key is configured, or the timestamp authority cannot be reached."""
    config = current_app.config
    loaded = _signer(config)
    if loaded is None:
        raise SigningError("no signing key is configured")
    meta = signers.PdfSignatureMetadata(
        field_name=FIELD_NAME, md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES,
        reason=reason or _get(config, "SIGNING_REASON") or DEFAULT_REASON,
        location=_get(config, "SIGNING_LOCATION") or DEFAULT_LOCATION, name=loaded.description)
    tsa = _get(config, "SIGNING_TSA_URL")
    timestamper = _timestamper(tsa) if tsa else None
    out = BytesIO()
    try:
        outside_event_loop(lambda: signers.sign_pdf(IncrementalPdfFileWriter(BytesIO(data)), meta,
                                                    signer=loaded.signer, timestamper=timestamper, output=out))
    except TimestampRequestError as exc:
        # The detail (which may name the authority's address) goes to the log, not to the user.
        log.warning("signing: the timestamp authority did not answer: %s", exc)
        raise SigningError("The timestamp authority (SIGNING_TSA_URL) did not answer, so the document was not "
                           "issued; try again.") from exc
    except Exception as exc:
        log.exception("signing: the document could not be signed")
        raise SigningError() from exc
    return out.getvalue()
