"""The Account screen's e-mail switches: switched off in the app, the next such
event sends the user nothing, while a notice the bylaw requires still arrives."""
from __future__ import annotations

from .helpers import release_db, sign_in


def test_switch_off_on_the_account_screen(live_server, new_context, factory, client):
    from tests.notifications.events_support import rows
    applicant = factory.user("applicant", email="ann@example.org")
    supervisor = factory.user("supervisor")
    permit = factory.permit(applicant, disturbed_area_sqft=12000, plans=True)
    app_h, sup_h = factory.headers(applicant), factory.headers(supervisor)
    email, permit_id = applicant.email, permit.id
    release_db()
    page = new_context().new_page()
    sign_in(page, live_server.url, email)
    page.goto(live_server.url + "/#/account")
    card = page.locator("[data-test=mail-preferences]")
    switch = card.get_by_role("switch", name="Application received")
    switch.wait_for()
    assert switch.is_checked()
    assert "Enforcement order issued (required by the bylaw)" in card.inner_text()
    assert card.get_by_role("switch", name="Enforcement order issued").count() == 0  # cannot be switched off
    switch.uncheck()
    page.locator("[data-test=mail-status]:has-text('Saved: Application received is off.')").wait_for()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    switch = page.locator("[data-test=mail-preferences]").get_by_role("switch", name="Application received")
    switch.wait_for()
    assert not switch.is_checked()  # the server kept the choice
    release_db()
    for headers, to in ((app_h, "submitted"), (sup_h, "under_review"), (sup_h, "approved")):
        r = client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to}, headers=headers)
        assert r.status_code == 200, r.get_json()
    assert rows() == [("ann@example.org", "applicant", "application_decided", True, "queued")]
