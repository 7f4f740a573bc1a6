"""A second device's edit of the same record surfaces as a conflict on this device, with the
server's message, and is resolved from the UI through /sync/conflicts/{id}/resolve."""
from __future__ import annotations

import re

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization, sample
from .conftest import TABLET_PORTRAIT
from .helpers import (Network, assert_accessible, outbox_items, release_db, sideways_scroll, sign_in,
                      wait_for_service_worker, wait_synced)
from .seed import field_day


def test_second_device_edit_surfaces_as_conflict(live_server, new_context, factory, client, screenshot):
    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    first = factory.headers(inspector)
    second = factory.headers(inspector, device_id="tablet-2")
    ea = entry_authorization(client, first, people.site_id)
    seeded = sample(client, first, people.site_id, ea["id"])
    release_db()

    context = new_context(TABLET_PORTRAIT)
    page = context.new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/site/{people.site_id}/sample/{seeded['id']}")
    page.wait_for_selector("h1:has-text('Sample')")

    network = Network(context, live_server.url)
    network.offline()
    page.get_by_label("Notes").fill("Resampled after the rain; water still cloudy.")
    page.get_by_role("button", name="Save sample").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")

    # Meanwhile the other tablet changes the same sample.
    changed = client.patch(f"/api/v1/samples/{seeded['id']}", json={"notes": "Lab courier collected the bottle."},
                           headers={**second, "If-Match": str(seeded["version"])})
    assert changed.status_code == 200, changed.get_json()
    release_db()

    network.online()
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_selector("#nav .count")
    items = outbox_items(page)
    assert [(i["entity"], i["state"]) for i in items] == [("sample", "conflict")], items
    page.click("#nav a[href='#/issues']")
    card = page.locator("[data-issue=conflict]")
    assert "version" in card.locator("[data-test=server-message]").inner_text()
    # The two values of each differing field side by side, and who changed the server's side.
    row = card.locator("[data-test=differences] tr[data-field=notes]")
    assert row.locator("td").nth(0).inner_text() == "Lab courier collected the bottle."
    assert row.locator("td").nth(1).inner_text() == "Resampled after the rain; water still cloudy."
    assert "Changed on the server by" in card.locator("[data-test=conflict-who]").inner_text()
    assert card.locator("pre").count() == 0
    page.set_viewport_size({"width": 320, "height": 700})
    assert sideways_scroll(page) == []
    assert_accessible(page, "conflict at 320 px")
    page.set_viewport_size(TABLET_PORTRAIT)
    screenshot(page, "inspector-conflict")

    # A supervisor sees every open conflict, from any device.
    office = new_context().new_page()
    sign_in(office, live_server.url, people.supervisor_email)
    office.goto(f"{live_server.url}/#/issues")
    office_card = office.locator("[data-conflict]")
    assert "Notes" in office_card.inner_text()
    assert "Raised by" in office_card.locator("[data-test=conflict-who]").inner_text()
    assert_accessible(office, "supervisor's conflicts")

    card.get_by_role("button", name="Use mine").click()
    page.wait_for_selector("[data-test=no-issues]")
    wait_synced(page)
    after = client.get(f"/api/v1/samples/{seeded['id']}", headers=first).get_json()
    assert after["notes"] == "Resampled after the rain; water still cloudy."
    conflicts = client.get("/api/v1/sync/conflicts", headers=first).get_json()
    release_db()
    listed = conflicts if isinstance(conflicts, list) else conflicts.get("items", [])
    assert [(c["record_id"], c["status"], c["resolution"]) for c in listed] == [(seeded["id"], "resolved", "take_device")]


def test_refusal_in_plain_words_with_the_next_step(live_server, new_context, factory, client, screenshot):
    """The server refuses a sample whose authorization was revoked before it was taken (R-E3): the
    device says what happened in local time, what to do (a new authorization, not "Try again"),
    and fits a 320 px screen."""
    from datetime import datetime, timedelta, timezone
    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    headers = factory.headers(inspector)
    ea = entry_authorization(client, headers, people.site_id)
    release_db()
    page = new_context({"width": 320, "height": 700}, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    # The owner withdrew consent an hour ago; this device has not heard yet.
    revoked = client.post(f"/api/v1/entry-authorizations/{ea['id']}/revoke", headers=headers,
                          json={"revoked_at": (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()})
    assert revoked.status_code == 200, revoked.get_json()
    release_db()
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.click("text=Take a sample")
    page.get_by_label("Discharge point (outfall)").fill("OF-1")
    page.get_by_label("Reading").first.fill("12")
    page.get_by_role("button", name="Save sample").click()
    page.wait_for_selector("#nav .count")
    page.click("#nav a[href='#/issues']")
    card = page.locator("[data-issue=rejected]")
    card.wait_for()
    text = card.inner_text()
    assert "revoked" in card.locator("[data-test=server-message]").inner_text()
    assert not re.search(r"\d{4}-\d{2}-\d{2}T|\.\d{6}|\+00:00|UTC", text), text  # local time, no ISO stamps
    assert card.locator("pre").count() == 0 and "{" not in text
    step = card.locator("[data-test=next-step]")
    assert "Record a new entry authorization" in step.inner_text()
    assert step.get_by_role("link", name="Record an entry authorization").get_attribute("href") == f"#/site/{people.site_id}/entry"
    assert card.get_by_role("button", name="Try again").count() == 0
    assert sideways_scroll(page) == []
    assert_accessible(page, "refusal at 320 px")
    screenshot(page, "inspector-refusal", sizes=("phone", "tablet"))
