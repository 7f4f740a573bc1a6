"""Application documents as files (R-C1): the ESC plan as a PDF, stored by SHA-256 through the blob store as
a final report's documents are, typed from its bytes, refused whole when anything is wrong, and read only by
those who may see the permit."""
import hashlib
import uuid
from pathlib import Path
from urllib.parse import urlparse

from tests.closeout.conftest import pdf_bytes, png_bytes

from .conftest import assert_error


def _blobs(app) -> list[Path]:
    root = Path(urlparse(app.config["STORAGE_URL"]).path)
    return [p for p in (root / "sha256").rglob("*") if p.is_file()] if (root / "sha256").exists() else []


def _upload(client, permit_id, data, headers, *, kind="esc_plan", content_type="application/pdf", **query):
    extra = {k: v for k, v in query.items() if k.startswith("X-")}
    params = {"kind": kind, **{k: v for k, v in query.items() if not k.startswith("X-")}}
    return client.post(f"/api/v1/permits/{permit_id}/document-files", query_string=params, data=data,
                       headers={**headers, "Content-Type": content_type, **extra})


def test_applicant_attaches_a_pdf_esc_plan_and_reads_it_back(app, client, factory):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant, status="draft", disturbed_area_sqft=9000)
    data = pdf_bytes("ESC plan, sheets C-1 to C-4")
    doc_id = str(uuid.uuid4())
    r = _upload(client, permit.id, data, headers, filename="../plans/ESC plan.pdf", title="ESC plan C-1 to C-4",
                id=doc_id, **{"X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    assert doc["id"] == doc_id and doc["kind"] == "esc_plan" and doc["filename"] == "ESC plan.pdf"
    assert doc["content_type"] == "application/pdf" and doc["bytes"] == len(data)
    assert doc["sha256"] == hashlib.sha256(data).hexdigest() and doc["title"] == "ESC plan C-1 to C-4"
    assert doc["url"] == f"/api/v1/permits/{permit.id}/documents/{doc_id}/file"
    assert len(_blobs(app)) == 1 and _blobs(app)[0].read_bytes() == data

    # The permit carries it, so the review level's documents are there (R-C1) and submitting is allowed.
    record = client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()
    assert [(d["id"], d["kind"]) for d in record["documents"]] == [(doc_id, "esc_plan")]
    r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "submitted"}, headers=headers)
    assert r.status_code == 200, r.get_json()

    got = client.get(doc["url"], headers=headers)
    assert got.status_code == 200 and got.data == data and got.mimetype == "application/pdf"
    assert got.headers["X-Content-Type-Options"] == "nosniff" and "attachment" in got.headers["Content-Disposition"]
    assert got.headers["ETag"].strip('"') == doc["sha256"]
    # Staff read it too: the supervisor deciding the application and an inspector.
    for role in ("supervisor", "inspector"):
        _, staff = factory.as_role(role)
        assert client.get(doc["url"], headers=staff).data == data

    # The same bytes and kind again (a retry after a lost answer) answer the same document, stored once.
    again = _upload(client, permit.id, data, headers, id=doc_id)
    assert again.status_code == 200 and again.get_json()["id"] == doc_id
    assert len(client.get(f"/api/v1/permits/{permit.id}/documents", headers=headers).get_json()) == 1
    assert len(_blobs(app)) == 1


def test_another_applicant_neither_reads_nor_attaches(client, factory):
    owner, owner_h = factory.as_role("applicant")
    _, other_h = factory.as_role("applicant")
    _, admin_h = factory.as_role("admin")
    permit = factory.permit(owner, status="draft", disturbed_area_sqft=9000)
    doc = _upload(client, permit.id, pdf_bytes(), owner_h).get_json()
    assert_error(client.get(doc["url"], headers=other_h), 404, "not_found")
    assert_error(client.get(doc["url"], headers=admin_h), 404, "not_found")
    assert_error(_upload(client, permit.id, pdf_bytes("mine"), other_h), 404, "not_found")
    # A document of another permit is not found through this one.
    second = factory.permit(owner, status="draft", disturbed_area_sqft=9000)
    assert_error(client.get(f"/api/v1/permits/{second.id}/documents/{doc['id']}/file", headers=owner_h),
                 404, "not_found")


