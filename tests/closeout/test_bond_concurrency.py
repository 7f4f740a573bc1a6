"""R-D2 under concurrent requests: ten threads against the app served over real HTTP, each request in its own
connection and transaction. The sum released never exceeds the bond, and a phase is released once."""
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from inspect_api.bonds.models import Bond, BondRelease
from inspect_api.extensions import db


def _bond(client, sup, permit, phases, amount):
    r = client.post("/api/v1/bonds", json={"permit_id": permit.id, "form": "letter_of_credit", "amount": amount,
                                           "phases": [{"phase_id": p.id, "amount": "1000"} for p in phases]},
                    headers=sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def _run(live_server, sup, bond_id, bodies):
    # End this thread's transaction: on SQLite an open one would hold the write lock the requests wait for.
    db.session.commit()

    def post(body):
        return live_server.request("POST", f"/api/v1/bonds/{bond_id}/releases", body, sup)

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        return list(pool.map(post, bodies))


def _stored(bond_id):
    db.session.expire_all()
    bond = db.session.get(Bond, bond_id)
    releases = db.session.query(BondRelease).filter_by(bond_id=bond_id).all()
    return bond, releases


@pytest.mark.slow
def test_ten_threads_release_the_same_phase_once(factory, client, closeout, live_server):
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    phase = closeout.phase(permit, 1, in_compliance=True)
    bond_id = _bond(client, sup, permit, [phase], "5000")
    results = _run(live_server, sup, bond_id, [{"kind": "partial", "phase_id": phase.id}] * 10)
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * 9, results
    assert {body["error"] for status, body in results if status == 409} == {"phase_already_released"}
    bond, releases = _stored(bond_id)
    assert len(releases) == 1 and bond.released_amount == Decimal("1000.00")


@pytest.mark.slow
def test_ten_threads_never_release_more_than_the_amount(factory, client, closeout, live_server):
    """Five partial releases (1,000 each) race five full releases of a 6,000 bond after the certificate."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    phases = [closeout.phase(permit, n, in_compliance=True) for n in range(1, 6)]
    bond_id = _bond(client, sup, permit, phases, "6000")
    closeout.accepted_notice(permit, headers, sup)
    closeout.certificate(permit, sup)
    bodies = [{"kind": "partial", "phase_id": p.id} for p in phases] + [{"kind": "full"}] * 5
    results = _run(live_server, sup, bond_id, bodies)
    assert all(status in (201, 409) for status, _ in results), results
    assert {body["error"] for status, body in results if status == 409} <= {"exceeds_bond_amount", "already_released"}
    bond, releases = _stored(bond_id)
    assert sum(r.amount for r in releases) == bond.released_amount == Decimal("6000.00")
    assert [r.kind for r in releases].count("full") == 1
    assert len(releases) == sum(1 for status, _ in results if status == 201)
    assert len({r.phase_id for r in releases if r.phase_id}) == len([r for r in releases if r.phase_id])
