"""A site ready for field work plus helpers that speak the sync protocol the way a tablet does."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from inspect_api.checklists.defaults import DEFAULT_ITEMS

API = "/api/v1"
T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def mid() -> str:
    return str(uuid.uuid4())


def entry_data(permit_id: str, **overrides) -> dict:
    data = {"permit_id": permit_id, "basis": "permit_condition", "granted_by_name": "Pat Owner",
            "granted_by_relation": "owner", "scope": ["examination", "survey", "sampling"],
            "valid_from": iso(T0 - timedelta(days=1)), "valid_to": iso(T0 + timedelta(days=30))}
    data.update(overrides)
    return data


def inspection_data(permit_id: str, entry_id: str | None, **overrides) -> dict:
    data = {"permit_id": permit_id, "kind": "routine", "started_at": iso(T0),
            "checklist": {"template": "esc", "items": [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]}}
    if entry_id:
        data["entry_authorization_id"] = entry_id
    data.update(overrides)
    return data


def create(entity: str, data: dict, record_id: str | None = None, mutation_id: str | None = None) -> dict:
    return {"mutation_id": mutation_id or mid(), "entity": entity, "id": record_id or str(uuid.uuid4()),
            "op": "upsert", "base_version": None, "data": data}


def edit(entity: str, record_id: str, base_version: int, data: dict, mutation_id: str | None = None) -> dict:
    return {"mutation_id": mutation_id or mid(), "entity": entity, "id": record_id, "op": "upsert",
            "base_version": base_version, "data": data}


def remove(entity: str, record_id: str, base_version: int | None) -> dict:
    return {"mutation_id": mid(), "entity": entity, "id": record_id, "op": "delete",
            "base_version": base_version, "data": {}}


@dataclass
class Tablet:
    """One device of one user: pushes batches and pulls pages like the app does."""

    client: Any
    headers: dict
    device_id: str
    cursor: str | None = None
    held: dict = field(default_factory=dict)  # (entity, id) -> change, what the device stores

    def push(self, mutations: list[dict], status: int = 200, **extra) -> list[dict]:
        response = self.client.post(f"{API}/sync/push", json={"device_id": self.device_id, "mutations": mutations,
                                                               **extra}, headers=self.headers)
        assert response.status_code == status, response.get_json()
        body = response.get_json()
        if status == 200:
            assert [r["mutation_id"] for r in body["results"]] == [m.get("mutation_id") for m in mutations]
            return body["results"]
        return body

    def pull_page(self, limit: int | None = None, cursor: str | None = None) -> dict:
        query = {}
        if cursor or self.cursor:
            query["cursor"] = cursor or self.cursor
        if limit:
            query["limit"] = limit
        response = self.client.get(f"{API}/sync/pull", query_string=query,
                                   headers={**self.headers, "X-Device-Id": self.device_id})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def sync_down(self, limit: int | None = None, max_pages: int = 1000) -> list[dict]:
        """Pull until has_more is false, applying each page to `held`; returns every change seen."""
        seen = []
        for _ in range(max_pages):
            page = self.pull_page(limit)
            keys = [(c["entity"], c["id"]) for c in page["changes"]]
            assert len(keys) == len(set(keys)), "a record came twice in one page"
            if limit:
                assert len(page["changes"]) <= limit
            for change in page["changes"]:
                key = (change["entity"], change["id"])
                if change["op"] == "delete":
                    self.held.pop(key, None)
                else:
                    self.held[key] = change
            seen.extend(page["changes"])
            self.cursor = page["cursor"]
            if not page["has_more"]:
                return seen
        raise AssertionError("pull never finished")

    def ids(self, entity: str) -> set[str]:
        return {rid for (e, rid) in self.held if e == entity}


@dataclass
class Site:
    client: Any
    factory: Any
    permit: Any
    applicant: Any
    inspector: Any
    supervisor: Any

    def tablet(self, user=None, device_id: str | None = None) -> Tablet:
        user = user or self.inspector
        device_id = device_id or f"tablet-{uuid.uuid4().hex[:8]}"
        return Tablet(self.client, self.factory.headers(user, device_id=device_id), device_id)

    def headers(self, user) -> dict:
        return self.factory.headers(user)

    def new_entry(self, tablet: Tablet | None = None, **overrides) -> str:
        record_id = str(uuid.uuid4())
        result = (tablet or self.tablet()).push([create("entry_authorization", entry_data(self.permit.id, **overrides),
                                                        record_id)])[0]
        assert result["status"] == "applied", result
        return record_id


@pytest.fixture
def site(app, client, factory) -> Site:
    supervisor = factory.user("supervisor")
    applicant = factory.user("applicant")
    inspector = factory.user("inspector")
    permit = factory.permit(applicant=applicant, status="issued")
    factory.assign(permit, inspector)
    return Site(client, factory, permit, applicant, inspector, supervisor)
