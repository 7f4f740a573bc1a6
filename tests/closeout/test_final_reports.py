"""Final reports of land disturbance permits (R-F2): drafting, documents, submission, review, due dates."""
import hashlib
import io
import uuid
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

from inspect_api.completion.reports import final_reports_due
from inspect_api.completion.rules import final_report_due_on
from inspect_api.clock import today as local_today

from .conftest import pdf_bytes, png_bytes


def _blobs(app) -> list[Path]:
    root = Path(urlparse(app.config["STORAGE_URL"]).path)
    return [p for p in (root / "sha256").rglob("*") if p.is_file()] if (root / "sha256").exists() else []


def _draft(client, closeout, permit, headers, **overrides):
    r = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id, **overrides), headers=headers)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_draft_report_shows_due_date_and_what_is_missing(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("permit", applicant=applicant, completed_on=local_today() - timedelta(days=10))
    report_id = str(uuid.uuid4())
    body = _draft(client, closeout, permit, headers, id=report_id)
    assert body["id"] == report_id and body["status"] == "draft" and body["version"] == 1
    assert body["pls_stamp"] == {"name": "Lee Surveyor", "license_number": "PLS-41234", "stamp_date": "2026-01-15"}
    assert body["certification"]["stormwater_facilities"] is True and len(body["controls"]) == 2
    assert body["work_completed_on"] == (local_today() - timedelta(days=10)).isoformat()
    assert body["due_on"] == final_report_due_on(local_today() - timedelta(days=10)).isoformat()
    assert body["overdue"] is False and body["submitted_late"] is False
    assert body["missing"] == {"documents": [
        "Upload the stamped as-built plan (a document of kind as_built_plan).",
        "Upload the documentation that the system was operated and maintained per the O&M plan (a document of kind "
        "om_documentation), or deliver it on paper for the Town to record: a statement alone is not enough (R-F2)."]}
    again = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id, id=report_id), headers=headers)
    assert again.status_code == 200 and again.get_json()["id"] == report_id
    other = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=headers)
    assert other.status_code == 409 and other.get_json()["error"] == "report_exists"


def test_overdue_flag_the_day_after_the_due_date(factory, client, closeout):
    """R-F2: completed two years and one day ago -> overdue; two years ago exactly -> due today, not overdue."""
    applicant, headers = factory.as_role("applicant")
    today = local_today()
    on_time = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today, 2))
    late = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today - timedelta(days=1), 2))
    r1, r2 = _draft(client, closeout, on_time, headers), _draft(client, closeout, late, headers)
    assert r1["due_on"] == today.isoformat() and r1["overdue"] is False
    assert r2["due_on"] == (today - timedelta(days=1)).isoformat() and r2["overdue"] is True
    r = client.get("/api/v1/final-reports?overdue=true", headers=headers)
    assert r.status_code == 200 and [x["id"] for x in r.get_json()] == [r2["id"]]


def _years_before(day, years):
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # today is 29 February: the completion two years before that is 28 February (due today)
        return day.replace(year=day.year - years, day=28)


