"""What an inspection report costs: rendering grows with the length of its text, not with its
square; one field prints a bounded amount; a report rendered once is kept, keyed on every record it
shows and on the audience it was rendered for, and answered again (or 304) without rendering."""
from __future__ import annotations

import gc
import time

from benchmarks.report_render import report as _report
from inspect_api import pdf as doc
from inspect_api.extensions import db
from inspect_api.photos.models import Photo
from inspect_api.reports import pdf
from inspect_api.storage import get_storage

from ..pdf_support import pdf_text
from .conftest import upload_photo


def _cpu_seconds(data: pdf.ReportData) -> float:
    # This process's CPU time, not the wall clock: on a shared machine, other processes' load would
    # otherwise stretch one measure and not the other. The collector is paused, as timeit does: its
    # passes walk every object the test process holds (the whole suite's), which is not the renderer's cost.
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        pdf.render(data)
        return time.process_time() - started
    finally:
        gc.enable()


def test_rendering_time_grows_linearly_with_the_line_breaks():
    pdf.render(_report(10))  # fonts and styles loaded once, outside the measure
    small_report, large_report = _report(400), _report(4000)
    small = large = float("inf")
    for _ in range(5):  # interleaved, the best of five each: a shared machine's noise only adds time
        small = min(small, _cpu_seconds(small_report))
        large = min(large, _cpu_seconds(large_report))
    # Ten times the text: linear is about 10x; the old layout (one paragraph re-wrapped on every page
    # it was split over) was about 100x.
    assert large / small <= 15, (small, large)


def test_one_field_prints_a_bounded_amount_with_a_visible_cut():
    huge = "A" * doc.MAX_FIELD_CHARS + "TAILTEXT" + "B" * 10_000
    text = pdf_text(pdf.render(pdf.ReportData(
        title="R", site_rows=[], inspection_rows=[("Notes", huge)], checklist_title="C", checklist_rows=[],
        finding_rows=[], sample_rows=[], footer="f")))
    assert "TAILTEXT" not in text
    assert f"10,008 more characters not shown; one field prints at most {doc.MAX_FIELD_CHARS:,}" in text
    assert doc.bounded("short\ntext") == "short\ntext"
    cut = doc.bounded(huge)
    assert cut.startswith("A" * doc.MAX_FIELD_CHARS) and len(cut) < doc.MAX_FIELD_CHARS + 200


def _count_renders(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = pdf.render

    def counting(data):
        calls.append(1)
        return real(data)

    monkeypatch.setattr(pdf, "render", counting)
    return calls


def _url(inspected) -> str:
    return f"/api/v1/inspections/{inspected.inspection_id}/report.pdf"


def test_a_report_is_rendered_once_and_answered_again_by_its_key(inspected, factory, client, monkeypatch):
    calls = _count_renders(monkeypatch)
    first = client.get(_url(inspected), headers=inspected.headers)
    assert first.status_code == 200 and first.data.startswith(b"%PDF-") and len(calls) == 1
    etag = first.headers["ETag"]
    assert etag.startswith('"') and first.headers["Cache-Control"] == "private, no-cache"
    again = client.get(_url(inspected), headers=inspected.headers)
    assert again.status_code == 200 and again.data == first.data and again.headers["ETag"] == etag
    assert len(calls) == 1
    unchanged = client.get(_url(inspected), headers={**inspected.headers, "If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.data == b"" and unchanged.headers["ETag"] == etag
    assert len(calls) == 1

    # A finding edited: a new key, a fresh rendering that shows the edit.
    finding = client.get("/api/v1/findings", query_string={"inspection_id": inspected.inspection_id},
                         headers=inspected.headers).get_json()[0]
    _, supervisor = factory.as_role("supervisor")
    r = client.patch(f"/api/v1/findings/{finding['id']}", headers=supervisor,
                     json={"version": finding["version"], "required_action": "Reset the fence on stakes"})
    assert r.status_code == 200, r.get_json()
    edited = client.get(_url(inspected), headers={**inspected.headers, "If-None-Match": etag})
    assert edited.status_code == 200 and edited.headers["ETag"] != etag and len(calls) == 2
    assert "Reset the fence on stakes" in pdf_text(edited.data)

    # A photo added to the inspection: a new key again.
    upload_photo(client, inspected.headers, inspected.permit.id, parent_type="inspection",
                 parent_id=inspected.inspection_id)
    photographed = client.get(_url(inspected), headers=inspected.headers)
    assert photographed.status_code == 200 and len(calls) == 3
    assert photographed.headers["ETag"] not in (etag, edited.headers["ETag"])


def test_renditions_are_keyed_on_the_audience(inspected, factory, client, monkeypatch):
    calls = _count_renders(monkeypatch)
    _, supervisor = factory.as_role("supervisor")
    staff = client.get(_url(inspected), headers=supervisor)
    applicant = client.get(_url(inspected), headers=inspected.applicant_headers)
    assert staff.status_code == applicant.status_code == 200 and len(calls) == 2
    # What an applicant is shown may differ from what staff are (drafts and what is recorded on them
    # stay the inspector's): the two renditions never share a key.
    assert staff.headers["ETag"] != applicant.headers["ETag"]
    # Staff see the same report: the inspector is answered from the supervisor's rendition.
    inspector = client.get(_url(inspected), headers={**inspected.headers, "If-None-Match": staff.headers["ETag"]})
    assert inspector.status_code == 304 and len(calls) == 2
    own = client.get(_url(inspected), headers={**inspected.applicant_headers,
                                               "If-None-Match": staff.headers["ETag"]})
    assert own.status_code == 200 and own.data == applicant.data and len(calls) == 2


def test_a_report_missing_a_thumbnail_is_answered_and_not_kept(inspected, client, monkeypatch):
    calls = _count_renders(monkeypatch)
    photo = db.session.get(Photo, inspected.uploaded)
    get_storage().delete(photo.small_key)
    # The thumbnail is made from the original for this answer (as before the worker made it), and the
    # report is not kept: the next request renders again.
    first = client.get(_url(inspected), headers=inspected.headers)
    assert first.status_code == 200 and f"Photo {inspected.uploaded}" not in pdf_text(first.data)
    again = client.get(_url(inspected), headers=inspected.headers)
    assert again.status_code == 200 and len(calls) == 2
    # Without the original either, the photo is shown as pending, and still nothing is kept.
    get_storage().delete(photo.original_key)
    third = client.get(_url(inspected), headers=inspected.headers)
    assert third.status_code == 200 and f"Photo {inspected.uploaded}" in pdf_text(third.data)
    assert "pending upload" in pdf_text(third.data) and len(calls) == 3
