"""Findings (R-I4): exactly one per deficient item, due dates, follow-up verification, R-A6, queries."""
import uuid
from datetime import date, datetime, timedelta

from inspect_api.clock import town_zone
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.models import Finding

from ..sql_count import counting
from .conftest import API, T0, answers, iso

DEFICIENT = {"inlet_protection": {"note": "Silt sack at CB-2 torn", "severity": "high",
                                  "photo_ids": ["8f7c1e7e-58b4-4bd1-9cb9-1bb3e5a1f001"]},
             "perimeter_controls_maintained": {"note": "Sediment at 2/3 of silt fence height"}}


def findings_of(site, **query):
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    r = site.client.get(f"{API}/findings?{qs}", headers=site.supervisor_h)
    assert r.status_code == 200
    return r.get_json()


def test_each_deficient_item_makes_exactly_one_finding(site):
    iid = site.inspection_id(checklist={"template": "esc", "items": answers(DEFICIENT)})
    r = site.submit(iid)
    assert r.status_code == 200
    made = {f["item_key"]: f for f in r.get_json()["findings"]}
    assert set(made) == {"inlet_protection", "perimeter_controls_maintained"}
    inlet = made["inlet_protection"]
    assert inlet["kind"] == "deficiency" and inlet["severity"] == "high" and inlet["status"] == "open"
    assert inlet["description"] == "Catch basin and inlet protection: deficient. Silt sack at CB-2 torn"
    assert inlet["needs_new_control"] is True  # the template's default for inlet protection
    assert inlet["observed_on"] == "2026-05-04" and inlet["due_on"] == "2026-05-11"  # 7 calendar days
    assert inlet["photo_ids"] == ["8f7c1e7e-58b4-4bd1-9cb9-1bb3e5a1f001"] and inlet["inspection_id"] == iid
    fence = made["perimeter_controls_maintained"]
    assert fence["needs_new_control"] is False and fence["severity"] == "moderate"
    assert fence["due_on"] == "2026-05-05"  # close of the next business day
    assert fence["required_action"] == "Repair or maintain perimeter controls so it works as the ESC plan requires."
    assert len(findings_of(site, permit_id=site.permit.id)) == 2


def test_resubmission_updates_instead_of_duplicating(site):
    iid = site.inspection_id(checklist={"template": "esc", "items": answers(DEFICIENT)})
    first = {f["item_key"]: f for f in site.submit(iid).get_json()["findings"]}
    returned = site.review(iid, "returned", "The fence is a replacement, not maintenance.")
    changed = {"perimeter_controls_maintained": {"note": "Fence down for 40 ft", "needs_new_control": True},
               "dust_control": {"note": "Visible dust leaving site"}}
    edited = site.patch(iid, returned.get_json()["version"], {"checklist": {"template": "esc", "items": answers(changed)}})
    assert edited.status_code == 200
    second = {f["item_key"]: f for f in site.submit(iid).get_json()["findings"]}
    assert set(second) == {"perimeter_controls_maintained", "dust_control"}
    fence = second["perimeter_controls_maintained"]
    assert fence["id"] == first["perimeter_controls_maintained"]["id"]  # the same finding, updated
    assert fence["needs_new_control"] is True and fence["due_on"] == "2026-05-11" and fence["version"] == 2
    assert fence["description"] == "Perimeter controls maintained: deficient. Fence down for 40 ft"
    # the inlet is no longer deficient: its open finding is withdrawn, not left behind
    assert site.client.get(f"{API}/findings/{first['inlet_protection']['id']}", headers=site.supervisor_h).status_code == 404
    assert sorted(f["item_key"] for f in findings_of(site, permit_id=site.permit.id)) == [
        "dust_control", "perimeter_controls_maintained"]
    # answering it deficient again brings the same finding back rather than a second one
    returned = site.review(iid, "returned", "Inlet was torn after all.")
    site.patch(iid, returned.get_json()["version"], {"checklist": {"template": "esc", "items": answers(DEFICIENT)}})
    third = {f["item_key"]: f["id"] for f in site.submit(iid).get_json()["findings"]}
    assert third["inlet_protection"] == first["inlet_protection"]["id"]
    assert len(findings_of(site, permit_id=site.permit.id)) == 2


def test_observed_on_is_the_town_day(site):
    late_evening = datetime(2026, 5, 5, 2, 0, tzinfo=T0.tzinfo)  # 22:00 on May 4 in Fairhaven
    iid = site.inspection_id(started_at=iso(late_evening), ended_at=None,
                             checklist={"template": "esc", "items": answers({"dust_control": {}})})
    (finding,) = site.submit(iid).get_json()["findings"]
    assert finding["observed_on"] == "2026-05-04" and finding["due_on"] == "2026-05-05"


