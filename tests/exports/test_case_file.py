"""The case file (README "Case files"; issue 27 item 3): one ZIP with every record of a permit or case,
its photo originals and annotations, its documents (the signed ones as signed), its audit rows with
the seals that cover them and each notice's delivery evidence; checked offline by
`inspect-api case-file verify`, which names whatever was changed."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import tracemalloc
import uuid
import zipfile
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from inspect_api import audit_chain, audit_seals
from inspect_api.cli import main
from inspect_api.exports import case_file, case_file_verify
from inspect_api.extensions import db
from inspect_api.notifications import worker
from inspect_api.permits.models import PermitDocument
from inspect_api.storage import blob_key, get_storage

from ..authorization_world import small_pdf
from ..closeout.conftest import Closeout
from ..notifications.test_events import issue as issue_order, open_case
from ..pdf_support import pdf_text
from ..photos.helpers import jpeg, put_photo

API = "/api/v1"
CIRCLE = {"kind": "circle", "points": [[0.3, 0.3], [0.7, 0.8]], "colour": "#ffe600"}


@pytest.fixture
def case(app, client, factory, cast, town_clock, pki, tmp_path):
    """An enforcement case with an order (signed, e-mailed to the owner and the violator, the messages
    sent), a photo with markup, its rows sealed the next day and one more row made after the seal."""
    app.config["MAIL_DIR"] = str(tmp_path / "mail")
    town_clock.set(date(2026, 5, 4))
    record = open_case(client, factory, cast)
    order = issue_order(client, cast, record["id"])
    assert client.get(f"{API}/orders/{order['id']}.pdf", headers=cast.sup).status_code == 200
    original = jpeg((320, 240))
    photo = put_photo(client, cast.insp, record["id"], original)
    assert photo.status_code == 201, photo.get_json()
    photo = photo.get_json()
    drawn = client.post(f"{API}/photo-annotations", json={"id": str(uuid.uuid4()), "photo_id": photo["id"],
                                                           "shapes": [CIRCLE]}, headers=cast.insp)
    assert drawn.status_code == 201, drawn.get_json()
    plan = small_pdf()
    uploaded = client.post(f"{API}/permits/{record['id']}/document-files", data=plan, headers={
        **cast.sup, "Content-Type": "application/pdf"}, query_string={"kind": "other", "filename": "site plan.pdf"})
    assert uploaded.status_code == 201, uploaded.get_json()
    tally = worker.drain()
    assert len(tally.ids) == 2
    town_clock.set(date(2026, 5, 5))
    sealed = audit_seals.seal_finished_days()
    assert sealed
    db.session.commit()
    later = client.post(f"{API}/permits/{record['id']}/parties", headers=cast.sup, json={
        "role": "contractor", "name": "Bay Earthworks", "email": "ops@bay.example", "phone": "508-555-0100",
        "mailing_address": "9 Main St, Fairhaven, MA 02719"})
    assert later.status_code == 201, later.get_json()
    return SimpleNamespace(record=record, order=order, photo=photo, original=original, plan=plan,
                           document=uploaded.get_json())


def download(client, cast, permit_id, tmp_path, public=False, name="case.zip") -> Path:
    r = client.get(f"{API}/permits/{permit_id}/case-file.zip", headers=cast.sup,
                   query_string={"public": "true"} if public else {})
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "application/zip"
    path = tmp_path / name
    path.write_bytes(r.data)
    return path


def rewrite(source: Path, target: Path, change) -> Path:
    """A copy of the ZIP with `change(name, data) -> data` applied to every member."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            new.writestr(info, change(info.filename, old.read(info.filename)))
    return target


def manifest_of(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("manifest.json"))


def rehashed(manifest: dict, name: str, data: bytes) -> bytes:
    for entry in manifest["files"]:
        if entry["path"] == name:
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    return json.dumps(manifest).encode()


def problems(path: Path, trust=None) -> list[str]:
    report = case_file_verify.verify(path, trust)
    return [f"{check.name}: {check.detail}" for check in report.checks if not check.ok]


