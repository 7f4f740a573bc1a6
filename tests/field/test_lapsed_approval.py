"""Disturbance after a lapsed B5/B6 approval (R-A6, R-B1): once the order of conditions the approval
rested on has expired, the project falls back to an administrative review (12,000 sq ft, R-A2) and
disturbance observed is work without approval, whether work had commenced while the order was valid
or not, and however the inspection arrives (a draft submitted, saved as submitted, a tablet's push)."""
from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta, timezone

import pytest

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.permits import services
from inspect_api.permits.models import PermitExemption

from .conftest import API, answers, iso

LAST_VALID = date(2026, 5, 10)   # the order of conditions' expiry date: valid through this day


def _town(day: date, hour: int = 10) -> datetime:
    return datetime.combine(day, time(hour, 0), tzinfo=clock.town_zone()).astimezone(timezone.utc)


@pytest.fixture
def lapsed(site, monkeypatch):
    """The site's permit as an approval resting on a B5 order of conditions valid through 10 May,
    seen on 12 May (lapsed on the 11th)."""
    monkeypatch.setattr(clock, "now", lambda: _town(date(2026, 5, 4), 12))     # approved while valid
    permit = site.permit
    permit.disturbed_area_sqft = 12000
    db.session.add(PermitExemption(permit_id=permit.id, kind="B5", document_number="SE 023-1234",
                                   issued_on=date(2025, 5, 1), expires_on=LAST_VALID,
                                   document_photo_id="scan-1", status="accepted"))
    db.session.flush()
    services.recompute_determination(permit)
    permit.number, permit.status = None, "approved"
    db.session.commit()
    assert permit.review_level == "exempt"
    monkeypatch.setattr(clock, "now", lambda: _town(date(2026, 5, 12), 12))
    return site


def _commence(site, day="2026-05-06"):
    """Work commenced while the order was valid (an inspector's record, as the office would record it)."""
    site.permit.status, site.permit.work_commenced_on = "active", date.fromisoformat(day)
    db.session.commit()


def _entry(site):
    return site.entry_id(valid_from=iso(_town(date(2026, 5, 1))), valid_to=iso(_town(date(2026, 5, 30))))


def _body(site, day: date, **extra):
    return site.inspection_body(_entry(site), kind="routine", started_at=iso(_town(day)),
                                ended_at=iso(_town(day, 11)), disturbance_observed=True, **extra)


def _without_approval(findings):
    return [f for f in findings if f["kind"] == "work_without_approval"]