def test_follow_up_verifies_on_approval(site):
    iid = site.inspection_id(checklist={"template": "esc", "items": answers(DEFICIENT)})
    site.submit(iid)
    site.review(iid, "approved")
    inlet = next(f for f in findings_of(site) if f["item_key"] == "inlet_protection")
    later = T0 + timedelta(days=3)
    follow = site.inspection_id(kind="follow_up", started_at=iso(later), ended_at=None, verifies_finding_ids=[inlet["id"]])
    submitted = site.submit(follow)
    assert submitted.status_code == 200
    assert site.client.get(f"{API}/findings/{inlet['id']}", headers=site.supervisor_h).get_json()["status"] == "open"
    assert site.review(follow, "approved").status_code == 200
    closed = site.client.get(f"{API}/findings/{inlet['id']}", headers=site.supervisor_h).get_json()
    assert closed["status"] == "closed" and closed["verified_fixed_on"] == "2026-05-07"
    assert closed["verified_by_inspection_id"] == follow and closed["overdue"] is False
    assert [f["id"] for f in findings_of(site, status="closed")] == [inlet["id"]]
    assert [f["item_key"] for f in findings_of(site, status="open")] == ["perimeter_controls_maintained"]


def test_follow_up_refuses_foreign_findings(site, factory):
    other = factory.permit(status="issued")
    factory.assign(other, site.inspector)
    r = site.client.post(f"{API}/findings", headers=site.supervisor_h, json={
        "permit_id": other.id, "description": "Oil sheen at outfall", "observed_on": "2026-05-04"})
    assert r.status_code == 201
    bad = site.inspection(site.entry_id(), kind="follow_up", verifies_finding_ids=[r.get_json()["id"]])
    assert bad.status_code == 422 and bad.get_json()["errors"] == {
        "verifies_finding_ids": ["Each id must be a finding of this permit, listed once."]}


def test_work_without_approval_r_a6(site, factory):
    pending = factory.permit(applicant=site.applicant, status="under_review", disturbed_area_sqft=12000)
    factory.assign(pending, site.inspector)
    eid = site.entry_id(permit_id=pending.id)
    iid = site.inspection_id(entry_id=eid, permit_id=pending.id, disturbance_observed=True)
    (finding,) = site.submit(iid).get_json()["findings"]
    assert finding["kind"] == "work_without_approval" and finding["severity"] == "high"
    assert finding["item_key"] is None and finding["due_on"] == "2026-05-05"
    assert "under review" in finding["description"]
    # the same visit on an issued permit, or on a project under 5,000 sq ft, raises nothing
    issued = site.inspection_id(disturbance_observed=True)
    assert site.submit(issued).get_json()["findings"] == []
    small = factory.permit(status="draft", disturbed_area_sqft=3000)
    factory.assign(small, site.inspector)
    small_iid = site.inspection_id(entry_id=site.entry_id(permit_id=small.id), permit_id=small.id,
                                   disturbance_observed=True)
    assert site.submit(small_iid).get_json()["findings"] == []
    # taking the observation back on resubmission withdraws the finding
    returned = site.review(iid, "returned", "That was the neighbour's lot.")
    site.patch(iid, returned.get_json()["version"], {"disturbance_observed": False})
    assert site.submit(iid).get_json()["findings"] == []


def test_overdue_and_manual_findings(site, client):
    today = datetime.now(town_zone()).date()
    old = client.post(f"{API}/findings", headers=site.inspector_h, json={
        "permit_id": site.permit.id, "description": "Washout overflowing", "observed_on": "2026-05-04"})
    fresh = client.post(f"{API}/findings", headers=site.inspector_h, json={
        "permit_id": site.permit.id, "description": "New stockpile uncovered", "observed_on": today.isoformat(),
        "needs_new_control": True, "severity": "low"})
    assert old.status_code == 201 and fresh.status_code == 201
    assert old.get_json()["overdue"] is True and old.get_json()["due_on"] == "2026-05-05"
    assert fresh.get_json()["overdue"] is False and fresh.get_json()["due_on"] == (today + timedelta(days=7)).isoformat()
    assert [f["id"] for f in findings_of(site, status="overdue")] == [old.get_json()["id"]]
    assert {f["id"] for f in findings_of(site, status="open")} == {old.get_json()["id"], fresh.get_json()["id"]}
    bad = client.get(f"{API}/findings?status=late", headers=site.supervisor_h)
    assert bad.status_code == 422 and "status" in bad.get_json()["errors"]


def test_manual_finding_is_idempotent(site, client):
    body = {"id": str(uuid.uuid4()), "permit_id": site.permit.id, "description": "Oil sheen", "observed_on": "2026-05-04"}
    first = client.post(f"{API}/findings", json=body, headers=site.inspector_h)
    again = client.post(f"{API}/findings", json=body, headers=site.inspector_h)
    assert first.status_code == 201 and again.status_code == 200 and again.get_json() == first.get_json()
    other = client.post(f"{API}/findings", json={**body, "description": "Something else"}, headers=site.inspector_h)
    assert other.status_code == 409 and other.get_json()["error"] == "conflict"
    by_applicant = client.post(f"{API}/findings", json={**body, "id": str(uuid.uuid4())}, headers=site.applicant_h)
    assert by_applicant.status_code == 403


