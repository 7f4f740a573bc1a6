"""A test PKI for signed documents, as a town's would be: a root CA, an intermediate CA under it that
issues the Town's document-signing certificates (two RSA ones, for key rotation, and an elliptic-curve
one), and a timestamp authority (RFC 3161) whose certificate the root issues, served over HTTP on
127.0.0.1 by `TimestampServer`.

The certificates carry no CRL or OCSP addresses: a validator told to trust the root finds the chain
complete and nothing to fetch."""
from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

PASSPHRASE = "correct horse battery staple"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Town of Fairhaven test PKI"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _usage(**on: bool) -> x509.KeyUsage:
    names = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
             "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    return x509.KeyUsage(**{n: on.get(n, False) for n in names})


def _issue(subject: str, key, issuer: x509.Certificate | None, issuer_key, *, ca: bool,
           usage: x509.KeyUsage, eku: list | None = None) -> x509.Certificate:
    now = dt.datetime.now(dt.timezone.utc)
    name = _name(subject)
    builder = (x509.CertificateBuilder().subject_name(name)
               .issuer_name(issuer.subject if issuer else name).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=365))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(usage, critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if issuer is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.public_key()), critical=False)
    if eku:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=True)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def asn1(cert: x509.Certificate) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))


@dataclass(frozen=True)
class SigningKey:
    """One of the Town's signing certificates, written as a town would install it."""
    certificate: x509.Certificate
    key_file: Path            # PEM, encrypted with PASSPHRASE
    cert_file: Path           # PEM, the Town's certificate alone
    pkcs12_file: Path         # key, certificate and intermediate, encrypted with PASSPHRASE

    def settings(self, chain_file: Path) -> dict:
        return {"SIGNING_KEY_FILE": str(self.key_file), "SIGNING_CERT_FILE": str(self.cert_file),
                "SIGNING_CHAIN_FILE": str(chain_file), "SIGNING_KEY_PASSPHRASE": PASSPHRASE}


@dataclass(frozen=True)
class TestPki:
    __test__ = False
    root: x509.Certificate
    intermediate: x509.Certificate
    chain_file: Path          # PEM bundle: the intermediate
    keys: tuple[SigningKey, SigningKey]   # key 1, key 2 (rotation)
    ec_key: SigningKey        # an elliptic-curve (P-256) Town key
    tsa: DummyTimeStamper
    tsa_certificate: x509.Certificate
    stranger_key_file: Path   # a PEM key that belongs to no certificate here (unencrypted)


def _signing_key(folder: Path, label: str, intermediate, intermediate_key, key=None) -> SigningKey:
    key = key or _key()
    cert = _issue(f"Town of Fairhaven Stormwater Authority ({label})", key, intermediate, intermediate_key, ca=False,
                  usage=_usage(digital_signature=True, content_commitment=True))
    key_file, cert_file, p12 = folder / f"{label}.key.pem", folder / f"{label}.cert.pem", folder / f"{label}.p12"
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.BestAvailableEncryption(PASSPHRASE.encode())))
    cert_file.write_bytes(_pem(cert))
    p12.write_bytes(pkcs12.serialize_key_and_certificates(
        label.encode(), key, cert, [intermediate], serialization.BestAvailableEncryption(PASSPHRASE.encode())))
    return SigningKey(cert, key_file, cert_file, p12)


def make_pki(folder: Path) -> TestPki:
    folder.mkdir(parents=True, exist_ok=True)
    root_key, inter_key, tsa_key = _key(), _key(), _key()
    root = _issue("Test Root CA", root_key, None, root_key, ca=True, usage=_usage(key_cert_sign=True, crl_sign=True))
    intermediate = _issue("Test Document Signing CA", inter_key, root, root_key, ca=True,
                          usage=_usage(key_cert_sign=True, crl_sign=True))
    tsa_cert = _issue("Test Timestamp Authority", tsa_key, root, root_key, ca=False,
                      usage=_usage(digital_signature=True), eku=[ExtendedKeyUsageOID.TIME_STAMPING])
    chain_file = folder / "chain.pem"
    chain_file.write_bytes(_pem(intermediate))
    (folder / "root.pem").write_bytes(_pem(root))
    keys = (_signing_key(folder, "key-1", intermediate, inter_key),
            _signing_key(folder, "key-2", intermediate, inter_key))
    ec_key = _signing_key(folder, "key-ec", intermediate, inter_key, key=ec.generate_private_key(ec.SECP256R1()))
    stranger = folder / "stranger.key.pem"
    stranger.write_bytes(_key().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
    tsa_der_key = tsa_key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption())
    stamper = DummyTimeStamper(tsa_cert=asn1(tsa_cert), tsa_key=asn1_keys.PrivateKeyInfo.load(tsa_der_key))
    return TestPki(root, intermediate, chain_file, keys, ec_key, stamper, tsa_cert, stranger)


class TimestampServer:
    """An RFC 3161 timestamp authority over HTTP on 127.0.0.1 (a thread of the test process): each POST
    of a TimeStampReq is answered with a token signed by the test PKI's TSA. Counts the requests."""

    def __init__(self, stamper: DummyTimeStamper) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.requests += 1
                if self.headers.get("Content-Type") != "application/timestamp-query":
                    self.send_error(415)
                    return
                reply = stamper.request_tsa_response(tsp.TimeStampReq.load(body)).dump()
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args) -> None:
                pass

        self.requests = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/tsa"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
