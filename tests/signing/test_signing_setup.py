"""How the Town's signing key is set up and changed: documents issued without a key say they carry no
signature; a key replaced by another leaves the documents it signed valid; a configuration that cannot
sign stops the app at start, naming the setting and never the passphrase; a PKCS#12 file works; a
timestamp authority that does not answer refuses the issue and changes nothing."""
from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from inspect_api import create_app
from inspect_api.audit import AuditEntry
from inspect_api.config import TestConfig
from inspect_api.enforcement.models import Order
from inspect_api.extensions import db
from inspect_api.notifications.models import Notification
from inspect_api.renditions import UNSIGNED_NOTE, IssuedDocument

from ..pdf_support import pdf_text
from .conftest import SIGNING_OFF, signing_settings
from .pki import PASSPHRASE
from .support import issue_kind, signatures, validate


def _pdf(client, issued) -> bytes:
    r = client.get(issued.url, headers=issued.headers)
    assert r.status_code == 200, r.get_json()
    return r.data


def _common_name(status) -> str:
    return status.signing_cert.subject.native["common_name"]


def test_without_a_key_the_document_is_issued_unsigned_and_says_so(app, client, factory, cast, town_clock, tsa):
    app.config.update(SIGNING_OFF)
    before = tsa.requests
    for kind in ("order", "citation"):
        issued = issue_kind(kind, client, factory, cast, town_clock)
        data = _pdf(client, issued)
        assert signatures(data) == []
        text = pdf_text(data)
        assert UNSIGNED_NOTE in text and "Digitally signed by" not in text
        assert _pdf(client, issued) == data
    rows = db.session.scalars(select(IssuedDocument).order_by(IssuedDocument.kind)).all()
    assert [(r.kind, r.signed, r.timestamped, r.signer_subject, r.signer_fingerprint) for r in rows] == [
        ("citation", False, False, None, None), ("order", False, False, None, None)]
    assert tsa.requests == before  # nothing to timestamp


def test_a_rotated_key_leaves_the_documents_it_signed_valid(app, client, factory, cast, town_clock, pki, tsa):
    old = issue_kind("order", client, factory, cast, town_clock)
    old_pdf = _pdf(client, old)
    assert _common_name(validate(old_pdf, pki)).endswith("(key-1)")
    app.config.update(signing_settings(pki, tsa, key=1))   # the Town installs key 2
    # The order issued before is served as issued, and still validates: its certificate and timestamp
    # travel inside it, whatever key the Town signs with now.
    assert _pdf(client, old) == old_pdf
    status = validate(old_pdf, pki)
    assert status.bottom_line and status.timestamp_validity.valid, status.pretty_print_details()
    assert _common_name(status).endswith("(key-1)")
    new = issue_kind("citation", client, factory, cast, town_clock)
    status = validate(_pdf(client, new), pki)
    assert status.bottom_line and status.timestamp_validity.trusted, status.pretty_print_details()
    assert _common_name(status).endswith("(key-2)")
    assert "Digitally signed by Town of Fairhaven Stormwater Authority (key-2)." in pdf_text(_pdf(client, new))
    fingerprints = {r.kind: r.signer_fingerprint for r in db.session.scalars(select(IssuedDocument))}
    assert fingerprints["order"] != fingerprints["citation"]


def test_a_pkcs12_file_signs_with_the_chain_it_holds(app, client, factory, cast, town_clock, pki, tsa):
    settings = {**SIGNING_OFF, "SIGNING_PKCS12_FILE": str(pki.keys[1].pkcs12_file),
                "SIGNING_PKCS12_PASSPHRASE": PASSPHRASE, "SIGNING_TSA_URL": tsa.url}
    create_app(TestConfig(**settings))  # starts: the file opens and its key is its certificate's
    app.config.update(settings)
    issued = issue_kind("order", client, factory, cast, town_clock)
    status = validate(_pdf(client, issued), pki)
    # No SIGNING_CHAIN_FILE: the intermediate came from the PKCS#12 file, so the chain reaches the root.
    assert status.bottom_line and status.trusted and status.timestamp_validity.valid, status.pretty_print_details()
    assert _common_name(status).endswith("(key-2)")


def test_an_elliptic_curve_key_signs(app, client, factory, cast, town_clock, pki, tsa):
    app.config.update({**SIGNING_OFF, **pki.ec_key.settings(pki.chain_file), "SIGNING_TSA_URL": tsa.url})
    issued = issue_kind("citation", client, factory, cast, town_clock)
    status = validate(_pdf(client, issued), pki)
    assert status.bottom_line and status.timestamp_validity.valid, status.pretty_print_details()
    assert _common_name(status).endswith("(key-ec)")
    assert status.signing_cert.public_key.algorithm == "ec"


def _refused(**settings) -> str:
    with pytest.raises(RuntimeError) as caught:
        create_app(TestConfig(**{**SIGNING_OFF, **settings}))
    message = str(caught.value)
    assert PASSPHRASE not in message and "wrong" + "-passphrase" not in message
    return message