def test_supervisor_adjusts_a_finding(site, client):
    made = client.post(f"{API}/findings", headers=site.inspector_h, json={
        "permit_id": site.permit.id, "description": "Check dam washed out", "observed_on": "2026-05-04"}).get_json()
    url = f"{API}/findings/{made['id']}"
    no_reason = client.patch(url, json={"due_on": "2026-05-20", "version": 1}, headers=site.supervisor_h)
    assert no_reason.status_code == 422 and "due_on_reason" in no_reason.get_json()["errors"]
    too_early = client.patch(url, json={"due_on": "2026-05-01", "due_on_reason": "x", "version": 1},
                             headers=site.supervisor_h)
    assert too_early.status_code == 422 and "due_on" in too_early.get_json()["errors"]
    ok = client.patch(url, json={"due_on": "2026-05-20", "due_on_reason": "Stone on back order", "severity": "high",
                                 "required_action": "Rebuild with 2 in. stone", "version": 1}, headers=site.supervisor_h)
    assert ok.status_code == 200
    body = ok.get_json()
    assert body["due_on"] == "2026-05-20" and body["due_on_override_reason"] == "Stone on back order"
    assert body["severity"] == "high" and body["required_action"] == "Rebuild with 2 in. stone" and body["version"] == 2
    by_inspector = client.patch(url, json={"severity": "low", "version": 2}, headers=site.inspector_h)
    assert by_inspector.status_code == 403
    no_version = client.patch(url, json={"severity": "low"}, headers=site.supervisor_h)
    assert no_version.status_code == 428


def test_findings_module_interface(site, app):
    """The interface other domains use (INTERFACES.md): create_finding and open_findings_query."""
    from inspect_api.extensions import db
    from inspect_api.inspections.findings import create_finding, open_findings_query
    finding = create_finding(site.permit, kind="exceedance", description="Turbidity 180 NTU at OF-1",
                             observed_on=date(2026, 5, 8), sample_id=str(uuid.uuid4()), parameter="turbidity",
                             actor=site.inspector)
    db.session.commit()
    assert finding.due_on == date(2026, 5, 11) and finding.status == "open" and finding.severity == "moderate"
    query = open_findings_query(site.applicant, permit_id=site.permit.id, status="overdue", on=date(2026, 5, 11))
    assert db.session.scalars(query).all() == []
    query = open_findings_query(site.applicant, permit_id=site.permit.id, status="overdue", on=date(2026, 5, 12))
    assert [f.id for f in db.session.scalars(query)] == [finding.id]


def test_work_without_approval_looks_at_the_status_on_the_day_of_the_visit(site, factory, app):
    """Issued after the visit: the disturbance seen before issuance is still work without approval."""
    from inspect_api.extensions import db
    from inspect_api.permits.models import PermitEvent
    permit = factory.permit(applicant=site.applicant, status="issued", disturbed_area_sqft=25000)
    factory.assign(permit, site.inspector)
    db.session.add_all([
        PermitEvent(permit_id=permit.id, from_status="submitted", to_status="under_review", at=T0 - timedelta(days=5)),
        PermitEvent(permit_id=permit.id, from_status="under_review", to_status="issued", at=T0 + timedelta(days=2))])
    db.session.commit()
    before = site.inspection_id(entry_id=site.entry_id(permit_id=permit.id), permit_id=permit.id,
                                disturbance_observed=True)
    (finding,) = site.submit(before).get_json()["findings"]
    assert finding["kind"] == "work_without_approval"
    assert finding["description"].startswith("Land disturbance observed while the project's status was under review")
    after = site.inspection_id(entry_id=site.entry_id(permit_id=permit.id), permit_id=permit.id,
                               started_at=iso(T0 + timedelta(days=3)), ended_at=None, disturbance_observed=True)
    assert site.submit(after).get_json()["findings"] == []


def test_a_finding_made_on_a_device_is_stored_in_one_insert_with_its_device(site, client):
    """A finding arrives with the device it was made on: one INSERT with it, not an INSERT and then an
    UPDATE to add the device."""
    headers = site.factory.headers(site.inspector, device_id="tablet-findings")
    entry = site.entry(headers=headers)
    assert entry.status_code == 201
    with counting() as statements:
        made = client.post(f"{API}/findings", headers=headers, json={
            "permit_id": site.permit.id, "description": "Silt fence down at the swale", "observed_on": "2026-05-04"})
    assert made.status_code == 201 and made.get_json()["description"] == "Silt fence down at the swale"
    assert [s.split(" (")[0] for s in statements if s.startswith(("INSERT INTO findings", "UPDATE findings"))] \
        == ["INSERT INTO findings"]
    device = db.session.get(EntryAuthorization, entry.get_json()["id"]).device_id
    assert device and db.session.get(Finding, made.get_json()["id"]).device_id == device
