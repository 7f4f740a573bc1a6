"""A tablet whose push the server was too busy to take (503 sync_busy, Retry-After, nothing applied)
keeps the change, says so in the sync bar, and sends it again after Retry-After in the same run."""
from __future__ import annotations

from inspect_api import lanes

from .api_seed import entry_authorization, sample
from .conftest import TABLET_PORTRAIT
from .helpers import Network, outbox_items, release_db, sign_in, wait_for_service_worker, wait_synced
from .seed import field_day
from inspect_api.auth.models import User
from inspect_api.extensions import db


def test_a_busy_server_is_waited_out_and_the_change_lands(app, live_server, new_context, factory, client):
    people = field_day(factory)
    headers = factory.headers(db.session.get(User, people.inspector_id))
    ea = entry_authorization(client, headers, people.site_id)
    seeded = sample(client, headers, people.site_id, ea["id"])
    release_db()

    page = new_context(TABLET_PORTRAIT).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/site/{people.site_id}/sample/{seeded['id']}")
    page.wait_for_selector("h1:has-text('Sample')")
    network = Network(page.context, live_server.url)
    network.offline()
    page.get_by_label("Notes").fill("Resampled after the rain.")
    page.get_by_role("button", name="Save sample").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")

    # Another device's batch holds the server's only push turn, and no push may wait for it.
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=0, SYNC_PUSH_RETRY_SECONDS=2)
    lane = lanes.lane("sync_push", 1, 0)
    assert lane.acquire(0)
    try:
        network.online()
        page.evaluate("window.dispatchEvent(new Event('online'))")
        page.locator("#syncbar [data-test=progress]:has-text('Server busy; sending again in 2 s')").wait_for()
        items = outbox_items(page)
        assert [(i["entity"], i.get("state")) for i in items] == [("sample", "pending")], items  # kept, not refused
        assert not page.locator("[data-test=sync-error]").count()
    finally:
        lane.release()
    wait_synced(page)  # the same run sends it again once the turn is free
    assert not page.locator("[data-test=sync-error]").count(), page.inner_text("#syncbar")
    after = client.get(f"/api/v1/samples/{seeded['id']}", headers=headers).get_json()
    assert after["notes"] == "Resampled after the rain." and after["version"] == seeded["version"] + 1
