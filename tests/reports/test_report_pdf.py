"""GET /inspections/{id}/report.pdf: rendered once, its text read back with pypdf."""
from __future__ import annotations

import io
import re

import pytest

pypdf = pytest.importorskip("pypdf")


def report_text(response) -> tuple[str, object]:
    reader = pypdf.PdfReader(io.BytesIO(response.data))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return " ".join(text.split()), reader


def test_report_holds_what_the_contractor_needs(inspected, client):
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.headers)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.data.startswith(b"%PDF-")
    number = inspected.permit.number
    assert r.headers["Content-Disposition"] == f'inline; filename="inspection-{number}-2026-05-04.pdf"'
    text, reader = report_text(r)
    # Site and permit
    assert f"Inspection report \u2013 {number}" in text
    assert inspected.permit.site_address in text and "Pat Owner" in text
    # Inspector, times (town clock), weather, phase
    assert "Dana Field" in text
    assert "2026-05-04 09:00 EDT" in text and "2026-05-04 10:10 EDT" in text
    assert "overcast, 58 \u00b0F, 0.3 in of rain in the previous 24 h" in text
    assert "Phase 1 grading" in text and "east stockpile" in text
    # Every checklist item with its answer; the note survives markup characters
    assert f"(version {inspected.template.version})" in text
    for item in inspected.template.items:
        assert " ".join(item["label"].split()) in text
    assert len(re.findall(r"\bok\b", text)) >= len(inspected.template.items) - 2
    assert "deficient" in text and "n/a" in text and "No entrance yet" in text
    assert "Silt fence down <north> side & torn" in text
    # Findings with due dates: the deficiency (next business day) and the same-day pH exceedance
    assert "2026-05-05" in text and "Required:" in text
    assert "pH 9.1 SU" in text
    # Samples of the same day only
    assert "ph: 9.1 SU" in text and "ph 9.1 SU exceeds" in text
    assert "9.4" not in text
    # Photos: the uploaded one drawn as a thumbnail, the other listed as pending
    assert f"Photo {inspected.pending}" in text and "pending upload" in text
    assert f"Photo {inspected.uploaded}" not in text
    assert sum(len(page.images) for page in reader.pages) == 1


def test_applicants_see_their_own_report_only(inspected, factory, client):
    own = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.applicant_headers)
    assert own.status_code == 200 and own.data.startswith(b"%PDF-")
    _, stranger = factory.as_role("applicant")
    other = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=stranger)
    assert other.status_code == 404 and other.get_json()["error"] == "not_found"
    missing = client.get("/api/v1/inspections/00000000-0000-4000-8000-000000000000/report.pdf",
                         headers=inspected.headers)
    assert missing.status_code == 404


def test_draft_inspection_report_is_not_shown_to_the_applicant(inspected, client):
    body = {"permit_id": inspected.permit.id, "kind": "follow_up", "started_at": "2026-05-06T13:00:00Z"}
    draft = client.post("/api/v1/inspections", json=body, headers=inspected.headers).get_json()
    mine = client.get(f"/api/v1/inspections/{draft['id']}/report.pdf", headers=inspected.headers)
    assert mine.status_code == 200
    text, _ = report_text(mine)
    assert "No checklist recorded." in text and "No samples." in text and "No photos." in text
    hidden = client.get(f"/api/v1/inspections/{draft['id']}/report.pdf", headers=inspected.applicant_headers)
    assert hidden.status_code == 404


def test_report_needs_a_signed_in_user(inspected, client):
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf")
    assert r.status_code == 401 and r.get_json()["error"] == "unauthorized"


def test_renderer_survives_hostile_and_oversized_text():
    from inspect_api.reports import pdf
    note = ("Sediment past the fence " * 170)[:4000]          # the longest note an answer may hold
    data = pdf.ReportData(
        title="Report <b>&amp;", site_rows=[("Site", "1 Main St \x00\x07 <para> ]]>")], inspection_rows=[],
        checklist_title="Checklist", checklist_rows=[("1", "x" * 3000, "deficient", note), ("2", "Item", "ok", "")],
        finding_rows=[("Item", note, "high", "2026-05-05", "open")], sample_rows=[],
        photos=[pdf.PhotoEntry("broken", "cap", b"not an image"), pdf.PhotoEntry("later", "cap", None)],
        footer="footer")
    reader = pypdf.PdfReader(io.BytesIO(pdf.render(data)))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    assert len(reader.pages) >= 3
    assert "Report <b>&amp;" in text and "1 Main St <para> ]]>" in text
    assert "Photo broken (cap): not shown" in text and "Photo later (cap): pending upload" in text


def test_report_states_entry_authority_and_the_weekly_turbidity_average(inspected, client):
    """R-E1: the authority the entry relied on; R-S2: turbidity is judged on the weekly average per
    discharge point. Week of Monday 4 May 2026 at OF-1: 20, 20 and 130 NTU -> 170 / 3 = 56.67 > 50."""
    r = client.post("/api/v1/samples", headers=inspected.headers, json={
        "permit_id": inspected.permit.id, "sampled_at": "2026-05-04T16:00:00Z", "sampler": "Dana Field",
        "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
        "parameters": [{"name": "turbidity", "value": 130, "unit": "NTU"}]})
    assert r.status_code == 201, r.get_json()
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.headers)
    text, _ = report_text(r)
    assert "Authority to enter" in text and "a condition of the permit or approval" in text
    assert "Condition 12 (permit condition)" in text and "examination, sampling" in text
    assert "judged on the weekly average per discharge point" in text
    assert ("Discharge point OF-1, week of 2026-05-04: weekly average 56.67 NTU over 3 samples: EXCEEDS the "
            "benchmark (weekly average)") in text
