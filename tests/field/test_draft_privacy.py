"""A draft inspection is the inspector's working copy: the applicant sees neither it nor anything
recorded on it (findings, photos, photos of those findings) until it is submitted, through every
door: lists, direct reads (404, exactly as the inspection), photo bytes, and sync pull."""
from __future__ import annotations

import hashlib
import io
import uuid
from datetime import date

from PIL import Image

from .conftest import API


def _jpeg(color) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), color).save(buffer, "JPEG")
    return buffer.getvalue()


def _photo(site, parent_type: str, parent_id: str, color) -> str:
    data, photo_id = _jpeg(color), str(uuid.uuid4())
    r = site.client.put(f"{API}/photos/{photo_id}", data=data, query_string={
        "permit_id": site.permit.id, "parent_type": parent_type, "parent_id": parent_id},
        headers={**site.inspector_h, "Content-Type": "image/jpeg",
                 "X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    assert r.status_code == 201, r.get_json()
    return photo_id


def _applicant_sees(site, cursor: str | None = None) -> dict:
    client, h = site.client, site.applicant_h
    findings = client.get(f"{API}/findings", query_string={"permit_id": site.permit.id}, headers=h).get_json()
    photos = client.get(f"{API}/photos", query_string={"permit_id": site.permit.id}, headers=h).get_json()
    pulled = client.get(f"{API}/sync/pull", query_string={"cursor": cursor} if cursor else {},
                        headers={**h, "X-Device-Id": "applicant-phone"}).get_json()
    items = lambda body: body if isinstance(body, list) else body["items"]  # noqa: E731
    return {"findings": {f["id"] for f in items(findings)}, "photos": {p["id"] for p in items(photos)},
            "pulled": {c["id"] for c in pulled["changes"]}, "cursor": pulled["cursor"]}


def test_findings_and_photos_of_a_draft_inspection_stay_hidden_from_the_applicant(site):
    inspection_id = site.inspection_id()
    finding = site.client.post(f"{API}/findings", headers=site.inspector_h, json={
        "permit_id": site.permit.id, "inspection_id": inspection_id, "description": "Silt fence down",
        "observed_on": date(2026, 5, 4).isoformat()})
    assert finding.status_code == 201, finding.get_json()
    finding_id = finding.get_json()["id"]
    on_inspection = _photo(site, "inspection", inspection_id, (200, 20, 20))
    on_finding = _photo(site, "finding", finding_id, (20, 200, 20))
    hidden = {inspection_id, finding_id, on_inspection, on_finding}

    seen = _applicant_sees(site)
    assert not hidden & (seen["findings"] | seen["photos"] | seen["pulled"]), seen
    h = site.applicant_h
    for url in (f"inspections/{inspection_id}", f"findings/{finding_id}", f"photos/{on_inspection}",
                f"photos/{on_inspection}/original", f"photos/{on_inspection}/thumbnail", f"photos/{on_finding}",
                f"photos/{on_finding}/original", f"photos/{on_finding}/thumbnail"):
        r = site.client.get(f"{API}/{url}", headers=h)
        assert r.status_code == 404 and r.get_json()["error"] == "not_found", (url, r.status_code)
    # the inspector's own screens still hold all of it
    staff = site.client.get(f"{API}/photos", query_string={"permit_id": site.permit.id},
                            headers=site.inspector_h).get_json()
    assert {on_inspection, on_finding} <= {p["id"] for p in staff}

    # submitted, the inspection and everything on it is the applicant's to see, and the phone that
    # pulled before receives all of it on its next pull, though the finding and photos did not change
    assert site.submit(inspection_id).status_code == 200
    seen = _applicant_sees(site, cursor=seen["cursor"])
    assert finding_id in seen["findings"] and {on_inspection, on_finding} <= seen["photos"]
    assert hidden <= seen["pulled"]
    assert site.client.get(f"{API}/findings/{finding_id}", headers=h).status_code == 200
    assert site.client.get(f"{API}/photos/{on_finding}/thumbnail", headers=h).status_code == 200
