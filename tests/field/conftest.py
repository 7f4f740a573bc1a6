"""A site ready for field work: a permit, its applicant, an assigned inspector, a supervisor, and
helpers that go through the API the way a tablet does."""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from inspect_api.checklists.defaults import DEFAULT_ITEMS

API = "/api/v1"
T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)  # a Monday, 9:00 in Fairhaven


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def answers(deficient: dict[str, dict] | None = None, skip: tuple[str, ...] = ()) -> list[dict]:
    """Every item of the default checklist answered ok, except those given as deficient."""
    deficient = deficient or {}
    items = []
    for item in DEFAULT_ITEMS:
        if item["key"] in skip:
            continue
        if item["key"] in deficient:
            items.append({"key": item["key"], "answer": "deficient", **deficient[item["key"]]})
        else:
            items.append({"key": item["key"], "answer": "ok"})
    return items


@dataclass
class Site:
    client: Any
    factory: Any
    permit: Any
    applicant: Any
    applicant_h: dict
    inspector: Any
    inspector_h: dict
    supervisor: Any
    supervisor_h: dict

    def entry(self, headers: dict | None = None, **overrides) -> Any:
        body = {"id": str(uuid.uuid4()), "permit_id": self.permit.id, "basis": "owner_consent",
                "granted_by_name": "Pat Owner", "granted_by_relation": "owner",
                "scope": ["examination", "survey", "sampling"], "valid_from": iso(T0 - timedelta(days=1)),
                "valid_to": iso(T0 + timedelta(days=30)), "signature_photo_id": str(uuid.uuid4())}
        body.update(overrides)
        return self.client.post(f"{API}/entry-authorizations", json=body, headers=headers or self.inspector_h)

    def entry_id(self, **overrides) -> str:
        response = self.entry(**overrides)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    def inspection_body(self, entry_id: str | None, **overrides) -> dict:
        body = {"id": str(uuid.uuid4()), "permit_id": self.permit.id, "kind": "routine",
                "started_at": iso(T0), "ended_at": iso(T0 + timedelta(hours=1)),
                "location": {"lat": 41.6376, "lon": -70.9036, "accuracy_m": 6.5},
                "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.1},
                "phase": "Phase 1 - site clearing", "unsafe_areas": ["open trench east side"],
                "notes": "Contractor on site.", "checklist": {"template": "esc", "items": answers()}}
        if entry_id:
            body["entry_authorization_id"] = entry_id
        body.update(overrides)
        return body

    def inspection(self, entry_id: str | None = None, headers: dict | None = None, **overrides) -> Any:
        return self.client.post(f"{API}/inspections", json=self.inspection_body(entry_id, **overrides),
                                headers=headers or self.inspector_h)

    def inspection_id(self, **overrides) -> str:
        entry_id = overrides.pop("entry_id", None) or self.entry_id()
        response = self.inspection(entry_id, **overrides)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    def submit(self, inspection_id: str, headers: dict | None = None) -> Any:
        return self.client.post(f"{API}/inspections/{inspection_id}/submit", json={},
                                headers=headers or self.inspector_h)

    def review(self, inspection_id: str, decision: str = "approved", comment: str | None = None) -> Any:
        body = {"decision": decision, **({"comment": comment} if comment else {})}
        return self.client.post(f"{API}/inspections/{inspection_id}/review", json=body, headers=self.supervisor_h)

    def patch(self, inspection_id: str, version: int, body: dict, headers: dict | None = None) -> Any:
        return self.client.patch(f"{API}/inspections/{inspection_id}", json=body,
                                 headers={**(headers or self.inspector_h), "If-Match": str(version)})


@pytest.fixture
def site(factory, client) -> Site:
    applicant, applicant_h = factory.as_role("applicant")
    supervisor, supervisor_h = factory.as_role("supervisor")
    inspector, inspector_h = factory.as_role("inspector")
    permit = factory.permit(applicant=applicant, status="issued", disturbed_area_sqft=30000)
    factory.assign(permit, inspector)
    return Site(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor, supervisor_h)
