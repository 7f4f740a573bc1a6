"""A photo with markup is printed in the inspection report as the annotated image, large, beside a note
naming who marked it up and the original's SHA-256, which is kept unaltered; the report is made again
when the markup changes."""
from __future__ import annotations

import hashlib
import io
import uuid

import pytest

from inspect_api.extensions import db
from inspect_api.photos.models import Photo

from ..pdf_support import pdf_text
from ..sync.conftest import Tablet, create, edit

pypdf = pytest.importorskip("pypdf")

ARROW = {"kind": "arrow", "points": [[0.05, 0.5], [0.95, 0.5]], "colour": "#ff0000"}
LABEL = {"kind": "text", "points": [[0.1, 0.2]], "text": "Torn here", "colour": "#ffe600"}


def report(client, inspected):
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.headers)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    return r


def images(data: bytes):
    reader = pypdf.PdfReader(io.BytesIO(data))
    return [image.image.convert("RGB") for page in reader.pages for image in page.images]


def push(factory, client, user, mutation) -> dict:
    device = f"tablet-{uuid.uuid4().hex[:8]}"
    [result] = Tablet(client, factory.headers(user, device_id=device), device).push([mutation])
    return result


def test_the_report_prints_the_annotated_photo_and_says_the_original_is_unaltered(inspected, client, factory):
    photo = db.session.get(Photo, inspected.uploaded)
    original_sha = photo.sha256
    before = report(client, inspected)
    assert "Marked up by" not in pdf_text(before.data)
    assert [im.size for im in images(before.data)] == [(320, 240)]  # the small thumbnail only

    record_id = str(uuid.uuid4())
    result = push(factory, client, inspected.inspector,
                  create("photo_annotation", {"photo_id": photo.id, "shapes": [ARROW, LABEL]}, record_id))
    assert result["status"] == "applied", result
    after = report(client, inspected)
    assert after.headers["ETag"] != before.headers["ETag"]
    text = pdf_text(after.data)
    grouped = " ".join(original_sha[i:i + 16] for i in range(0, 64, 16))
    assert (f"Marked up by Dana Field; the markup is drawn on a copy. The original (SHA-256 {grouped}) is kept "
            "unaltered.") in text
    assert "uploaded by Dana Field" in text  # the caption stays beside the note
    [annotated] = [im for im in images(after.data) if im.size == (640, 480)]  # the display size, not the thumbnail
    red = annotated.getpixel((320, 240))  # the arrow runs across the middle
    assert red[0] > 180 and red[1] < 90 and red[2] < 90, red
    assert annotated.getpixel((600, 20))[:2] == pytest.approx((120, 90), abs=25)  # the photo elsewhere

    # the office's markup joins the note; the original is still the same bytes
    supervisor = factory.user("supervisor", name="Sam Reyes")
    assert push(factory, client, supervisor, create("photo_annotation", {
        "photo_id": photo.id, "shapes": [{**ARROW, "colour": "#00ff00"}]}))["status"] == "applied"
    assert "Marked up by Dana Field and Sam Reyes;" in pdf_text(report(client, inspected).data)
    assert push(factory, client, inspected.inspector, edit("photo_annotation", record_id, 1, {"shapes": [LABEL]}))[
        "status"] == "applied"
    original = client.get(f"/api/v1/photos/{photo.id}/original", headers=inspected.headers)
    assert original.status_code == 200 and hashlib.sha256(original.data).hexdigest() == original_sha
    db.session.expire_all()
    assert db.session.get(Photo, photo.id).sha256 == original_sha


def test_the_applicant_report_shows_the_markup_too(inspected, client, factory):
    assert push(factory, client, inspected.inspector, create("photo_annotation", {
        "photo_id": inspected.uploaded, "shapes": [ARROW]}))["status"] == "applied"
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.applicant_headers)
    assert r.status_code == 200
    assert "Marked up by Dana Field;" in pdf_text(r.data)
    assert any(im.size == (640, 480) for im in images(r.data))
