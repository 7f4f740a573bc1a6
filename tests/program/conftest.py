"""A site in the inspection program: an issued permit with its applicant, an assigned inspector, a
supervisor and an admin; the Town's clock set by the test; helpers that go through the API."""
from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta, timezone

import pytest

from inspect_api import clock

from ..enforcement.conftest import TownClock
from ..field.conftest import Site, iso

API = "/api/v1"
DAY0 = date(2026, 5, 4)  # a Monday


def town(day: date, hh: int = 12, mm: int = 0, ss: int = 0) -> datetime:
    return datetime.combine(day, time(hh, mm, ss), tzinfo=clock.town_zone()).astimezone(timezone.utc)


class ProgramSite(Site):
    def entry_id(self, **overrides) -> str:
        overrides.setdefault("valid_from", iso(town(DAY0 - timedelta(days=40))))
        overrides.setdefault("valid_to", iso(town(DAY0 + timedelta(days=60))))
        return super().entry_id(**overrides)

    def commence(self, day: date = DAY0) -> dict:
        response = self.client.post(f"{API}/permits/{self.permit.id}/transitions",
                                    json={"to": "active", "on": day.isoformat()}, headers=self.supervisor_h)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def record(self, kind: str, started: datetime, submit: bool = True, **overrides) -> str:
        """An inspection of `kind` started at `started`, submitted (recorded) unless told otherwise."""
        inspection_id = self.inspection_id(kind=kind, started_at=iso(started),
                                           ended_at=iso(started + timedelta(minutes=30)), **overrides)
        if submit:
            response = self.submit(inspection_id)
            assert response.status_code == 200, response.get_json()
        return inspection_id

    def storm(self, ended: datetime, inches: str = "0.25", **extra):
        """A supervisor records a storm once it has ended: the Town's clock moves past its end if need be."""
        if clock.now() < ended:
            self.clock.set_utc(ended + timedelta(minutes=1))
        return self.client.post(f"{API}/storm-events", json={"ended_at": iso(ended), "inches": inches,
                                                              "source": "rain gauge at Town Hall", **extra},
                                headers=self.supervisor_h)

    def due(self, headers: dict | None = None, **query):
        response = self.client.get(f"{API}/inspections/due", query_string=query,
                                   headers=headers or self.inspector_h)
        assert response.status_code == 200, response.get_json()
        return response.get_json()


@pytest.fixture
def town_clock(monkeypatch):
    moment = TownClock(monkeypatch)
    moment.set(DAY0, time(8, 0))
    return moment


@pytest.fixture
def site(factory, client, town_clock) -> ProgramSite:
    applicant, applicant_h = factory.as_role("applicant")
    supervisor, supervisor_h = factory.as_role("supervisor")
    inspector, inspector_h = factory.as_role("inspector")
    permit = factory.permit(applicant=applicant, status="issued", disturbed_area_sqft=30000)
    factory.assign(permit, inspector)
    site = ProgramSite(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor,
                       supervisor_h)
    site.clock = town_clock
    return site


def new_id() -> str:
    return str(uuid.uuid4())
