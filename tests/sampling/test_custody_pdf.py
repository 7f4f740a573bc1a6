"""GET /samples/{id}/custody.pdf: the chain-of-custody form for the lab, read back as text, with the
sample's own read rights."""
from __future__ import annotations

import hashlib
import io
import uuid
from datetime import timedelta

import pytest
from PIL import Image

from .conftest import T0, sample_body

pypdf = pytest.importorskip("pypdf")


def png_signature() -> bytes:
    buffer = io.BytesIO()
    image = Image.new("RGB", (600, 200), "white")
    for x in range(50, 550):
        image.putpixel((x, 100 + (x % 40) - 20), (13, 27, 34))
    image.save(buffer, "PNG")
    return buffer.getvalue()


def upload_signature(client, headers, permit_id, sample_id, photo_id) -> None:
    data = png_signature()
    r = client.put(f"/api/v1/photos/{photo_id}", data=data,
                   query_string={"permit_id": permit_id, "parent_type": "sample", "parent_id": sample_id},
                   headers={**headers, "Content-Type": "image/png", "X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    assert r.status_code == 201, r.get_json()


def text_of(response) -> tuple[str, object]:
    reader = pypdf.PdfReader(io.BytesIO(response.data))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split()), reader


@pytest.fixture
def custody(town_clock, site, client):
    # The clock is pinned before the site is made, so its assignment precedes the signature's upload
    # (a photo counts only from an inspector assigned when it arrived).
    town_clock.set_utc(T0 + timedelta(hours=50))
    sample_id, signed, unsigned = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    body = sample_body(site, id=sample_id, analysis="lab", lab_name="Bay Labs", notes="Below the <silt> fence & basin",
                       parameters=[
                           {"name": "turbidity", "value": None, "unit": "NTU", "container": "500 mL HDPE",
                            "preservative": "ice \u2264 6 \u00b0C"},
                           {"name": "tss", "value": None, "unit": "mg/L", "container": "1 L HDPE",
                            "preservative": "none"}],
                       chain_of_custody=[
                           {"from_name": "Dana Field", "to_name": "Casey Courier",
                            "at": (T0 + timedelta(hours=1)).isoformat(), "signature_photo_id": signed},
                           {"from_name": "Casey Courier", "to_name": "Robin Runner",
                            "at": (T0 + timedelta(hours=2)).isoformat(), "signature_photo_id": unsigned}])
    r = client.post("/api/v1/samples", json=body, headers=site.headers)
    assert r.status_code == 201, r.get_json()
    # The first hand-over's signature has arrived; the second is still on the device.
    upload_signature(client, site.headers, site.permit.id, sample_id, signed)
    site.sample_id = sample_id
    return site


def test_the_form_holds_what_the_lab_needs(custody, client):
    r = client.get(f"/api/v1/samples/{custody.sample_id}/custody.pdf", headers=custody.headers)
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data.startswith(b"%PDF-")
    number = custody.permit.number
    assert r.headers["Content-Disposition"] == f'inline; filename="custody-{number}-2026-05-04.pdf"'
    text, reader = text_of(r)
    assert custody.sample_id in text and number in text and custody.permit.site_address in text
    assert "Sampled at 2026-05-04 09:00 EDT" in text and "Sampler Dana Field" in text
    assert "discharge point OF-1" in text and "Bay Labs" in text and "Below the <silt> fence & basin" in text
    # Each analysis: container, preservative, holding time, analyse-by time, and its state at printing.
    assert "Turbidity 500 mL HDPE ice \u2264 6 \u00b0C 48 h 2026-05-06 09:00 EDT" in text
    assert "result pending; HOLDING TIME EXCEEDED by 2 h" in text
    assert "Total suspended solids 1 L HDPE none 7 days 2026-05-11 09:00 EDT" in text
    assert "result pending; not yet analysed" in text
    assert "exactly at the limit is within it" in text
    # The hand-overs in order, the signature that arrived drawn, the one that did not named as such.
    assert text.index("Dana Field Casey Courier 2026-05-04 10:00 EDT") < text.index(
        "Casey Courier Robin Runner 2026-05-04 11:00 EDT")
    assert "signature not yet uploaded" in text
    assert sum(len(page.images) for page in reader.pages) == 1
    # The lab's receipt is left for the lab to fill in.
    assert "Received at the laboratory" in text and "Temperature on receipt" in text
    assert "Signature of the person receiving for the laboratory" in text


def test_a_recorded_receipt_is_printed_and_the_form_follows_the_record(custody, client):
    url = f"/api/v1/samples/{custody.sample_id}/custody.pdf"
    first = client.get(url, headers=custody.headers)
    same = client.get(url, headers={**custody.headers, "If-None-Match": first.headers["ETag"]})
    assert same.status_code == 304
    r = client.patch(f"/api/v1/samples/{custody.sample_id}", headers=custody.headers, json={
        "version": 1, "received_by_lab_at": (T0 + timedelta(hours=3)).isoformat(), "lab_received_by": "Lee Lab",
        "lab_receipt_temperature_c": 4.5})
    assert r.status_code == 200, r.get_json()
    changed = client.get(url, headers={**custody.headers, "If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200 and changed.headers["ETag"] != first.headers["ETag"]
    text, _ = text_of(changed)
    assert "Received by Lee Lab" in text and "Date and time received 2026-05-04 12:00 EDT" in text
    assert "Temperature on receipt 4.5 \u00b0C" in text


def test_who_may_have_the_form(custody, factory, client):
    url = f"/api/v1/samples/{custody.sample_id}/custody.pdf"
    own = client.get(url, headers=custody.applicant_headers)
    assert own.status_code == 200 and own.data.startswith(b"%PDF-")
    _, supervisor = factory.as_role("supervisor")
    assert client.get(url, headers=supervisor).status_code == 200
    _, stranger = factory.as_role("applicant")
    other = client.get(url, headers=stranger)
    assert other.status_code == 404 and other.get_json()["error"] == "not_found"
    assert other.mimetype == "application/json"
    _, admin = factory.as_role("admin")
    assert client.get(url, headers=admin).status_code == 404
    assert client.get(url).status_code == 401
    missing = client.get(f"/api/v1/samples/{uuid.uuid4()}/custody.pdf", headers=custody.headers)
    assert missing.status_code == 404
