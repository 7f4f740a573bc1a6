"""A second device's edit of the same record surfaces as a conflict on this device, with the
server's message, and is resolved from the UI through /sync/conflicts/{id}/resolve."""
from __future__ import annotations

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization, sample
from .conftest import TABLET_PORTRAIT
from .helpers import Network, outbox_items, release_db, sign_in, wait_for_service_worker, wait_synced
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
    assert "Fields that differ: Notes." in card.inner_text()
    screenshot(page, "inspector-conflict")

    # A supervisor sees every open conflict, from any device.
    office = new_context().new_page()
    sign_in(office, live_server.url, people.supervisor_email)
    office.goto(f"{live_server.url}/#/issues")
    office_card = office.locator("[data-conflict]").inner_text()
    assert "Notes" in office_card and "by Ines Ortiz" in office_card
    assert "Lab courier collected the bottle." in office_card  # the server's value beside the device's
    assert "Resampled after the rain; water still cloudy." in office_card

    card.get_by_role("button", name="Use mine").click()
    page.wait_for_selector("[data-test=no-issues]")
    wait_synced(page)
    after = client.get(f"/api/v1/samples/{seeded['id']}", headers=first).get_json()
    assert after["notes"] == "Resampled after the rain; water still cloudy."
    conflicts = client.get("/api/v1/sync/conflicts", headers=first).get_json()
    release_db()
    listed = conflicts if isinstance(conflicts, list) else conflicts.get("items", [])
    assert [(c["record_id"], c["status"], c["resolution"]) for c in listed] == [(seeded["id"], "resolved", "take_device")]