def test_a_case_file_holds_every_part_and_verifies(app, client, cast, case, pki, tmp_path):
    path = download(client, cast, case.record["id"], tmp_path)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
        permit = json.loads(archive.read("records/permit.json"))
        orders = json.loads(archive.read("records/orders.json"))
        notices = json.loads(archive.read("records/notices.json"))
        rows = json.loads(archive.read("audit/rows.json"))["rows"]
        seals = json.loads(archive.read("audit/seals.json"))
        photo_original = archive.read(f"photos/{case.photo['id']}/original.jpg")
        annotations = json.loads(archive.read(f"photos/{case.photo['id']}/annotations.json"))
        issued = json.loads(archive.read("records/issued_documents.json"))
        index = archive.read("index.pdf")
        plan = archive.read(f"documents/uploaded/{case.document['id']}/site_plan.pdf")
    assert permit["id"] == case.record["id"] and permit["number"] == case.record["number"]
    assert [o["number"] for o in orders] == [case.order["number"]]
    assert photo_original == case.original
    assert f"photos/{case.photo['id']}/annotated.jpg" in names
    assert [a["shapes"] for a in annotations] == [[CIRCLE]]
    assert plan == case.plan
    # the order as issued: signed, the bytes the e-mails carried
    [order_pdf] = [d for d in issued if d["kind"] == "order"]
    assert order_pdf["signed"] is True and order_pdf["timestamped"] is True
    assert {e["path"]: e.get("signed") for e in manifest["files"]}[order_pdf["file"]] is True
    # delivery evidence of each notice
    assert sorted(n["recipient"]["email"] for n in notices) == ["ana@example.org", "duc@example.org"]
    for notice in notices:
        assert notice["status"] == "sent" and notice["message_id"].startswith("<") and notice["sent_at"]
        assert notice["smtp_reply"]
    # the audit rows: sealed ones with proofs, the one made after the seal listed as not yet sealed
    assert [r["seq"] for r in rows] == sorted(r["seq"] for r in rows)
    assert seals["seals"] and len(seals["proofs"]) == len(rows) - len(seals["unsealed"])
    assert [r["action"] for r in rows if r["seq"] in seals["unsealed"]] == ["party.create"]
    assert manifest["seals"][0]["root"] == seals["seals"][0]["merkle_root"]
    assert manifest["system"] == {"name": "inspect-api", "version": "0.1.0"}
    assert manifest["public"] is False and manifest["withheld"] == []
    # every file but the manifest is listed with its hash
    assert {e["path"] for e in manifest["files"]} == names - {"manifest.json"}
    text = pdf_text(index)
    for phrase in (f"Case file {case.record['number']}", "Records custodian's certificate (MGL c.233 §79J)",
                   "being duly sworn", "Signed under the pains and penalties of perjury", "Notary Public",
                   "original.jpg", hashlib.sha256(case.original).hexdigest()[:16],
                   "Issued order, revision 1, digitally signed", "6 proved in a daily seal, 1 not yet sealed",
                   seals["seals"][0]["merkle_root"][:20], "inspect-api case-file verify FILE.zip"):
        assert phrase in text, phrase

    report = case_file_verify.verify(path, [(Path(pki.chain_file).parent / "root.pem").read_bytes()])
    assert report.ok, report.lines()
    assert any("1 rows not yet sealed" in c.detail for c in report.checks)
    assert any("signed PDFs, each intact and valid, trusted" in c.detail for c in report.checks)


def test_one_changed_byte_of_a_photo_is_named(client, cast, case, tmp_path):
    path = download(client, cast, case.record["id"], tmp_path)
    target = f"photos/{case.photo['id']}/original.jpg"

    def flip(name, data):
        return data[:100] + bytes([data[100] ^ 1]) + data[101:] if name == target else data

    found = problems(rewrite(path, tmp_path / "changed.zip", flip))
    assert len(found) == 1 and found[0].startswith(f"file {target}: SHA-256 "), found


def test_a_changed_record_is_caught_by_its_hash(client, cast, case, tmp_path):
    path = download(client, cast, case.record["id"], tmp_path)

    def edit(name, data):
        if name != "records/orders.json":
            return data
        orders = json.loads(data)
        orders[0]["deadline"] = "2027-01-01"
        return json.dumps(orders).encode()

    found = problems(rewrite(path, tmp_path / "changed.zip", edit))
    assert len(found) == 1 and found[0].startswith("file records/orders.json: "), found


def test_a_changed_audit_row_is_caught_by_its_row_hash_even_with_the_manifest_rehashed(client, cast, case,
                                                                                       tmp_path):
    path = download(client, cast, case.record["id"], tmp_path)
    manifest = manifest_of(path)
    rows = {}

    def edit(name, data):
        if name == "audit/rows.json":
            body = json.loads(data)
            rows["seq"] = body["rows"][0]["seq"]
            body["rows"][0]["action"] = "permit.viewed"
            rows["data"] = json.dumps(body).encode()
            return rows["data"]
        return data

    changed = rewrite(path, tmp_path / "step.zip", edit)
    fixed = rewrite(changed, tmp_path / "changed.zip",
                    lambda name, data: rehashed(manifest, "audit/rows.json", rows["data"]) if name == "manifest.json"
                    else data)
    found = problems(fixed)
    assert found and found[0].startswith(f"audit row seq {rows['seq']} ("), found
    assert "the row was changed" in found[0]
    assert not any(f.startswith("file ") for f in found)