def test_only_permits_file_final_reports(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    admin_review = closeout.permit("admin", applicant=applicant)
    r = client.post("/api/v1/final-reports", json=closeout.report_body(admin_review.id), headers=headers)
    assert r.status_code == 409 and r.get_json()["error"] == "wrong_closeout_kind"


def test_upload_pdf_and_image_and_read_them_back(app, factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, stranger = factory.as_role("applicant")
    _, inspector = factory.as_role("inspector")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    pdf = pdf_bytes()
    r = closeout.upload(report["id"], pdf, headers, **{"X-Content-SHA256": hashlib.sha256(pdf).hexdigest()})
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    assert doc["kind"] == "as_built_plan" and doc["content_type"] == "application/pdf" and doc["bytes"] == len(pdf)
    assert doc["sha256"] == hashlib.sha256(pdf).hexdigest() and doc["filename"] == "plan.pdf"
    again = closeout.upload(report["id"], pdf, headers)
    assert again.status_code == 200 and again.get_json()["id"] == doc["id"]
    png = png_bytes()
    r = closeout.upload(report["id"], png, headers, kind="om_documentation", content_type="application/octet-stream")
    assert r.status_code == 201 and r.get_json()["content_type"] == "image/png"
    assert r.get_json()["filename"] == "plan.png"  # the extension follows the bytes, not the name sent
    got = client.get(doc["url"], headers=headers)
    assert got.status_code == 200 and got.data == pdf and got.mimetype == "application/pdf"
    assert got.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get(doc["url"], headers=inspector).data == pdf
    assert client.get(doc["url"], headers=stranger).status_code == 404
    listed = client.get(f"/api/v1/final-reports/{report['id']}", headers=headers).get_json()
    assert [d["kind"] for d in listed["documents"]] == ["as_built_plan", "om_documentation"] and listed["missing"] == {}
    assert len(_blobs(app)) == 2


def test_rejected_uploads_store_nothing(app, factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    r = closeout.upload(report["id"], b"just some text, not a document", headers,
                        content_type="application/octet-stream")
    assert r.status_code == 415 and r.get_json()["error"] == "unsupported_media_type"
    r = closeout.upload(report["id"], pdf_bytes(), headers, content_type="text/html")
    assert r.status_code == 415
    r = closeout.upload(report["id"], png_bytes(), headers, content_type="application/pdf")
    assert r.status_code == 422 and r.get_json()["error"] == "content_type_mismatch"
    r = closeout.upload(report["id"], pdf_bytes()[:200], headers)
    assert r.status_code == 422 and r.get_json()["error"] == "document_invalid"
    r = closeout.upload(report["id"], png_bytes()[:30], headers, content_type="image/png")
    assert r.status_code == 422 and r.get_json()["error"] == "document_invalid"
    r = closeout.upload(report["id"], b"", headers)
    assert r.status_code == 422 and r.get_json()["error"] == "document_invalid"
    r = closeout.upload(report["id"], pdf_bytes(), headers, **{"X-Content-SHA256": "0" * 64})
    assert r.status_code == 422 and r.get_json()["error"] == "checksum_mismatch"
    app.config["MAX_DOCUMENT_BYTES"] = 1000
    big = pdf_bytes("x" * 500) + b"%" * 2000
    r = closeout.upload(report["id"], big, headers)
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"
    assert _blobs(app) == []
    assert client.get(f"/api/v1/final-reports/{report['id']}", headers=headers).get_json()["documents"] == []


def test_upload_over_limit_without_content_length_is_cut_off(app, factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    app.config["MAX_DOCUMENT_BYTES"] = 1000

    body = io.BytesIO(b"%PDF-1.4\n" + b"0" * 5000)
    # a chunked body: no Content-Length to refuse up front, so the streaming limit must stop it
    r = client.post(f"/api/v1/final-reports/{report['id']}/documents?kind=as_built_plan", input_stream=body,
                    headers={**headers, "Content-Type": "application/pdf", "Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413 and _blobs(app) == []


def test_submit_needs_a_complete_report(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers,
                    pe_stamp=None, controls=[], om_statement=None)
    url = f"/api/v1/final-reports/{report['id']}"
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 422 and set(r.get_json()["errors"]) == {"pe_stamp", "controls", "om_statement", "documents"}
    r = client.patch(url, json={"pe_applicable": False, "controls": [{"name": "Swale", "kind": "structural"}],
                                "om_statement": "Maintained per O&M plan", "version": 1}, headers=headers)
    assert r.status_code == 200 and set(r.get_json()["missing"]) == {"documents"}
    closeout.documents(report["id"], headers)
    r = client.post(url + "/submit", headers={**headers, "If-Match": "1"})
    assert r.status_code == 409 and r.get_json()["error"] == "version_conflict"
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "submitted" and r.get_json()["submitted_at"]
    assert r.get_json()["missing"] == {}
    r = client.patch(url, json={"om_statement": "changed", "version": r.get_json()["version"]}, headers=headers)
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"
    r = closeout.upload(report["id"], png_bytes(), headers, kind="photo", content_type="image/png")
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"


def test_review_return_then_resubmit_then_accept(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    _, inspector = factory.as_role("inspector")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    url = f"/api/v1/final-reports/{report['id']}"
    doc = closeout.upload(report["id"], pdf_bytes(), headers).get_json()
    closeout.upload(report["id"], pdf_bytes("O&M log"), headers, kind="om_documentation")
    assert client.post(url + "/review", json={"decision": "accept"}, headers=sup).status_code == 409  # still a draft
    client.post(url + "/submit", headers=headers)
    assert client.post(url + "/review", json={"decision": "accept"}, headers=inspector).status_code == 403
    r = client.post(url + "/review", json={"decision": "return", "reasons": ""}, headers=sup)
    assert r.status_code == 422 and "reasons" in r.get_json()["errors"]
    r = client.post(url + "/review", json={"decision": "return", "reasons": "PE stamp date missing on sheet 3"},
                    headers=sup)
    assert r.status_code == 200 and r.get_json()["status"] == "returned"
    r = client.delete(f"{url}/documents/{doc['id']}", headers=headers)
    assert r.status_code == 204
    closeout.upload(report["id"], pdf_bytes("Revised as-built plan"), headers)
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "submitted"
    r = client.post(url + "/review", json={"decision": "accept"}, headers=sup)
    assert r.status_code == 200 and r.get_json()["status"] == "accepted" and r.get_json()["review"]["reasons"] is None


def test_visibility_of_reports(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, stranger = factory.as_role("applicant")
    _, inspector = factory.as_role("inspector")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    url = f"/api/v1/final-reports/{report['id']}"
    assert client.get(url, headers=stranger).status_code == 404
    r = client.patch(url, json={"om_statement": "x", "version": 1}, headers=stranger)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get("/api/v1/final-reports", headers=stranger).get_json() == []
    assert client.get(url, headers=inspector).status_code == 200
    r = client.patch(url, json={"om_statement": "x", "version": 1}, headers=inspector)
    assert r.status_code == 403
    r = client.post("/api/v1/final-reports", json=closeout.report_body(closeout.permit("permit").id),
                    headers=stranger)
    assert r.status_code == 404


def test_final_reports_due_helper(app, factory, client, closeout):
    """For the deadlines view: outstanding reports due strictly before the date, overdue flagged."""
    applicant, headers = factory.as_role("applicant")
    today = local_today()
    overdue = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today, 2) - timedelta(days=5))
    soon = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today, 2) + timedelta(days=20))
    later = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today, 2) + timedelta(days=90))
    answered = closeout.permit("permit", applicant=applicant, completed_on=_years_before(today, 2) - timedelta(days=1))
    closeout.permit("admin", applicant=applicant, completed_on=_years_before(today, 2) - timedelta(days=3))
    _draft(client, closeout, soon, headers)
    report = _draft(client, closeout, answered, headers)
    closeout.documents(report["id"], headers)
    assert client.post(f"/api/v1/final-reports/{report['id']}/submit", headers=headers).status_code == 200
    rows = final_reports_due(today + timedelta(days=30))
    assert [r["permit_id"] for r in rows] == [overdue.id, soon.id]
    assert rows[0]["overdue"] is True and rows[0]["final_report_id"] is None
    assert rows[1]["overdue"] is False and rows[1]["final_report_status"] == "draft"
    edge = final_report_due_on(soon.work_completed_on)
    assert [r["permit_id"] for r in final_reports_due(edge)] == [overdue.id]  # strictly before
    assert [r["permit_id"] for r in final_reports_due(edge + timedelta(days=1))] == [overdue.id, soon.id]
    assert later.id not in [r["permit_id"] for r in final_reports_due(today + timedelta(days=30))]
    stranger, _ = factory.as_role("applicant")
    assert len(final_reports_due(today + timedelta(days=30), user=applicant)) == 2
    assert final_reports_due(today + timedelta(days=30), user=stranger) == []


def test_a_report_is_submitted_only_with_its_om_documentation_as_a_document(factory, client, closeout):
    """R-F2 "documentation to verify": the as-built plan and a statement do not suffice."""
    applicant, headers = factory.as_role("applicant")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    url = f"/api/v1/final-reports/{report['id']}"
    assert closeout.upload(report["id"], pdf_bytes(), headers).status_code == 201
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"] == {"documents": [
        "Upload the documentation that the system was operated and maintained per the O&M plan (a document of kind "
        "om_documentation), or deliver it on paper for the Town to record: a statement alone is not enough (R-F2)."]}
    assert client.get(url, headers=headers).get_json()["status"] == "draft"
    assert closeout.upload(report["id"], pdf_bytes("O&M log"), headers, kind="om_documentation").status_code == 201
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "submitted" and r.get_json()["missing"] == {}


