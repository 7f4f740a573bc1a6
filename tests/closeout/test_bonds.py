"""Bonds (R-D) through the API: recording, money handling, visibility, partial and full release."""
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest

from inspect_api.bonds import rules
from inspect_api.bonds.services import bond_phases_awaiting_release
from inspect_api.clock import today as local_today


def _bond(client, sup, permit, phases=(), **overrides):
    body = {"permit_id": permit.id, "form": "surety_bond", "amount": "10000.00", "issuer": "Bay State Surety",
            "reference": "SB-2026-118", "received_on": (local_today() - timedelta(days=200)).isoformat(),
            "phases": [p if isinstance(p, dict) else {"phase_id": p.id, "amount": "3000"} for p in phases], **overrides}
    return client.post("/api/v1/bonds", json=body, headers=sup)


def _release(client, sup, bond_id, **body):
    return client.post(f"/api/v1/bonds/{bond_id}/releases", json=body, headers=sup)


def test_supervisor_records_bond_split_by_phase(factory, client, closeout):
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    p1, p2 = closeout.phase(permit, 1), closeout.phase(permit, 2)
    bond_id = str(uuid.uuid4())
    r = _bond(client, sup, permit, [p1, p2], id=bond_id, amount=10000.5)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["id"] == bond_id and body["amount"] == "10000.50" and body["released_amount"] == "0.00"
    assert body["remaining_amount"] == "10000.50" and body["status"] == "held" and body["form"] == "surety_bond"
    assert [(p["phase_id"], p["amount"], p["phase_number"], p["released"]) for p in body["phases"]] == [
        (p1.id, "3000.00", 1, False), (p2.id, "3000.00", 2, False)]
    again = _bond(client, sup, permit, [p1, p2], id=bond_id, amount="10000.50")
    assert again.status_code == 200 and again.get_json()["id"] == bond_id
    other = _bond(client, sup, permit, [p1], id=bond_id, amount="10000.50")
    assert other.status_code == 409 and other.get_json()["error"] == "conflict"


@pytest.mark.parametrize("amount, ok", [
    ("25000", True), (25000, True), ("0.01", True), ("12.345", False), (12.345, False), ("0", False),
    ("-5", False), ("abc", False), ("NaN", False), (True, False), ("1000000000000", False),
])
def test_amount_is_whole_cents_given_as_string_or_number(factory, client, closeout, amount, ok):
    _, sup = factory.as_role("supervisor")
    r = _bond(client, sup, closeout.permit("permit", status="active"), amount=amount)
    assert r.status_code == (201 if ok else 422), r.get_json()
    if ok:
        assert r.get_json()["amount"] == str(Decimal(str(amount)).quantize(Decimal("0.01")))
    else:
        assert "amount" in r.get_json()["errors"]


def test_phase_split_is_checked(factory, client, closeout):
    _, sup = factory.as_role("supervisor")
    permit, other = closeout.permit("permit", status="active"), closeout.permit("permit", status="active")
    p1, p2, foreign = closeout.phase(permit, 1), closeout.phase(permit, 2), closeout.phase(other, 1)
    r = _bond(client, sup, permit, amount="5000", phases=[{"phase_id": p1.id, "amount": "3000"},
                                                         {"phase_id": p2.id, "amount": "2000.01"}])
    assert r.status_code == 422 and "phases" in r.get_json()["errors"]
    r = _bond(client, sup, permit, amount="5000", phases=[{"phase_id": p1.id, "amount": "3000"},
                                                         {"phase_id": p2.id, "amount": "2000.00"}])
    assert r.status_code == 201  # exactly the amount is allowed
    r = _bond(client, sup, permit, phases=[{"phase_id": foreign.id, "amount": "100"}])
    assert r.status_code == 422 and "phases" in r.get_json()["errors"]
    r = _bond(client, sup, permit, phases=[{"phase_id": p1.id, "amount": "100"}, {"phase_id": p1.id, "amount": "100"}])
    assert r.status_code == 422


