"""A draft inspection started by mistake can be discarded: one never sent leaves nothing anywhere; one
the office already holds is deleted there at the next sync (a draft only: the server keeps submitted
ones on record), and its photos not yet sent go with it."""
from __future__ import annotations

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization
from .conftest import TABLET_LANDSCAPE
from .helpers import Network, confirm, outbox_items, release_db, sign_in, wait_synced
from .seed import field_day


def _start(page, base_url, site_id) -> str:
    page.goto(f"{base_url}/#/site/{site_id}")
    page.get_by_role("button", name="Start inspection").click()
    page.wait_for_url("**/inspection/**")
    page.locator("[data-item] button[data-answer=ok]").first.click()
    return page.url.rsplit("/", 1)[-1]


def test_a_draft_the_office_holds_is_deleted_there_and_one_never_sent_leaves_nothing(live_server, new_context,
                                                                                    factory, client):
    people = field_day(factory)
    headers = factory.headers(db.session.get(User, people.inspector_id))
    entry_authorization(client, headers, people.site_id)
    release_db()
    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)

    # Sent as a draft, then discarded: deleted at the office at the next sync.
    sent_id = _start(page, live_server.url, people.site_id)
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    assert client.get(f"/api/v1/inspections/{sent_id}", headers=headers).status_code == 200
    release_db()
    page.get_by_role("button", name="Discard draft").click()
    confirm(page, "it is deleted there at the next sync")
    page.locator("[data-test=told]:has-text('Draft inspection discarded')").wait_for()
    wait_synced(page)
    gone = client.get(f"/api/v1/inspections/{sent_id}", headers=headers)
    listed = client.get(f"/api/v1/inspections?permit_id={people.site_id}", headers=headers).get_json()
    release_db()
    assert gone.status_code == 404, gone.get_json()
    assert sent_id not in [i["id"] for i in listed]
    assert page.locator(f"main a.row[href$='/inspection/{sent_id}']").count() == 0
    assert outbox_items(page) == []

    # Started offline and discarded before any sync: nothing of it is ever sent.
    network = Network(context, live_server.url)
    network.offline()
    local_id = _start(page, live_server.url, people.site_id)
    assert [i["id"] for i in outbox_items(page)] == [local_id]
    page.get_by_role("button", name="Discard draft").click()
    confirm(page, "nothing of it reaches the office")
    page.locator("[data-test=told]:has-text('Draft inspection discarded.')").wait_for()
    assert outbox_items(page) == []
    network.online()
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    assert client.get(f"/api/v1/inspections/{local_id}", headers=headers).status_code == 404
    release_db()
