"""One inspected site: a permit with a number, an inspector, entry, a submitted inspection with a
deficient item and photos (one uploaded, one pending), and samples on the day and the day after."""
from __future__ import annotations

import hashlib
import io
import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from PIL import Image

from inspect_api.checklists.services import find_template
from inspect_api.entry.services import create_entry_authorization
from inspect_api.extensions import db

DAY = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)  # Monday 09:00 in Fairhaven


def jpeg_bytes(color=(120, 90, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (640, 480), color).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


def upload_photo(client, headers, permit_id, **meta) -> str:
    photo_id = str(uuid.uuid4())
    data = jpeg_bytes()
    r = client.put(f"/api/v1/photos/{photo_id}", data=data, query_string={"permit_id": permit_id, **meta},
                   headers={**headers, "Content-Type": "image/jpeg",
                            "X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    assert r.status_code == 201, r.get_json()
    return photo_id


@pytest.fixture
def inspected(factory, client):
    applicant, applicant_headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant, status="active")
    inspector, headers = factory.as_role("inspector", name="Dana Field")
    factory.assign(permit, inspector)
    auth, _ = create_entry_authorization(inspector, {
        "permit_id": permit.id, "basis": "permit_condition", "granted_by_name": "Condition 12",
        "granted_by_relation": "permit condition", "scope": ["examination", "sampling"],
        "valid_from": datetime(2026, 1, 1, tzinfo=timezone.utc), "valid_to": datetime(2027, 1, 1, tzinfo=timezone.utc)})
    db.session.commit()
    template = find_template("esc")
    deficient_key = template.items[1]["key"]
    inspection_id = str(uuid.uuid4())
    uploaded = upload_photo(client, headers, permit.id, parent_type="inspection", parent_id=inspection_id)
    pending = str(uuid.uuid4())
    items = [{"key": item["key"], "answer": "ok"} for item in template.items]
    items[1] = {"key": deficient_key, "answer": "deficient", "note": "Silt fence down <north> side & torn",
                "photo_ids": [uploaded, pending]}
    items[2] = {"key": template.items[2]["key"], "answer": "n/a", "note": "No entrance yet"}
    body = {"id": inspection_id, "permit_id": permit.id, "entry_authorization_id": auth.id, "kind": "routine",
            "started_at": DAY.isoformat(), "ended_at": "2026-05-04T14:10:00Z",
            "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.3},
            "phase": "Phase 1 grading", "unsafe_areas": ["east stockpile"],
            "checklist": {"template": "esc", "items": items}}
    r = client.post("/api/v1/inspections", json=body, headers=headers)
    assert r.status_code == 201, r.get_json()
    r = client.post(f"/api/v1/inspections/{inspection_id}/submit", json={"version": 1}, headers=headers)
    assert r.status_code == 200, r.get_json()
    samples = []
    for at, value in (("2026-05-04T15:30:00Z", 9.1), ("2026-05-05T15:30:00Z", 9.4)):
        r = client.post("/api/v1/samples", headers=headers, json={
            "permit_id": permit.id, "sampled_at": at, "sampler": "Dana Field", "outfall_id": "OF-1",
            "sample_type": "grab", "analysis": "field",
            "parameters": [{"name": "ph", "value": value, "unit": "SU"}, {"name": "turbidity", "value": 20,
                                                                          "unit": "NTU"}]})
        assert r.status_code == 201, r.get_json()
        samples.append(r.get_json())
    return SimpleNamespace(permit=permit, inspector=inspector, headers=headers, applicant=applicant,
                           applicant_headers=applicant_headers, auth=auth, inspection_id=inspection_id,
                           template=template, deficient_key=deficient_key, uploaded=uploaded, pending=pending,
                           samples=samples)