def _submitted_as_draft(site, day):
    r = site.client.post(f"{API}/inspections", json=_body(site, day), headers=site.inspector_h)
    assert r.status_code == 201, r.get_json()
    r = site.submit(r.get_json()["id"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _saved_as_submitted(site, day):
    r = site.client.post(f"{API}/inspections", json=_body(site, day, status="submitted"), headers=site.inspector_h)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["status"] == "submitted"
    return r.get_json()


def _pushed(site, day, **status):
    """The inspection as a tablet pushes it (a draft, or with `status="submitted"`), as the server keeps it."""
    body = _body(site, day, **status)
    record_id = body.pop("id")
    device = f"tablet-{uuid.uuid4().hex[:8]}"
    headers = site.factory.headers(site.inspector, device_id=device)
    r = site.client.post(f"{API}/sync/push", headers=headers, json={"device_id": device, "mutations": [
        {"mutation_id": str(uuid.uuid4()), "entity": "inspection", "id": record_id, "op": "upsert",
         "base_version": None, "data": body}]})
    assert r.status_code == 200 and r.get_json()["results"][0]["status"] == "applied", r.get_json()
    return site.client.get(f"{API}/inspections/{record_id}", headers=site.inspector_h).get_json()


def _pushed_as_submitted(site, day):
    return _pushed(site, day, status="submitted")


PATHS = {"draft_then_submit": _submitted_as_draft, "saved_submitted": _saved_as_submitted,
         "sync_push": _pushed_as_submitted}


@pytest.mark.parametrize("commenced", [False, True], ids=["before_commencement", "after_commencement"])
@pytest.mark.parametrize("path", list(PATHS))
def test_disturbance_after_the_lapse_is_work_without_approval(lapsed, commenced, path):
    if commenced:
        _commence(lapsed)
    shown = lapsed.client.get(f"{API}/permits/{lapsed.permit.id}", headers=lapsed.supervisor_h).get_json()
    assert (shown["review_level"], shown["approval_lapsed"]) == ("administrative_review", True)
    inspection = PATHS[path](lapsed, LAST_VALID + timedelta(days=1))             # 11 May: the first lapsed day
    [finding] = _without_approval(inspection["findings"])
    assert finding["status"] == "open" and finding["severity"] == "high"
    assert finding["observed_on"] == "2026-05-11" and "R-A6" in finding["description"]
    assert "lapsed" in finding["description"]


def _saved_as_draft(site, day):
    r = site.client.post(f"{API}/inspections", json=_body(site, day), headers=site.inspector_h)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _pushed_as_draft(site, day):
    return _pushed(site, day)


DRAFTS = {"saved_draft": _saved_as_draft, "sync_push_draft": _pushed_as_draft}


@pytest.mark.parametrize("commenced", [False, True], ids=["before_commencement", "after_commencement"])
@pytest.mark.parametrize("path", list(DRAFTS))
def test_a_draft_observing_disturbance_after_the_lapse_carries_the_finding(lapsed, commenced, path):
    """R-A6 "on a draft and on a submitted inspection alike": the draft carries the finding, follows
    its edits, and submitting it keeps that one finding."""
    if commenced:
        _commence(lapsed)
    draft = DRAFTS[path](lapsed, LAST_VALID + timedelta(days=1))
    assert draft["status"] == "draft"
    [finding] = _without_approval(draft["findings"])
    assert finding["status"] == "open" and finding["severity"] == "high" and finding["observed_on"] == "2026-05-11"
    assert "R-A6" in finding["description"] and "lapsed" in finding["description"]
    r = lapsed.patch(draft["id"], draft["version"], {"disturbance_observed": False})
    assert r.status_code == 200 and _without_approval(r.get_json()["findings"]) == [], r.get_json()
    r = lapsed.patch(draft["id"], r.get_json()["version"], {"disturbance_observed": True})
    assert r.status_code == 200 and [f["id"] for f in _without_approval(r.get_json()["findings"])] == [finding["id"]]
    r = lapsed.submit(draft["id"])
    assert r.status_code == 200 and r.get_json()["status"] == "submitted", r.get_json()
    assert [f["id"] for f in _without_approval(r.get_json()["findings"])] == [finding["id"]]


def test_a_draft_on_the_last_valid_day_carries_none(lapsed):
    draft = _saved_as_draft(lapsed, LAST_VALID)
    assert draft["status"] == "draft" and _without_approval(draft["findings"]) == []


def test_a_deleted_draft_takes_its_finding_with_it(lapsed):
    draft = _saved_as_draft(lapsed, LAST_VALID + timedelta(days=1))
    [finding] = _without_approval(draft["findings"])
    url = f"{API}/findings/{finding['id']}"
    assert lapsed.client.get(url, headers=lapsed.supervisor_h).status_code == 200
    r = lapsed.client.delete(f"{API}/inspections/{draft['id']}",
                             headers={**lapsed.inspector_h, "If-Match": str(draft["version"])})
    assert r.status_code in (200, 204), r.get_json()
    r = lapsed.client.get(url, headers=lapsed.supervisor_h)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found", r.get_json()
    listed = lapsed.client.get(f"{API}/findings", query_string={"permit_id": lapsed.permit.id},
                               headers=lapsed.supervisor_h).get_json()
    assert finding["id"] not in {f["id"] for f in (listed if isinstance(listed, list) else listed["items"])}


@pytest.mark.parametrize("commenced", [False, True], ids=["before_commencement", "after_commencement"])
@pytest.mark.parametrize("path", list(PATHS))
def test_disturbance_on_the_last_valid_day_is_covered(lapsed, commenced, path):
    if commenced:
        _commence(lapsed)
    inspection = PATHS[path](lapsed, LAST_VALID)                                 # 10 May: still valid
    assert _without_approval(inspection["findings"]) == []
    assert inspection["status"] == "submitted"


def test_no_finding_without_disturbance_after_the_lapse(lapsed):
    r = lapsed.client.post(f"{API}/inspections", json={**_body(lapsed, LAST_VALID + timedelta(days=1)),
                                                       "disturbance_observed": False,
                                                       "checklist": {"template": "esc", "items": answers()}},
                           headers=lapsed.inspector_h)
    assert r.status_code == 201, r.get_json()
    r = lapsed.submit(r.get_json()["id"])
    assert r.status_code == 200 and _without_approval(r.get_json()["findings"]) == []


def test_the_lapse_rule_at_its_boundary():
    from inspect_api.inspections.rules import disturbance_after_lapse
    assert disturbance_after_lapse(True, True, LAST_VALID + timedelta(days=1), LAST_VALID) is True
    assert disturbance_after_lapse(True, True, LAST_VALID, LAST_VALID) is False
    assert disturbance_after_lapse(False, True, LAST_VALID + timedelta(days=1), LAST_VALID) is False
    assert disturbance_after_lapse(True, False, LAST_VALID + timedelta(days=1), LAST_VALID) is False
    assert disturbance_after_lapse(True, True, LAST_VALID, None) is True     # no valid day on record