def test_a_configuration_that_cannot_sign_stops_the_start(pki, tsa, tmp_path):
    key = pki.keys[0].settings(pki.chain_file)
    assert _refused(**{**key, "SIGNING_KEY_PASSPHRASE": "wrong-passphrase"}) == \
        "SIGNING_KEY_FILE: not a PEM private key, or SIGNING_KEY_PASSPHRASE is wrong"
    assert "SIGNING_KEY_PASSPHRASE" in _refused(**{**key, "SIGNING_KEY_PASSPHRASE": None})
    assert _refused(**{**key, "SIGNING_KEY_FILE": str(pki.stranger_key_file), "SIGNING_KEY_PASSPHRASE": None}) == \
        "SIGNING_KEY_FILE: the key does not belong to the certificate in SIGNING_CERT_FILE"
    assert _refused(**{**key, "SIGNING_KEY_FILE": str(pki.stranger_key_file)}) == \
        "SIGNING_KEY_PASSPHRASE: given, but the key is not encrypted"
    assert _refused(**{**key, "SIGNING_CERT_FILE": str(tmp_path / "missing.pem")}) == \
        "SIGNING_CERT_FILE: no such file"
    assert _refused(**{**key, "SIGNING_CHAIN_FILE": str(tmp_path / "missing-chain.pem")}) == \
        "SIGNING_CHAIN_FILE: no such file"
    assert _refused(**{**key, "SIGNING_CERT_FILE": None}).startswith("SIGNING_CERT_FILE: required")
    not_pem = tmp_path / "cert.txt"
    not_pem.write_text("not a certificate")
    assert _refused(**{**key, "SIGNING_CERT_FILE": str(not_pem)}) == \
        "SIGNING_CERT_FILE: not a PEM file of certificates"
    assert _refused(SIGNING_PKCS12_FILE=str(pki.keys[0].pkcs12_file),
                    SIGNING_PKCS12_PASSPHRASE="wrong-passphrase") == \
        "SIGNING_PKCS12_FILE: not a PKCS#12 file, or SIGNING_PKCS12_PASSPHRASE is wrong"
    assert _refused(**key, SIGNING_TSA_URL="ftp://tsa.example.org").startswith("SIGNING_TSA_URL:")
    assert _refused(SIGNING_TSA_URL=tsa.url).startswith("SIGNING_TSA_URL: set, but no signing key")
    create_app(TestConfig(**{**SIGNING_OFF, **key, "SIGNING_TSA_URL": tsa.url}))  # the right settings start


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/tsa"


def _counts() -> dict:
    db.session.expire_all()
    return {model.__name__: db.session.scalar(select(func.count()).select_from(model))
            for model in (Order, IssuedDocument, Notification, AuditEntry)}


def test_timestamp_authority_down_refuses_the_issue_and_changes_nothing(app, client, factory, cast, town_clock,
                                                                        pki, tsa, tmp_path):
    from ..notifications.test_events import open_case
    case = open_case(client, factory, cast)
    app.config["SIGNING_TSA_URL"] = _closed_port_url()
    before = _counts()
    order = {"permit_id": case["id"], "kinds": ["remediation"], "deadline": "2026-05-15",
             "requirements": [{"kind": "remediation", "text": "Stabilize the cleared slope"}],
             "violated": [{"provision_kind": "bylaw", "provision": "§194-21(A)"}]}
    r = client.post("/api/v1/orders", headers=cast.sup, json=order)
    assert r.status_code == 503, r.get_json()
    body = r.get_json()
    assert body["error"] == "signing_unavailable" and body["code"] == 503
    assert body["message"] == ("The timestamp authority (SIGNING_TSA_URL) did not answer, so the document was not "
                               "issued; try again.")  # the setting named, its address not shown
    db.session.remove()
    assert _counts() == before and before["Order"] == 0 and before["IssuedDocument"] == 0
    # Nothing was stored under the issued documents' prefix either (the test's blob folder).
    assert not (tmp_path / "blobs" / "issued").exists()
    # The authority back: the same request issues the order, signed and timestamped.
    app.config["SIGNING_TSA_URL"] = tsa.url
    r = client.post("/api/v1/orders", headers=cast.sup, json=order)
    assert r.status_code == 201, r.get_json()
    assert any((tmp_path / "blobs" / "issued" / "order" / r.get_json()["id"]).iterdir())
    assert validate(_pdf(client, SimpleNamespace(url=f"/api/v1/orders/{r.get_json()['id']}.pdf",
                                                 headers=cast.sup)), pki).bottom_line


def test_timestamp_authority_down_leaves_a_notice_of_costs_unsent(app, client, factory, cast, town_clock, tsa):
    from datetime import date

    from ..enforcement.test_costs import ITEMS
    from ..notifications.test_events import issue, open_case
    case = open_case(client, factory, cast)
    owner = next(p for p in case["parties"] if p["role"] == "owner")
    order = issue(client, cast, case["id"])
    town_clock.set(date(2026, 5, 20))
    record = client.post("/api/v1/cost-recoveries", headers=cast.sup, json={
        "order_id": order["id"], "abatement_completed_on": "2026-05-18", "items": ITEMS}).get_json()
    app.config["SIGNING_TSA_URL"] = _closed_port_url()
    before = _counts()
    body = {"version": record["version"],
            "recipients": [{"party_id": owner["id"], "method": "email", "sent_on": "2026-05-20"}]}
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.sup, json=body)
    assert r.status_code == 503 and r.get_json()["error"] == "signing_unavailable", r.get_json()
    db.session.remove()
    assert _counts() == before
    stored = client.get(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.sup).get_json()
    assert stored["recipients"] == [] and stored["version"] == record["version"]
    app.config["SIGNING_TSA_URL"] = tsa.url        # the authority answers again: the same request is accepted
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.sup, json=body)
    assert r.status_code == 200, r.get_json()
    assert [n["sent_on"] for n in r.get_json()["recipients"]] == ["2026-05-20"]