def test_a_changed_signed_pdf_is_caught_by_its_signature(client, cast, case, tmp_path):
    path = download(client, cast, case.record["id"], tmp_path)
    manifest = manifest_of(path)
    [order_file] = [e["path"] for e in manifest["files"] if e.get("signed")]
    changed = {}

    def edit(name, data):
        if name == order_file:
            at = data.index(b"/Contents <") - 400  # inside the signed byte range
            changed["data"] = data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]
            return changed["data"]
        return data

    step = rewrite(path, tmp_path / "step.zip", edit)
    fixed = rewrite(step, tmp_path / "changed.zip",
                    lambda name, data: rehashed(manifest, order_file, changed["data"]) if name == "manifest.json"
                    else data)
    found = problems(fixed)
    assert len(found) == 1 and found[0].startswith(f"signature of {order_file}: "), found


def test_the_public_variant_withholds_contact_details_and_says_why(client, cast, case, tmp_path):
    path = download(client, cast, case.record["id"], tmp_path, public=True)
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        names = archive.namelist()
        everything = b"".join(archive.read(n) for n in names if n.endswith(".json"))
        issued = json.loads(archive.read("records/issued_documents.json"))
        rows = json.loads(archive.read("audit/rows.json"))["rows"]
        parties = json.loads(archive.read("records/parties.json"))
    for secret in (b"ana@example.org", b"duc@example.org", b"ops@bay.example", b"508-555-0100",
                   b"3 Fort St, Fairhaven"):
        assert secret not in everything, secret
    assert {p["name"] for p in parties} >= {"Ana Souza", "Bay Earthworks"}
    assert manifest["public"] is True
    withheld = {item["kind"]: item for item in manifest["withheld"]}
    assert "c.4 §7(26)(c)" in withheld["personal_contact_details"]["why"]
    assert "MGL c.66 §10" in withheld["personal_contact_details"]["why"]
    assert "records/notices.json: email" in withheld["personal_contact_details"]["fields"]
    assert any(r.get("withheld_fields") for r in rows)
    # the documents that print mailing addresses are listed, not included
    assert not [n for n in names if n.startswith("documents/")]
    assert [(d["kind"], d["file"], d["signed"]) for d in issued] == [("order", None, True)]
    assert withheld["documents_with_contact_details"]["count"] == 2
    # still verifiable: the rows with a field withheld prove into their seal by their recorded hash
    report = case_file_verify.verify(path)
    assert report.ok, report.lines()