def test_refused_uploads_leave_nothing_stored(app, client, factory):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant, status="draft", disturbed_area_sqft=9000)
    # Not a PDF or image: refused by its bytes whatever it claims to be.
    r = _upload(client, permit.id, b"<html>plan</html>", headers, content_type="application/octet-stream")
    assert_error(r, 415, "unsupported_media_type")
    assert_error(_upload(client, permit.id, b"PK\x03\x04 a zip named .pdf", headers), 415, "unsupported_media_type")
    assert_error(_upload(client, permit.id, pdf_bytes(), headers, content_type="text/plain"), 415,
                 "unsupported_media_type")
    # Bytes that contradict the declared type, a truncated PDF, an empty body.
    assert_error(_upload(client, permit.id, png_bytes(), headers), 422, "content_type_mismatch")
    assert_error(_upload(client, permit.id, pdf_bytes()[:200], headers), 422, "document_invalid")
    assert_error(_upload(client, permit.id, b"", headers), 422, "document_invalid")
    # The checksum the device sent does not match what arrived.
    assert_error(_upload(client, permit.id, pdf_bytes(), headers, **{"X-Content-SHA256": "0" * 64}), 422,
                 "checksum_mismatch")
    # Larger than MAX_DOCUMENT_BYTES.
    app.config["MAX_DOCUMENT_BYTES"] = 1000
    assert_error(_upload(client, permit.id, pdf_bytes("x" * 500) + b"%" * 2000, headers), 413, "payload_too_large")
    # An unknown kind is refused before the body is read.
    assert_error(_upload(client, permit.id, pdf_bytes(), headers, kind="deed"), 422, "validation_error", field="kind")
    assert _blobs(app) == []
    assert client.get(f"/api/v1/permits/{permit.id}/documents", headers=headers).get_json() == []
    assert client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()["version"] == permit.version


def test_an_image_is_a_document_too_and_the_decision_closes_uploads(app, client, factory):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = factory.permit(applicant, status="draft", disturbed_area_sqft=26000)
    r = _upload(client, permit.id, png_bytes(8), headers, kind="om_plan", content_type="image/png",
                filename="om sheet")
    assert r.status_code == 201 and r.get_json()["content_type"] == "image/png"
    assert r.get_json()["filename"] == "om sheet.png"
    # A document recorded by name only has no file to read.
    named = client.post(f"/api/v1/permits/{permit.id}/documents", json={"kind": "other", "filename": "deed.pdf"},
                        headers=headers).get_json()
    assert named["url"] is None and named["content_type"] is None
    assert_error(client.get(f"/api/v1/permits/{permit.id}/documents/{named['id']}/file", headers=headers),
                 404, "not_found")
    # After the decision the applicant adds nothing (409), and nothing is stored for the refused file.
    issued = factory.permit(applicant, status="issued", disturbed_area_sqft=26000)
    before = len(_blobs(app))
    assert_error(_upload(client, issued.id, pdf_bytes("late"), headers), 409, "permit_locked")
    assert len(_blobs(app)) == before
    # A supervisor may still add one (R-C1: a supervisor at any time).
    assert _upload(client, issued.id, pdf_bytes("late"), sup, kind="other").status_code == 201
    # An inspector adds none.
    _, insp = factory.as_role("inspector")
    assert_error(_upload(client, permit.id, pdf_bytes("field"), insp), 403, "forbidden")


def test_a_body_over_the_limit_without_a_length_is_cut_off(app, client, factory):
    import io
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant, status="draft", disturbed_area_sqft=9000)
    app.config["MAX_DOCUMENT_BYTES"] = 1000
    # A chunked body: no Content-Length to refuse up front, so the streaming limit must stop it.
    r = client.post(f"/api/v1/permits/{permit.id}/document-files?kind=esc_plan", input_stream=io.BytesIO(b"%PDF-1.4\n" + b"0" * 5000),
                    headers={**headers, "Content-Type": "application/pdf", "Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert_error(r, 413, "payload_too_large")
    assert _blobs(app) == [] and client.get(f"/api/v1/permits/{permit.id}/documents", headers=headers).get_json() == []
