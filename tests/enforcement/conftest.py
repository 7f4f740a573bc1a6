"""Fixtures for enforcement tests: the cast (supervisor, inspector, permit holder, a stranger), an
issued permit with a finding, and a Town clock the test can set."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from inspect_api.extensions import db

from ..town_clock import TownClock


@pytest.fixture
def town_clock(monkeypatch):
    return TownClock(monkeypatch)


@pytest.fixture
def cast(factory):
    supervisor, sup_h = factory.as_role("supervisor")
    inspector, insp_h = factory.as_role("inspector")
    applicant, app_h = factory.as_role("applicant")
    stranger, str_h = factory.as_role("applicant")
    admin, admin_h = factory.as_role("admin")
    return SimpleNamespace(supervisor=supervisor, sup=sup_h, inspector=inspector, insp=insp_h,
                           applicant=applicant, app=app_h, stranger=stranger, other=str_h, admin=admin,
                           adm=admin_h)


@pytest.fixture
def permit(factory, cast):
    return factory.permit(cast.applicant, status="issued", disturbed_area_sqft=30000)


def make_finding(permit, observed_on=date(2026, 4, 27), description="Silt fence down along the east swale"):
    from inspect_api.inspections.findings import create_finding
    finding = create_finding(permit, kind="deficiency", description=description, observed_on=observed_on,
                             required_action="Re-trench and restake the silt fence")
    db.session.commit()
    return finding


@pytest.fixture
def finding(permit):
    return make_finding(permit)
