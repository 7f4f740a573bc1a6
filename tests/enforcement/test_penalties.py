"""Violations, penalty exposure (R-P1) and citations with the fine schedule (R-P2) through the API."""
from __future__ import annotations

from datetime import date

import pytest

from inspect_api.extensions import db
from inspect_api.permits.models import PermitCondition


@pytest.fixture
def conditions(permit):
    rows = [PermitCondition(permit_id=permit.id, number=n, text=text) for n, text in
            ((1, "Maintain perimeter controls"), (2, "Stabilize inactive areas within 14 days"),
             (3, "Keep the construction entrance stabilized"))]
    db.session.add_all(rows)
    db.session.commit()
    return rows


def violation(client, cast, permit, **body):
    payload = {"permit_id": permit.id, "provision_kind": "permit_condition", **body}
    r = client.post("/api/v1/violations", json=payload, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_exposure_across_conditions_and_days(client, cast, permit, conditions, finding, town_clock):
    town_clock.set(date(2026, 5, 31))
    c1, c2, _ = conditions
    v1 = violation(client, cast, permit, condition_id=c1.id, first_observed_on="2026-05-01",
                   last_observed_on="2026-05-10", finding_ids=[finding.id])
    violation(client, cast, permit, condition_id=c2.id, first_observed_on="2026-05-05", last_observed_on="2026-05-07")
    violation(client, cast, permit, provision_kind="esc_plan", provision="ESC plan sheet C-3: check dams",
              first_observed_on="2026-05-25", last_observed_on=None)
    r = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure?through=2026-05-26", headers=cast.sup)
    assert r.status_code == 200
    body = r.get_json()
    assert [(v["days"], v["offenses"], v["max_penalty_usd"]) for v in body["violations"]] == [
        (10, 10, "3000.00"), (3, 3, "900.00"), (2, 2, "600.00")]
    assert body["violations"][0]["id"] == v1["id"] and body["violations"][0]["condition_number"] == 1
    assert (body["offense_count"], body["max_penalty_usd"]) == (15, "4500.00")
    assert body["penalty_per_offense_usd"] == "300.00"
    assert body["note"] == "maximum exposure; the court decides any fine"
    capped = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure?through=2026-05-06", headers=cast.sup)
    # Through 6 May: 6 days of condition 1, 2 of condition 2, the ESC breach not yet begun.
    assert [v["days"] for v in capped.get_json()["violations"]] == [6, 2, 0]
    assert capped.get_json()["max_penalty_usd"] == "2400.00"
    today = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure", headers=cast.sup).get_json()
    assert today["through"] == "2026-05-31" and today["violations"][2]["days"] == 7


def test_overlapping_records_of_one_condition_count_each_day_once(client, cast, permit, conditions, town_clock):
    town_clock.set(date(2026, 6, 1))
    violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-01",
              last_observed_on="2026-05-06")
    violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-05",
              last_observed_on="2026-05-12")
    body = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure?through=2026-06-01", headers=cast.sup).get_json()
    assert [v["offenses"] for v in body["violations"]] == [6, 6] and body["offense_count"] == 12


def test_exposure_visibility(client, cast, permit, conditions, town_clock):
    violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-01",
              last_observed_on="2026-05-01")
    r = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure?through=2026-05-02", headers=cast.app)
    assert r.status_code == 200 and r.get_json()["offense_count"] == 1
    r = client.get(f"/api/v1/permits/{permit.id}/penalty-exposure", headers=cast.other)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get("/api/v1/violations", headers=cast.other).get_json() == []


def test_violation_validation_and_roles(client, cast, permit, conditions, factory, town_clock):
    other = factory.permit(cast.stranger, status="issued")
    foreign = PermitCondition(permit_id=other.id, number=1, text="Other site's condition")
    db.session.add(foreign)
    db.session.commit()
    bad = {"permit_id": permit.id, "provision_kind": "permit_condition", "condition_id": foreign.id,
           "first_observed_on": "2026-05-03", "last_observed_on": "2026-05-01"}
    r = client.post("/api/v1/violations", json=bad, headers=cast.sup)
    assert r.status_code == 422 and set(r.get_json()["errors"]) == {"condition_id", "last_observed_on"}
    r = client.post("/api/v1/violations", json={**bad, "provision_kind": "bylaw", "condition_id": None,
                                                "last_observed_on": None}, headers=cast.sup)
    assert r.status_code == 422 and set(r.get_json()["errors"]) == {"provision"}
    for headers in (cast.insp, cast.app):
        r = client.post("/api/v1/violations", json={**bad, "condition_id": conditions[0].id,
                                                    "last_observed_on": None}, headers=headers)
        assert r.status_code == 403


