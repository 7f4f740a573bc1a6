"""`inspect-api signing test-certificate --out DIR`: a self-signed key and certificate for a demo, made
through the CLI as an administrator would, never over files already there; a document signed with
them validates as intact (though no reader trusts a self-signed certificate until told to)."""
from __future__ import annotations

import stat

from cryptography import x509
from cryptography.x509.oid import NameOID

from inspect_api import create_app
from inspect_api.cli import main
from inspect_api.config import TestConfig

from ..pdf_support import pdf_text
from .conftest import SIGNING_OFF
from .support import issue_kind, signatures, validate


def test_test_certificate_writes_a_private_key_and_a_certificate_once(app, client, factory, cast, town_clock,
                                                                     pki, tmp_path):
    out = tmp_path / "demo-key"
    runner = app.test_cli_runner()
    result = runner.invoke(main, ["signing", "test-certificate", "--out", str(out), "--subject", "Demo Town"])
    assert result.exit_code == 0, result.output
    key_file, cert_file = out / "signing-key.pem", out / "signing-cert.pem"
    assert f"SIGNING_KEY_FILE={key_file.resolve()}" in result.output
    assert f"SIGNING_CERT_FILE={cert_file.resolve()}" in result.output
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
    assert cert.subject == cert.issuer
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "Demo Town"

    # Run again into the same folder: refused, and the files stay as they were.
    key_bytes, cert_bytes = key_file.read_bytes(), cert_file.read_bytes()
    again = runner.invoke(main, ["signing", "test-certificate", "--out", str(out)])
    assert again.exit_code == 1 and "exists" in again.output and "nothing was written" in again.output
    assert (key_file.read_bytes(), cert_file.read_bytes()) == (key_bytes, cert_bytes)

    # The app starts with them, and a document it issues is signed by them: intact, and untrusted by a
    # validator that trusts only the test PKI's root.
    settings = {**SIGNING_OFF, "SIGNING_KEY_FILE": str(key_file), "SIGNING_CERT_FILE": str(cert_file)}
    create_app(TestConfig(**settings))
    app.config.update(settings)
    issued = issue_kind("order", client, factory, cast, town_clock)
    data = client.get(issued.url, headers=issued.headers).data
    assert len(signatures(data)) == 1
    status = validate(data, pki)
    assert status.intact and status.valid and not status.trusted, status.pretty_print_details()
    assert status.signing_cert.subject.native["common_name"] == "Demo Town"
    assert status.timestamp_validity is None  # no SIGNING_TSA_URL: no timestamp
    assert "Digitally signed by Demo Town." in pdf_text(data)