def test_roles_and_ownership(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, stranger = factory.as_role("applicant")
    _, inspector = factory.as_role("inspector")
    _, admin = factory.as_role("admin")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active", applicant=applicant)
    bond = _bond(client, sup, permit).get_json()
    url = f"/api/v1/bonds/{bond['id']}"
    r = client.get(url, headers=headers)
    assert r.status_code == 200 and r.get_json()["amount"] == "10000.00"
    listed = client.get(f"/api/v1/bonds?permit_id={permit.id}", headers=headers).get_json()
    assert [b["id"] for b in listed] == [bond["id"]]
    assert client.get(url, headers=stranger).status_code == 404
    assert client.get(url, headers=admin).status_code == 404
    assert client.get("/api/v1/bonds", headers=stranger).get_json() == []
    assert client.get(url, headers=inspector).status_code == 200
    for h in (headers, inspector):
        r = _bond(client, h, permit)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
        assert client.patch(url, json={"issuer": "x", "version": 1}, headers=h).status_code == 403
        assert _release(client, h, bond["id"], kind="full").status_code == 403
    assert client.get(url).status_code == 401


def test_patch_with_versions_and_never_below_released(factory, client, closeout):
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    done, other = closeout.phase(permit, 1, in_compliance=True), closeout.phase(permit, 2)
    bond = _bond(client, sup, permit, [done]).get_json()
    url = f"/api/v1/bonds/{bond['id']}"
    r = client.patch(url, json={"issuer": "New Surety Co."}, headers=sup)
    assert r.status_code == 428
    r = client.patch(url, json={"issuer": "New Surety Co.", "amount": "12000"}, headers={**sup, "If-Match": "1"})
    assert r.status_code == 200 and r.get_json()["issuer"] == "New Surety Co." and r.get_json()["version"] == 2
    r = client.patch(url, json={"phases": [{"phase_id": done.id, "amount": "3500"},
                                           {"phase_id": other.id, "amount": "500"}], "version": 2}, headers=sup)
    assert r.status_code == 200, r.get_json()
    shares = [(p["phase_id"], p["amount"]) for p in r.get_json()["phases"]]
    assert shares == [(done.id, "3500.00"), (other.id, "500.00")]
    r = client.patch(url, json={"phases": [{"phase_id": done.id, "amount": "3000"}], "version": 3}, headers=sup)
    assert r.status_code == 200 and len(r.get_json()["phases"]) == 1
    r = client.patch(url, json={"issuer": "Stale", "version": 1}, headers=sup)
    assert r.status_code == 409 and r.get_json()["errors"]["current"]["issuer"] == "New Surety Co."
    assert _release(client, sup, bond["id"], kind="partial", phase_id=done.id).status_code == 201
    r = client.patch(url, json={"amount": "2999.99", "version": 5}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "amount_below_released"
    r = client.patch(url, json={"phases": [], "version": 5}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "phase_already_released"
    r = client.patch(url, json={"amount": "3000", "version": 5}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "release_reaches_amount"  # R-D2: no certificate yet
    r = client.patch(url, json={"amount": "3000.01", "version": 5}, headers=sup)
    assert r.status_code == 200 and r.get_json()["remaining_amount"] == "0.01"
    assert r.get_json()["status"] == "partially_released"


def test_partial_release_only_for_a_phase_complete_in_compliance(factory, client, closeout):
    """R-D2."""
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    pending = closeout.phase(permit, 1)
    failed = closeout.phase(permit, 2, in_compliance=False)
    done = closeout.phase(permit, 3, in_compliance=True, completed_on=local_today() - timedelta(days=3))
    not_on_bond = closeout.phase(permit, 4, in_compliance=True)
    bond = _bond(client, sup, permit, [pending, failed, done]).get_json()
    for phase, error in ((pending, "phase_not_complete"), (failed, "phase_not_complete")):
        r = _release(client, sup, bond["id"], kind="partial", phase_id=phase.id)
        assert r.status_code == 409 and r.get_json()["error"] == error
    r = _release(client, sup, bond["id"], kind="partial", phase_id=not_on_bond.id)
    assert r.status_code == 422
    r = _release(client, sup, bond["id"], kind="partial")
    assert r.status_code == 422 and "phase_id" in r.get_json()["errors"]
    r = _release(client, sup, bond["id"], kind="partial", phase_id=done.id, amount="3000.01")
    assert r.status_code == 422 and "amount" in r.get_json()["errors"]
    r = _release(client, sup, bond["id"], kind="partial", phase_id=done.id,
                 released_on=(local_today() - timedelta(days=4)).isoformat())
    assert r.status_code == 422 and "released_on" in r.get_json()["errors"]  # before the phase was complete
    r = _release(client, sup, bond["id"], kind="partial", phase_id=done.id,
                 released_on=(local_today() + timedelta(days=1)).isoformat())
    assert r.status_code == 422 and "released_on" in r.get_json()["errors"]
    release_id = str(uuid.uuid4())
    r = _release(client, sup, bond["id"], id=release_id, kind="partial", phase_id=done.id, amount="2500",
                 released_on=(local_today() - timedelta(days=3)).isoformat())
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["released_amount"] == "2500.00" and body["remaining_amount"] == "7500.00"
    assert body["status"] == "partially_released" and body["releases"][0]["id"] == release_id
    assert body["releases"][0]["kind"] == "partial" and body["releases"][0]["phase_id"] == done.id
    assert [p["released"] for p in body["phases"]] == [False, False, True]
    again = _release(client, sup, bond["id"], id=release_id, kind="partial", phase_id=done.id, amount="2500")
    assert again.status_code == 200 and again.get_json()["released_amount"] == "2500.00"
    r = _release(client, sup, bond["id"], kind="partial", phase_id=done.id, amount="500")
    assert r.status_code == 409 and r.get_json()["error"] == "phase_already_released"


def test_full_release_only_after_the_certificate(factory, client, closeout):
    """R-D3: accepted notice/report and certificate issued."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    done = closeout.phase(permit, 1, in_compliance=True)
    bond = _bond(client, sup, permit, [done]).get_json()
    r = _release(client, sup, bond["id"], kind="full")
    assert r.status_code == 409 and r.get_json()["error"] == "certificate_required"
    closeout.accepted_notice(permit, headers, sup)
    r = _release(client, sup, bond["id"], kind="full")
    assert r.status_code == 409 and r.get_json()["error"] == "certificate_required"  # accepted, not yet issued
    closeout.certificate(permit, sup)
    assert _release(client, sup, bond["id"], kind="partial", phase_id=done.id).status_code == 201
    r = _release(client, sup, bond["id"], kind="full", amount="1.00")
    assert r.status_code == 422 and "amount" in r.get_json()["errors"]
    r = _release(client, sup, bond["id"], kind="full")
    assert r.status_code == 201
    assert r.get_json()["released_amount"] == "10000.00" and r.get_json()["status"] == "released"
    assert r.get_json()["releases"][-1]["amount"] == "7000.00"
    r = _release(client, sup, bond["id"], kind="full")
    assert r.status_code == 409 and r.get_json()["error"] == "already_released"
    r = client.get(f"/api/v1/bonds/{bond['id']}", headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "released"


def test_phases_awaiting_release_helper(factory, client, closeout):
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    pending, done, released = (closeout.phase(permit, 1), closeout.phase(permit, 2, in_compliance=True),
                               closeout.phase(permit, 3, in_compliance=True))
    closeout.phase(permit, 4, in_compliance=False)
    bond = _bond(client, sup, permit, [pending, done, released]).get_json()
    _release(client, sup, bond["id"], kind="partial", phase_id=released.id)
    rows = bond_phases_awaiting_release()
    assert [(r["bond_id"], r["phase_id"], r["amount"]) for r in rows] == [(bond["id"], done.id, Decimal("3000.00"))]
    applicant = factory.user("applicant")
    assert bond_phases_awaiting_release(user=applicant) == []


def test_release_rules_sum_never_exceeds_amount():
    """R-D2, pure: the last cent fits, one more does not."""
    common = dict(phase_on_bond=True, phase_share=Decimal("100.00"), completed_in_compliance=True,
                  completed_on=None, already_released=False, bond_amount=Decimal("1000.00"),
                  released_on=local_today(), full_release_allowed=True)
    assert rules.partial_release_problem(amount=Decimal("100.00"), released=Decimal("900.00"), **common) is None
    problem = rules.partial_release_problem(amount=Decimal("100.00"), released=Decimal("900.01"), **common)
    assert problem.error == "exceeds_bond_amount" and problem.state and problem.field is None
    late = rules.release_date_problem(local_today() + timedelta(days=1), None, local_today())
    assert (late.error, late.field, late.state) == ("validation_error", "released_on", False)
    assert rules.bond_status(Decimal("10"), Decimal("0")) == "held"
    assert rules.bond_status(Decimal("10"), Decimal("9.99")) == "partially_released"
    assert rules.bond_status(Decimal("10"), Decimal("10")) == "released"
    assert rules.full_release_problem(closeout_kind="final_report", basis_accepted=True, certificate_issued=True,
                                      bond_amount=Decimal("10"), released=Decimal("10"),
                                      amount=None).error == "already_released"


def test_bond_rules_carry_no_http_status():
    """Rules say what is wrong and whether the state or the request is at fault; HTTP is the service's."""
    problem = rules.amount_problem(Decimal("5.00"), Decimal("10.00"), full_release_allowed=True)
    assert not hasattr(problem, "status")
    assert (problem.error, problem.field, problem.state) == ("amount_below_released", "amount", True)


def _five_thousand_in_two_phases(client, sup, closeout, level="permit", status="active", applicant=None):
    permit = closeout.permit(level, status=status, applicant=applicant)
    p1, p2 = closeout.phase(permit, 1, in_compliance=True), closeout.phase(permit, 2, in_compliance=True)
    bond = _bond(client, sup, permit, amount="5000", phases=[{"phase_id": p1.id, "amount": "2000"},
                                                           {"phase_id": p2.id, "amount": "3000"}]).get_json()
    return permit, p1, p2, bond


def test_phase_releases_stop_short_of_the_amount_before_the_certificate(factory, client, closeout):
    """R-D2: until R-D3 holds, the phase release that would reach the full amount is refused; one a cent
    short of it is released."""
    _, sup = factory.as_role("supervisor")
    _, p1, p2, bond = _five_thousand_in_two_phases(client, sup, closeout)
    assert _release(client, sup, bond["id"], kind="partial", phase_id=p1.id).status_code == 201
    r = _release(client, sup, bond["id"], kind="partial", phase_id=p2.id)
    assert r.status_code == 409, r.get_json()
    body = r.get_json()
    assert body["error"] == "release_reaches_amount" and body["code"] == 409
    assert "released with the certificate of completion" in body["message"]
    assert "3000.00" in body["message"]
    after = client.get(f"/api/v1/bonds/{bond['id']}", headers=sup).get_json()
    assert (after["released_amount"], after["remaining_amount"], after["status"]) == (
        "2000.00", "3000.00", "partially_released")
    r = _release(client, sup, bond["id"], kind="partial", phase_id=p2.id, amount="2999.99")
    assert r.status_code == 201, r.get_json()
    assert (r.get_json()["remaining_amount"], r.get_json()["status"]) == ("0.01", "partially_released")


def test_lowering_the_amount_to_what_was_released_is_refused_before_the_certificate(factory, client, closeout):
    """R-D2: a smaller amount must not turn the phase releases into a full release."""
    _, sup = factory.as_role("supervisor")
    _, p1, _, bond = _five_thousand_in_two_phases(client, sup, closeout)
    bond = _release(client, sup, bond["id"], kind="partial", phase_id=p1.id).get_json()
    url = f"/api/v1/bonds/{bond['id']}"
    r = client.patch(url, json={"amount": "2000", "phases": [{"phase_id": p1.id, "amount": "2000"}],
                                "version": bond["version"]}, headers=sup)
    assert r.status_code == 409, r.get_json()
    assert r.get_json()["error"] == "release_reaches_amount" and "amount" in r.get_json()["errors"]
    assert "released with the certificate of completion" in r.get_json()["message"]
    r = client.patch(url, json={"amount": "2000.01", "phases": [{"phase_id": p1.id, "amount": "2000"}],
                                "version": bond["version"]}, headers=sup)
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["remaining_amount"], r.get_json()["status"]) == ("0.01", "partially_released")


def test_after_the_report_and_certificate_the_last_phase_may_release_the_rest(factory, client, closeout):
    """R-D3 for a permit: accepted final report and certificate; then the phases may add up to the amount."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit, p1, p2, bond = _five_thousand_in_two_phases(client, sup, closeout, status="work_complete",
                                                        applicant=applicant)
    assert _release(client, sup, bond["id"], kind="partial", phase_id=p1.id).status_code == 201
    closeout.accepted_report(permit, headers, sup)
    r = _release(client, sup, bond["id"], kind="partial", phase_id=p2.id)
    assert r.status_code == 409 and r.get_json()["error"] == "release_reaches_amount"  # accepted, no certificate
    closeout.certificate(permit, sup)
    r = _release(client, sup, bond["id"], kind="partial", phase_id=p2.id)
    assert r.status_code == 201, r.get_json()
    assert (r.get_json()["remaining_amount"], r.get_json()["status"]) == ("0.00", "released")


def test_full_release_needs_the_accepted_basis_and_the_certificate():
    """R-D3, pure: for an administrative review the accepted notice stands for the final report; a
    certificate alone (its basis not accepted) does not unlock the rest."""
    common = dict(bond_amount=Decimal("10"), released=Decimal("4"), amount=None)
    assert rules.full_release_problem(closeout_kind="completion_notice", basis_accepted=True,
                                      certificate_issued=True, **common) is None
    assert rules.full_release_problem(closeout_kind="final_report", basis_accepted=True,
                                      certificate_issued=True, **common) is None
    notice = rules.full_release_problem(closeout_kind="completion_notice", basis_accepted=False,
                                        certificate_issued=True, **common)
    assert notice.error == "certificate_required" and "completion notice" in notice.message
    report = rules.full_release_problem(closeout_kind="final_report", basis_accepted=True,
                                        certificate_issued=False, **common)
    assert report.error == "certificate_required" and "certificate of completion" in report.message
    share = dict(phase_on_bond=True, phase_share=Decimal("100.00"), completed_in_compliance=True, completed_on=None,
                 already_released=False, bond_amount=Decimal("1000.00"), released_on=local_today())
    last = rules.partial_release_problem(amount=Decimal("100.00"), released=Decimal("900.00"),
                                         full_release_allowed=False, **share)
    assert last.error == "release_reaches_amount" and last.state
    assert rules.partial_release_problem(amount=Decimal("100.00"), released=Decimal("899.99"),
                                         full_release_allowed=False, **share) is None
    assert rules.amount_problem(Decimal("900.00"), Decimal("900.00"), full_release_allowed=False).error == \
        "release_reaches_amount"
    assert rules.amount_problem(Decimal("900.01"), Decimal("900.00"), full_release_allowed=False) is None
    assert rules.amount_problem(Decimal("900.00"), Decimal("900.00"), full_release_allowed=True) is None


def test_a_share_that_would_release_the_whole_bond_is_not_listed_as_waiting(factory, client, closeout):
    """R-D2: the last phase's share waits for the certificate, so no deadline asks for it before."""
    _, sup = factory.as_role("supervisor")
    _, p1, p2, bond = _five_thousand_in_two_phases(client, sup, closeout)
    assert [r["phase_id"] for r in bond_phases_awaiting_release()] == [p1.id, p2.id]
    assert _release(client, sup, bond["id"], kind="partial", phase_id=p1.id).status_code == 201
    assert bond_phases_awaiting_release() == []