def test_a_paper_delivered_to_the_town_and_recorded_by_name_counts(factory, client, closeout):
    """R-F2: the O&M log handed in on paper is recorded by name by a supervisor; it counts as on file."""
    applicant, headers = factory.as_role("applicant")
    supervisor, sup = factory.as_role("supervisor")
    report = _draft(client, closeout, closeout.permit("permit", applicant=applicant), headers)
    url = f"/api/v1/final-reports/{report['id']}"
    closeout.upload(report["id"], pdf_bytes(), headers)
    paper = {"kind": "om_documentation", "name": "O&M log 2025-2026 (binder, delivered 3 March)"}
    r = client.post(url + "/paper-documents", json=paper, headers=headers)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"  # the Town records what it received
    r = client.post(url + "/paper-documents", json=paper, headers=sup)
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    assert (doc["kind"], doc["filename"], doc["on_paper"], doc["url"], doc["content_type"], doc["bytes"]) == (
        "om_documentation", paper["name"], True, None, None, None)
    assert doc["uploaded_by"] == supervisor.id
    again = client.post(url + "/paper-documents", json=paper, headers=sup)
    assert again.status_code == 200 and again.get_json()["id"] == doc["id"]
    r = client.get(f"{url}/documents/{doc['id']}", headers=sup)
    assert r.status_code == 404 and "on paper" in r.get_json()["message"]
    assert client.delete(f"{url}/documents/{doc['id']}", headers=headers).status_code == 403
    listed = client.get(url, headers=headers).get_json()
    assert listed["missing"] == {} and [d["on_paper"] for d in listed["documents"]] == [False, True]
    r = client.post(url + "/submit", headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "submitted"
    r = client.post(url + "/paper-documents", json={**paper, "name": "Another"}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"
