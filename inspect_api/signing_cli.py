"""`inspect-api signing test-certificate --out DIR`: a self-signed key and certificate for a demo or a
trial of signed documents (README "Signed documents"). A document it signs validates as intact, but no
reader trusts it until told to: a town signs with a certificate from a CA its readers already trust."""
from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import click
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

DEFAULT_SUBJECT = "Town of Fairhaven Stormwater Authority"
KEY_NAME, CERT_NAME = "signing-key.pem", "signing-cert.pem"
VALID_DAYS = 730


def make_test_certificate(folder: Path, subject: str, days: int = VALID_DAYS) -> tuple[Path, Path]:
    """Write a new RSA key (readable by its owner only) and a self-signed certificate for document
    signing under `folder`; never over files already there. Returns (key file, certificate file)."""
    folder.mkdir(parents=True, exist_ok=True)
    key_file, cert_file = folder / KEY_NAME, folder / CERT_NAME
    for path in (key_file, cert_file):
        if path.exists():
            raise click.ClickException(f"{path} exists; choose another folder (nothing was written)")
    key = rsa.generate_private_key(public_exponent=65537, key_size=3072)
    name = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                      x509.NameAttribute(NameOID.STATE_OR_PROVINCE_NAME, "Massachusetts"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, subject),
                      x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


@click.group("signing")
def signing_group() -> None:
    """The key that signs the documents the Town issues."""


@signing_group.command("test-certificate")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write signing-key.pem and signing-cert.pem into (made if missing).")
@click.option("--subject", default=DEFAULT_SUBJECT, show_default=True,
              help="Who the certificate names: documents say 'Digitally signed by' this.")
@click.option("--days", default=VALID_DAYS, show_default=True, type=click.IntRange(1, 3650),
              help="Days the certificate is valid.")
def test_certificate_command(out: Path, subject: str, days: int) -> None:
    """Make a self-signed key and certificate for a demo or a trial, and print the settings that use them.
    Not for documents a court will read: a reader trusts no self-signed certificate unless told to."""
    key_file, cert_file = make_test_certificate(out, subject.strip() or DEFAULT_SUBJECT, days)
    click.echo(f"wrote {key_file} (the private key: keep it readable by the app's account only)")
    click.echo(f"wrote {cert_file} (self-signed, valid {days} days)")
    click.echo("Set these in the app's environment and restart it:")
    click.echo(f"SIGNING_KEY_FILE={key_file.resolve()}")
    click.echo(f"SIGNING_CERT_FILE={cert_file.resolve()}")


commands = [signing_group]
