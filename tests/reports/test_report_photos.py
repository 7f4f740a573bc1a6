"""The inspection report's photos: each caption names who uploaded it, and a photo that does not count
for the inspection (its uploader never had the right to add it) is not in the report."""
from __future__ import annotations

import io
import uuid

import pytest

from inspect_api.extensions import db
from inspect_api.photos.models import Photo

pypdf = pytest.importorskip("pypdf")


def _text(response) -> str:
    reader = pypdf.PdfReader(io.BytesIO(response.data))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def test_captions_name_the_uploader_and_uncounted_photos_stay_out(inspected, client):
    stored = db.session.get(Photo, inspected.uploaded)
    # As an applicant's upload to the inspection would have been stored before parents were checked.
    forged = Photo(**{c.key: getattr(stored, c.key) for c in Photo.__table__.columns if c.key != "id"})
    forged.id, forged.created_by = str(uuid.uuid4()), inspected.applicant.id
    db.session.add(forged)
    db.session.commit()
    r = client.get(f"/api/v1/inspections/{inspected.inspection_id}/report.pdf", headers=inspected.headers)
    assert r.status_code == 200
    text = _text(r)
    assert "uploaded by Dana Field" in text
    assert f"uploaded by {inspected.applicant.name}" not in text and forged.id not in text
    assert text.count("uploaded by") == 1  # the one uploaded photo; the pending one has no uploader yet
