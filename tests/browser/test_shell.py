"""The app shell: installable, precached by the service worker, opens offline."""
from __future__ import annotations


from playwright.sync_api import expect

from .helpers import Network, release_db, sign_in, wait_for_service_worker, wait_synced


def test_offline_reload_from_service_worker_cache(live_server, new_context, factory):
    email = factory.user("inspector", name="Ines Inspector").email
    release_db()
    context = new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)

    network = Network(context, live_server.url)
    network.offline()
    worker = context.service_workers[0]
    # The worker's own fetches fail too: the network really is gone for it.
    assert worker.evaluate("fetch('/api/v1/me').then(() => 'reached', () => 'failed')") == "failed"
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert page.locator("h1").first.inner_text() == "Sites"
    assert page.locator("[data-test=net]").inner_text().startswith("Offline")
    assert not [e for e in errors if "Failed to load resource" not in e], errors


def test_the_bar_says_the_office_server_is_not_reached_while_the_device_is_online(live_server, new_context, factory):
    email = factory.user("inspector", name="Ines Inspector").email
    release_db()
    context = new_context()
    page = context.new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    net = page.locator("[data-test=net]")
    assert net.inner_text() == "Online"

    def down(route):  # the server is gone; the device's own network is up
        route.abort("connectionrefused")
    page.route(live_server.url + "/api/**", down)
    page.get_by_role("button", name="Sync now").click()
    page.locator("[data-test=net]:has-text('Office server not reached')").wait_for()
    assert "Online" not in net.inner_text()
    page.unroute(live_server.url + "/api/**", down)
    page.get_by_role("button", name="Sync now").click()
    expect(net).to_have_text("Online")