def test_only_supervisors_get_a_case_file(client, factory, cast, town_clock):
    record = open_case(client, factory, cast)
    url = f"{API}/permits/{record['id']}/case-file.zip"
    for headers in (cast.app, cast.insp):
        r = client.get(url, headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    r = client.get(url)
    assert r.status_code == 401 and r.get_json()["error"] in ("unauthorized", "authentication_required"), r.get_json()
    r = client.get(f"{API}/permits/{uuid.uuid4()}/case-file.zip", headers=cast.sup)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_the_command_writes_and_verifies_a_case_file(app, cast, case, pki, tmp_path):
    runner = app.test_cli_runner()
    out = tmp_path / "out.zip"
    result = runner.invoke(main, ["case-file", case.record["number"], "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    root = Path(pki.chain_file).parent / "root.pem"
    result = runner.invoke(main, ["case-file", "verify", str(out), "--trust", str(root)])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("verified: every check passed")
    public = tmp_path / "public.zip"
    result = runner.invoke(main, ["case-file", case.record["id"], "--out", str(public), "--public"])
    assert result.exit_code == 0 and "fields withheld" in result.output, result.output
    assert manifest_of(public)["public"] is True

    target = f"photos/{case.photo['id']}/original.jpg"
    broken = rewrite(out, tmp_path / "broken.zip",
                     lambda name, data: data[:-3] + b"\x00\x00\x00" if name == target else data)
    result = runner.invoke(main, ["case-file", "verify", str(broken)])
    assert result.exit_code == 1
    assert f"NOT VERIFIED: first problem: file {target}: SHA-256" in result.output
    (tmp_path / "not.zip").write_bytes(b"not a zip")
    result = runner.invoke(main, ["case-file", "verify", str(tmp_path / "not.zip")])
    assert result.exit_code == 2 and "cannot be read as a ZIP" in result.output
    result = runner.invoke(main, ["case-file", "NO-SUCH-1"])
    assert result.exit_code == 1 and "No permit or case 'NO-SUCH-1'" in result.output


def test_a_large_original_is_copied_in_chunks_never_held_whole(app, factory, cast, tmp_path):
    """A 32 MB document is streamed from the blob store into the ZIP a chunk at a time: building the
    file allocates less than half the document's size (about 10 MB, whatever the document's size: the
    index PDF's layout and the records)."""
    permit = factory.permit(cast.applicant, status="submitted")
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + os.urandom(32 << 20) + b"\n%%EOF\n")
    digest = hashlib.sha256(big.read_bytes()).hexdigest()
    get_storage().put_file(big, blob_key(digest), "application/pdf")
    db.session.add(PermitDocument(permit_id=permit.id, kind="other", filename="survey.pdf", content_type="application/pdf",
                                  sha256=digest, size=big.stat().st_size, storage_key=blob_key(digest)))
    db.session.commit()
    with tempfile.TemporaryFile() as out:
        tracemalloc.start()
        try:
            manifest = case_file.build(permit, out, user=cast.supervisor, viewer=cast.supervisor)
            _size, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        out.seek(0)
        with zipfile.ZipFile(out) as archive:
            [name] = [n for n in archive.namelist() if n.endswith("/survey.pdf")]
            assert archive.getinfo(name).file_size == big.stat().st_size
    [entry] = [e for e in manifest["files"] if e["path"] == name]
    assert entry["sha256"] == digest
    print(f"case file with a {big.stat().st_size >> 20} MB document: peak Python allocation {peak / (1 << 20):.1f} MB")
    assert peak < 16 << 20, peak


def test_a_closed_out_permit_brings_its_final_report_documents_and_signed_certificate(
        client, factory, cast, town_clock, pki, tmp_path):
    closeout = Closeout(factory, client)
    applicant, applicant_h = factory.as_role("applicant", email="ann@example.org")
    permit = closeout.permit("permit", applicant=applicant)
    closeout.phase(permit, 1, in_compliance=True)
    report = closeout.accepted_report(permit, applicant_h, cast.sup)
    certificate = closeout.certificate(permit, cast.sup)
    assert client.get(f"{API}/certificates/{certificate['id']}.pdf", headers=cast.sup).status_code == 200
    path = download(client, cast, permit.id, tmp_path)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        reports = json.loads(archive.read("records/final_reports.json"))
        certificates = json.loads(archive.read("records/certificates.json"))
        issued = json.loads(archive.read("records/issued_documents.json"))
        kept = {n: archive.read(n) for n in names if n.startswith("documents/final-report/")}
    assert [(r["id"], r["status"]) for r in reports] == [(report["id"], "accepted")]
    assert [c["id"] for c in certificates] == [certificate["id"]]
    assert sorted(hashlib.sha256(data).hexdigest() for data in kept.values()) == sorted(
        d["sha256"] for d in reports[0]["documents"])
    assert len(kept) == 2
    assert [(d["kind"], d["signed"]) for d in issued] == [("certificate", True)]
    report_check = case_file_verify.verify(path, [(Path(pki.chain_file).parent / "root.pem").read_bytes()])
    assert report_check.ok, report_check.lines()


@pytest.mark.parametrize("how", ["removed", "inserted"])
def test_an_audit_row_removed_or_inserted_is_named(client, cast, case, tmp_path, how):
    """With the manifest re-hashed, so only the seals can tell: a removed row leaves its proof without
    its row; an inserted row (its own hash right) is in no seal and not listed as made since."""
    path = download(client, cast, case.record["id"], tmp_path)
    manifest = manifest_of(path)
    with zipfile.ZipFile(path) as archive:
        body = json.loads(archive.read("audit/rows.json"))
    first = body["rows"][0]
    if how == "removed":
        body["rows"] = body["rows"][1:]
        seq = first["seq"]
    else:
        forged = {**first, "id": str(uuid.uuid4()), "seq": first["seq"] + 10_000, "action": "permit.create"}
        forged["row_hash"] = audit_chain.row_hash_of(forged)
        body["rows"].append(forged)
        seq = forged["seq"]
    data = json.dumps(body).encode()
    changed = rewrite(path, tmp_path / "changed.zip", lambda name, old: data if name == "audit/rows.json" else (
        rehashed(manifest, "audit/rows.json", data) if name == "manifest.json" else old))
    found = problems(changed)
    expected = ("has a proof but is not among the audit rows" if how == "removed"
                else "neither proved in a seal nor listed as not yet sealed")
    assert found == [f"audit row seq {seq}: {expected}"], found