def test_violation_referral_and_court_notes(client, cast, permit, conditions, town_clock):
    v = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-04-20")
    assert v["ongoing"] is True
    r = client.patch(f"/api/v1/violations/{v['id']}", json={
        "version": 1, "last_observed_on": "2026-05-01", "referral_note": "Referred to Town Counsel for an injunction",
        "court_case_note": "Bristol Superior Court, civil action filed"}, headers=cast.sup)
    assert r.status_code == 200
    body = r.get_json()
    assert (body["ongoing"], body["last_observed_on"], body["version"]) == (False, "2026-05-01", 2)
    assert body["referral_note"].startswith("Referred to Town Counsel")
    r = client.patch(f"/api/v1/violations/{v['id']}", json={"version": 1, "description": "x"}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "version_conflict"


def cite(client, cast, v, offense_on, name="Acme Site Works LLC", **extra):
    body = {"violation_id": v["id"], "violator": {"name": name, "address": "1 Wharf Rd"},
            "offense_on": offense_on, "bylaw_section": "194-21(C)", **extra}
    return client.post("/api/v1/citations", json=body, headers=cast.sup)


def test_citations_count_offenses_within_12_months(client, cast, permit, conditions, town_clock):
    town_clock.set(date(2026, 6, 30))
    v1 = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2025-04-01")
    v2 = violation(client, cast, permit, condition_id=conditions[1].id, first_observed_on="2026-05-01")
    first = cite(client, cast, v1, "2025-06-01", delivery={"method": "hand", "delivered_on": "2025-06-02"})
    assert first.status_code == 201
    body = first.get_json()
    assert (body["number"], body["offense_number"], body["fine_usd"]) == ("CIT-2025-0001", 1, "100.00")
    assert body["respond_by"] == "2025-06-23" and body["delivery"] == {"method": "hand", "delivered_on": "2025-06-02"}
    assert "court" in body["disposition"]
    second = cite(client, cast, v1, "2026-05-10").get_json()
    assert (second["number"], second["offense_number"], second["fine_usd"], second["respond_by"]) == (
        "CIT-2026-0001", 2, "200.00", None)
    third = cite(client, cast, v1, "2026-05-11").get_json()
    assert (third["offense_number"], third["fine_usd"]) == (3, "300.00")
    fourth = cite(client, cast, v1, "2026-05-12").get_json()
    assert (fourth["offense_number"], fourth["fine_usd"]) == (4, "300.00")
    # Another condition is another provision; another violator is counted apart.
    assert cite(client, cast, v2, "2026-05-12").get_json()["offense_number"] == 1
    assert cite(client, cast, v1, "2026-05-12", name="Pat Owner").get_json()["offense_number"] == 1
    # Same violator (name compared without case and spacing), provision and day: a duplicate.
    r = cite(client, cast, v1, "2026-05-12", name="  acme site   works llc")
    assert r.status_code == 409 and r.get_json()["error"] == "duplicate_citation"


def test_offense_after_12_months_starts_again(client, cast, permit, conditions, town_clock):
    town_clock.set(date(2026, 6, 30))
    v = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2025-04-01")
    assert cite(client, cast, v, "2025-05-09", name="A").status_code == 201
    assert cite(client, cast, v, "2025-05-10", name="B").status_code == 201
    # 12 months before 10 May 2026 is 10 May 2025, inclusive: B's is a second offense, A's is not.
    assert cite(client, cast, v, "2026-05-10", name="A").get_json()["offense_number"] == 1
    assert cite(client, cast, v, "2026-05-10", name="B").get_json()["offense_number"] == 2


def test_citation_delivery_window_and_validation(client, cast, permit, conditions, town_clock):
    town_clock.set(date(2026, 5, 20))
    v = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-01",
                  last_observed_on="2026-05-10")
    r = cite(client, cast, v, "2026-05-11")
    assert r.status_code == 422 and "offense_on" in r.get_json()["errors"]
    r = cite(client, cast, v, "2026-05-05", delivery={"method": "hand", "delivered_on": "2026-05-04"})
    assert r.status_code == 422 and "delivery" in r.get_json()["errors"]
    c = cite(client, cast, v, "2026-05-05").get_json()
    r = client.patch(f"/api/v1/citations/{c['id']}", json={"version": 1, "delivery": {
        "method": "certified_mail", "delivered_on": "2026-05-08"}}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["respond_by"] == "2026-05-29"
    for headers in (cast.insp, cast.app):
        r = client.post("/api/v1/citations", json={"violation_id": v["id"], "violator": {"name": "X"},
                                                   "offense_on": "2026-05-07", "bylaw_section": "194-21"},
                        headers=headers)
        assert r.status_code == 403
    assert client.get(f"/api/v1/citations/{c['id']}", headers=cast.app).get_json()["number"] == c["number"]
    assert client.get(f"/api/v1/citations/{c['id']}", headers=cast.other).status_code == 404


def test_fine_schedule_is_configuration(client, cast, permit, conditions, town_clock):
    r = client.get("/api/v1/fine-schedule", headers=cast.insp)
    assert r.status_code == 200
    assert {k: r.get_json()[k] for k in ("first_offense", "second_offense", "third_and_subsequent")} == {
        "first_offense": "100.00", "second_offense": "200.00", "third_and_subsequent": "300.00"}
    new = {"first_offense": "50.00", "second_offense": "150.00", "third_and_subsequent": "300.00"}
    assert client.put("/api/v1/fine-schedule", json=new, headers=cast.insp).status_code == 403
    r = client.put("/api/v1/fine-schedule", json={**new, "third_and_subsequent": "300.01"}, headers=cast.sup)
    assert r.status_code == 422 and "third_and_subsequent" in r.get_json()["errors"]
    town_clock.set(date(2026, 5, 20))
    v = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-01")
    before = cite(client, cast, v, "2026-05-02").get_json()
    r = client.put("/api/v1/fine-schedule", json=new, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["first_offense"] == "50.00" and r.get_json()["version"] == 2
    after = cite(client, cast, v, "2026-05-03", name="Someone Else").get_json()
    assert after["fine_usd"] == "50.00"
    # A citation keeps the fine it was issued with.
    assert client.get(f"/api/v1/citations/{before['id']}", headers=cast.sup).get_json()["fine_usd"] == "100.00"


def test_a_violation_checks_every_inspection_and_photo_it_cites(client, cast, permit, conditions, factory,
                                                                town_clock):
    """Cited inspections must be this permit's; a photo of another permit is refused, one still on its
    way from a device (no row yet) is accepted (API.md: a record may reference a pending photo)."""
    import uuid

    from sqlalchemy import insert

    from inspect_api.photos.models import Photo
    other = factory.permit(cast.stranger, status="issued")
    foreign_photo = str(uuid.uuid4())
    db.session.execute(insert(Photo), [{
        "id": foreign_photo, "permit_id": other.id, "sha256": "0" * 64, "content_type": "image/jpeg",
        "bytes": 10, "width": 4, "height": 3, "original_key": "o", "display_key": "d", "small_key": "s"}])
    db.session.commit()
    base = {"permit_id": permit.id, "provision_kind": "permit_condition", "condition_id": conditions[0].id,
            "first_observed_on": "2026-05-01"}
    unknown_inspection = str(uuid.uuid4())
    r = client.post("/api/v1/violations", headers=cast.sup, json={
        **base, "inspection_ids": [unknown_inspection], "photo_ids": [foreign_photo]})
    assert r.status_code == 422, r.get_json()
    errors = r.get_json()["errors"]
    assert set(errors) == {"inspection_ids", "photo_ids"}
    assert unknown_inspection in errors["inspection_ids"][0] and foreign_photo in errors["photo_ids"][0]
    pending = str(uuid.uuid4())
    made = violation(client, cast, permit, condition_id=conditions[0].id, first_observed_on="2026-05-01",
                     photo_ids=[pending])
    assert made["photo_ids"] == [pending]


@pytest.mark.parametrize("kind", ["bylaw", "esc_plan", "permit_condition"])
def test_a_violation_naming_an_unknown_condition_is_refused_naming_the_field(client, cast, permit, conditions,
                                                                            factory, town_clock, kind):
    """Whatever the provision kind, a condition named must be one of this permit's (R-C3): an id of no
    condition at all, or of another permit's, is the client's mistake, never a database error."""
    other = factory.permit(cast.stranger, status="issued")
    foreign = PermitCondition(permit_id=other.id, number=1, text="Other site's condition")
    db.session.add(foreign)
    db.session.commit()
    for condition_id in ("00000000-0000-4000-8000-000000000000", foreign.id):
        body = {"permit_id": permit.id, "provision_kind": kind, "condition_id": condition_id,
                "provision": "194-21(C)", "first_observed_on": "2026-05-01"}
        r = client.post("/api/v1/violations", json=body, headers=cast.sup)
        assert r.status_code == 422, r.get_data(as_text=True)
        assert r.get_json()["error"] == "validation_error" and set(r.get_json()["errors"]) == {"condition_id"}
    assert client.get(f"/api/v1/violations?permit_id={permit.id}", headers=cast.sup).get_json() == []
    # A bylaw violation that names a condition of this permit stays accepted.
    violation(client, cast, permit, provision_kind="bylaw", condition_id=conditions[0].id, provision="194-21(C)",
              first_observed_on="2026-05-01")
