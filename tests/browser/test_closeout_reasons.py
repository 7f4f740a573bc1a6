"""Where the close-out screen offers an action the server will refuse, it says why before the supervisor
tries (R-D2, R-F1): the button is disabled, the reason is shown and names it (aria-describedby), and the
server, asked the same thing, refuses it and stores nothing."""
from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.closeout.conftest import Closeout
from tests.photos.helpers import jpeg, put_photo

from .conftest import TABLET_LANDSCAPE
from .helpers import confirm, release_db, sign_in


def _open_closeout(page, base_url: str, email: str, permit_id: str) -> None:
    sign_in(page, base_url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")


def test_a_phase_release_that_would_empty_the_bond_is_disabled_with_the_reason(live_server, new_context, factory,
                                                                               client):
    """R-D2: $2,000 and $3,000 shares of a $5,000 bond; once the first is released, the second would
    release the whole bond before the final report and certificate, so its button waits, saying why."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active")
    p1, p2 = closeout.phase(permit, 1, in_compliance=True), closeout.phase(permit, 2, in_compliance=True)
    bond = client.post("/api/v1/bonds", headers=sup, json={
        "permit_id": permit.id, "form": "surety_bond", "amount": "5000", "reference": "SB-2026-204",
        "phases": [{"phase_id": p1.id, "amount": "2000"}, {"phase_id": p2.id, "amount": "3000"}]})
    assert bond.status_code == 201, bond.get_json()
    bond_id, permit_id, p1_id, p2_id, email = bond.get_json()["id"], permit.id, p1.id, p2.id, supervisor.email
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    _open_closeout(page, live_server.url, email, permit_id)
    card = page.locator(f"[data-bond='{bond_id}']")
    card.wait_for()
    # Neither share alone reaches $5,000: both are offered.
    expect(card.get_by_role("button", name="Release phase 1")).to_be_enabled()
    expect(card.get_by_role("button", name="Release phase 2")).to_be_enabled()
    assert page.locator(f"#why-{bond_id}-{p2_id}").count() == 0
    card.get_by_role("button", name="Release phase 1").click()
    confirm(page, "$2,000.00")
    page.locator(f"[data-bond='{bond_id}'] [data-phase='{p1_id}'] .chip.good:has-text('Released')").wait_for()

    # $2,000 + $3,000 = the whole bond, before the final report and certificate: disabled, and why.
    card = page.locator(f"[data-bond='{bond_id}']")
    second = card.get_by_role("button", name="Release phase 2")
    expect(second).to_be_disabled()
    expect(second).to_have_attribute("aria-describedby", f"why-{bond_id}-{p2_id}")
    why = page.locator(f"#why-{bond_id}-{p2_id}")
    expect(why).to_contain_text("Releasing this phase would release the whole bond.")
    expect(why).to_contain_text("The rest is released with the certificate of completion, once the final report "
                                "is accepted and the certificate of completion is issued (R-D3).")

    # The server holds the same rule: the release is refused and nothing more is released.
    stored = client.get(f"/api/v1/bonds/{bond_id}", headers=sup).get_json()
    assert (stored["released_amount"], stored["remaining_amount"], stored["status"]) == (
        "2000.00", "3000.00", "partially_released"), stored
    assert [(p["phase_id"], p["released"]) for p in stored["phases"]] == [(p1_id, True), (p2_id, False)]
    refused = client.post(f"/api/v1/bonds/{bond_id}/releases", headers=sup,
                          json={"id": str(uuid.uuid4()), "kind": "partial", "phase_id": p2_id})
    assert refused.status_code == 409 and refused.get_json()["error"] == "release_reaches_amount", refused.get_json()
    assert "released with the certificate of completion" in refused.get_json()["message"]
    assert client.get(f"/api/v1/bonds/{bond_id}", headers=sup).get_json()["released_amount"] == "2000.00"
    release_db()


def test_a_notice_without_an_arrived_photo_cannot_be_accepted_until_one_arrives(live_server, new_context, factory,
                                                                                client):
    """R-F1: a notice whose photos are all still on the device shows Accept disabled with the reason (it
    may still be returned); once one photo has arrived, Accept is offered and the notice is accepted."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    permit = closeout.permit("admin", status="work_complete", applicant=applicant)
    notice_id, photo_id = str(uuid.uuid4()), str(uuid.uuid4())
    notice = closeout.notice(permit, app_headers, id=notice_id, photo_ids=[photo_id])
    assert notice.status_code == 201, notice.get_json()
    assert notice.get_json()["photos"] == [{"id": photo_id, "status": "pending"}]
    permit_id, email = permit.id, supervisor.email
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    _open_closeout(page, live_server.url, email, permit_id)
    card = page.locator(f"[data-closeout='{notice_id}']")
    card.wait_for()
    accept = card.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()
    expect(accept).to_have_attribute("aria-describedby", f"why-accept-{notice_id}")
    expect(page.locator(f"#why-accept-{notice_id}")).to_have_text(
        "None of the notice's photos has arrived yet: it can be accepted once at least one has (R-F1). "
        "It may be returned meanwhile.")
    expect(card.get_by_role("button", name="Return with reasons")).to_be_enabled()
    # The server refuses the same acceptance; the notice stays submitted.
    refused = client.post(f"/api/v1/completion-notices/{notice_id}/review", json={"decision": "accept"}, headers=sup)
    assert refused.status_code == 409 and refused.get_json()["error"] == "photos_not_received", refused.get_json()
    assert client.get(f"/api/v1/completion-notices/{notice_id}", headers=sup).get_json()["status"] == "submitted"

    # The photo arrives from the applicant's phone.
    arrived = put_photo(client, app_headers, permit_id, jpeg(), photo_id=photo_id, parent_type="completion_notice",
                        parent_id=notice_id)
    assert arrived.status_code == 201, arrived.get_json()
    shown = client.get(f"/api/v1/completion-notices/{notice_id}", headers=sup).get_json()
    assert shown["photos"] == [{"id": photo_id, "status": "uploaded"}], shown
    release_db()
    page.reload()
    card = page.locator(f"[data-closeout='{notice_id}']")
    card.wait_for()
    accept = card.get_by_role("button", name="Accept")
    expect(accept).to_be_enabled()
    assert page.locator(f"#why-accept-{notice_id}").count() == 0
    accept.click()
    confirm(page, "certificate of completion can then be issued")
    page.locator(f"[data-closeout='{notice_id}'] .chip.good:has-text('Accepted')").wait_for()
    stored = client.get(f"/api/v1/completion-notices/{notice_id}", headers=sup).get_json()
    release_db()
    assert stored["status"] == "accepted" and stored["review"]["decision"] == "accept", stored
