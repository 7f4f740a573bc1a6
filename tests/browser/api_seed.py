"""Records made through the HTTP API (as a device or another device would), for browser tests that
start from a site with history."""
from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timedelta, timezone


def now() -> datetime:
    return datetime.now(timezone.utc)


def entry_authorization(client, headers, permit_id: str) -> dict:
    body = {"id": str(uuid.uuid4()), "permit_id": permit_id, "basis": "permit_condition",
            "granted_by_name": "Permit condition 4", "granted_by_relation": "permit",
            "scope": ["examination", "survey", "sampling"],
            "valid_from": (now() - timedelta(days=1)).isoformat(), "valid_to": (now() + timedelta(days=60)).isoformat()}
    response = client.post("/api/v1/entry-authorizations", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def sample(client, headers, permit_id: str, ea_id: str, **overrides) -> dict:
    body = {"id": str(uuid.uuid4()), "permit_id": permit_id, "entry_authorization_id": ea_id,
            "sampled_at": (now() - timedelta(hours=1)).isoformat(), "sampler": "Ines Ortiz", "sample_type": "grab",
            "analysis": "field", "outfall_id": "OF-1", "parameters": [{"name": "turbidity", "value": "18", "unit": "NTU"}]}
    body.update(overrides)
    response = client.post("/api/v1/samples", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def photo(client, headers, permit_id: str, data: bytes, *, parent_type=None, parent_id=None, device=None) -> dict:
    photo_id = str(uuid.uuid4())
    query = {"permit_id": permit_id, "captured_at": now().isoformat()}
    if parent_type:
        query.update(parent_type=parent_type, parent_id=parent_id)
    if device:
        query.update(device_lat=device[0], device_lon=device[1], device_accuracy_m=device[2])
    response = client.put(f"/api/v1/photos/{photo_id}", query_string=query, data=data,
                          headers={**headers, "Content-Type": "image/jpeg", "X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def submitted_inspection(client, headers, permit_id: str, ea_id: str, template: dict, photos: list[bytes]) -> dict:
    inspection_id = str(uuid.uuid4())
    uploaded = [photo(client, headers, permit_id, data, parent_type="inspection", parent_id=inspection_id,
                      device=(41.6377, -70.9034, 9)) for data in photos]
    items = []
    for n, item in enumerate(template["items"]):
        answer = {"key": item["key"], "answer": "ok", "photo_ids": []}
        if n == 1:
            answer.update(answer="deficient", note="Wattle crushed by the excavator at the north corner.",
                          photo_ids=[p["id"] for p in uploaded], severity="high")
        items.append(answer)
    body = {"id": inspection_id, "permit_id": permit_id, "entry_authorization_id": ea_id, "kind": "routine",
            "started_at": (now() - timedelta(hours=2)).isoformat(), "ended_at": (now() - timedelta(hours=1)).isoformat(),
            "location": {"lat": 41.6376, "lon": -70.9035, "accuracy_m": 7},
            "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.4}, "phase": "Site grading",
            "notes": "Storm-event visit after 0.4 in overnight.",
            "checklist": {"template": template["key"], "template_version": template["version"], "items": items}}
    response = client.post("/api/v1/inspections", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    response = client.post(f"/api/v1/inspections/{inspection_id}/submit", json={}, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


COST_ITEMS = [{"category": "labor", "description": "DPW crew, 2 x 6 h", "amount": "720.00"},
              {"category": "contractor", "description": "Hydroseeding the swale banks", "amount": "2280.00"}]


def town_costs(client, sup, permit_id: str, monkeypatch, *, abated, received) -> dict:
    """A cost recovery (R-O2) from an order whose deadline passed before `abated`, the Town's work completed on
    `abated`, noticed to the owner and a violator who received it on `received`. The Town's clock is pinned
    while the past records are made, then given back."""
    from datetime import datetime, time, timedelta, timezone

    from inspect_api import clock

    original = clock.now

    def at(day):
        moment = datetime.combine(day, time(12), tzinfo=clock.town_zone()).astimezone(timezone.utc)
        monkeypatch.setattr(clock, "now", lambda: moment)

    at(abated - timedelta(days=15))
    order = client.post("/api/v1/orders", headers=sup, json={
        "permit_id": permit_id, "kinds": ["controls"], "requirements": [{"kind": "controls", "text": "Restore the silt fence."}],
        "deadline": (abated - timedelta(days=8)).isoformat()})
    assert order.status_code == 201, order.get_json()
    at(abated)
    r = client.post("/api/v1/cost-recoveries", headers=sup, json={
        "order_id": order.get_json()["id"], "abatement_completed_on": abated.isoformat(),
        "description": "The Town restored the silt fence along the east swale.", "items": COST_ITEMS})
    assert r.status_code == 201, r.get_json()
    monkeypatch.setattr(clock, "now", original)
    record = r.get_json()
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=sup, json={"version": record["version"], "recipients": [
        {"role": "owner", "name": "Ana Souza", "mailing_address": "7 Oxford Street, Fairhaven", "method": "certified_mail",
         "sent_on": (received - timedelta(days=2)).isoformat(), "received_on": received.isoformat()},
        {"role": "violator", "name": "Lee Clearing Co.", "method": "hand", "sent_on": received.isoformat(),
         "received_on": received.isoformat()}]})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def inspected_field_day(factory, client, photos: list[bytes]):
    """The field day (seed.field_day) with one inspection submitted by its inspector, on the owner's
    consent, with `photos`: (people, the inspector's headers, the inspection)."""
    from inspect_api.auth.models import User
    from inspect_api.extensions import db

    from .seed import field_day
    people = field_day(factory)
    headers = factory.headers(db.session.get(User, people.inspector_id))
    template = client.get("/api/v1/checklist-templates/esc", headers=headers).get_json()
    ea = entry_authorization(client, headers, people.site_id)
    return people, headers, submitted_inspection(client, headers, people.site_id, ea["id"], template, photos)


def storm_yesterday(app, inches: str) -> None:
    """Yesterday's rain as a NOAA CDO daily total, imported as the office would (R-I4)."""
    from inspect_api import clock
    from inspect_api.extensions import db
    from inspect_api.program import storm_events
    text = ('"STATION","NAME","DATE","PRCP","SNOW"\n'
            f'"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","{clock.today() - timedelta(days=1)}","{inches}","0.0"\n')
    with app.app_context():
        storm_events.import_daily_csv(None, text, "cdo.csv")
        db.session.commit()


def resident_report(client, description: str, *, lat: float, lon: float, address: str | None = None,
                    photo: bytes | None = None, **contact: str) -> str:
    """A resident's report sent as the public form sends it (multipart, the photo as `photos`): its reference."""
    import io
    data = {"description": description, "lat": str(lat), "lon": str(lon), **contact}
    if address:
        data["address"] = address
    if photo:
        data["photos"] = [(io.BytesIO(photo), "runoff.jpg", "image/jpeg")]
    response = client.post("/api/v1/public/reports", data=data, content_type="multipart/form-data")
    assert response.status_code == 201, response.get_json()
    return response.get_json()["reference"]
