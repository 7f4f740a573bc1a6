"""A site ready for sampling: a permit, an assigned inspector, an authorization covering sampling."""
from __future__ import annotations

import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from inspect_api.entry.services import create_entry_authorization
from inspect_api.extensions import db

from ..town_clock import TownClock

T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)  # Monday 09:00 in Fairhaven


def make_authorization(inspector, permit, *, scope=("examination", "sampling"), valid_from=None, valid_to=None):
    record, _ = create_entry_authorization(inspector, {
        "permit_id": permit.id, "basis": "permit_condition", "granted_by_name": "Condition 12",
        "granted_by_relation": "permit condition", "scope": list(scope),
        "valid_from": valid_from or datetime(2026, 1, 1, tzinfo=timezone.utc),
        "valid_to": valid_to or datetime(2027, 1, 1, tzinfo=timezone.utc),
    })
    db.session.commit()
    return record


@pytest.fixture
def site(factory):
    applicant, applicant_headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant, status="active")
    inspector, headers = factory.as_role("inspector")
    factory.assign(permit, inspector)
    auth = make_authorization(inspector, permit)
    return SimpleNamespace(permit=permit, inspector=inspector, headers=headers, auth=auth, applicant=applicant,
                           applicant_headers=applicant_headers)


def sample_body(site, **overrides):
    body = {
        "id": str(uuid.uuid4()), "permit_id": site.permit.id, "entry_authorization_id": site.auth.id,
        "sampled_at": T0.isoformat(), "sampler": "Dana Field", "outfall_id": "OF-1", "sample_type": "grab",
        "analysis": "field", "parameters": [{"name": "ph", "value": 7.2, "unit": "SU"}],
    }
    body.update(overrides)
    return body


@pytest.fixture
def town_clock(monkeypatch):
    """The app's clock, pinned (tests/town_clock.py)."""
    return TownClock(monkeypatch)
