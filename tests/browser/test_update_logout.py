"""Clean updates of the app shell, persistent storage, and signing out with unsent work."""
from __future__ import annotations

import shutil

from .conftest import PHONE
from .helpers import Network, outbox_items, poll, release_db, sign_in, wait_for_service_worker, wait_synced


def cache_names(page) -> list[str]:
    return page.evaluate("() => caches.keys()")


# The page's own version.js: the one beside the app.js it runs (/static/pwa/<VERSION>/).
PAGE_VERSION_JS = "new URL('../version.js', document.querySelector('script[type=module]').src).pathname"


def test_new_version_is_announced_and_applied_on_request(live_server, new_context, factory, tmp_path, monkeypatch):
    from inspect_api.web import routes
    served = tmp_path / "pwa"
    shutil.copytree(routes.PWA_ROOT, served)
    monkeypatch.setattr(routes, "PWA_ROOT", served)
    email = factory.user("inspector").email
    release_db()
    context = new_context()
    page = context.new_page()
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)
    current = page.evaluate(f"() => import({PAGE_VERSION_JS}).then(m => m.VERSION)")
    assert cache_names(page) == [f"inspect-shell-{current}"]
    assert page.evaluate(f"() => {PAGE_VERSION_JS}") == f"/static/pwa/{current}/version.js"

    # A deployment ships a new version.js: the worker installs it beside the running one and waits.
    version_js = served / "version.js"
    version_js.write_text(version_js.read_text().replace(f'"{current}"', '"9.9.9-test"'))
    page.evaluate("() => navigator.serviceWorker.getRegistration().then(r => r.update())")
    page.locator("#update:has-text('A new version')").wait_for()
    # Still the old version everywhere until the user chooses: no mixed versions.
    assert page.evaluate("() => navigator.serviceWorker.getRegistration().then(r => Boolean(r.waiting))")
    # the old version's files come from its cache: the server has only the new version's now
    assert page.evaluate(f"() => fetch('/static/pwa/{current}/version.js').then(r => r.text())").count(current) == 1
    assert page.evaluate("() => fetch('/').then(r => r.headers.get('X-App-Version'))") == current

    with page.expect_navigation():
        page.get_by_role("button", name="Update now").click()
    page.wait_for_selector("html[data-ready=true]")
    poll(page, "() => caches.keys().then(k => k.length === 1 && k[0] === 'inspect-shell-9.9.9-test')")
    page.goto(live_server.url + "/#/account")
    assert page.inner_text("[data-test=app-version]") == "9.9.9-test"


def test_storage_persistence_is_requested_and_shown(live_server, new_context, factory):
    email = factory.user("applicant").email
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    page.goto(live_server.url + "/#/account")
    persisted = page.evaluate("() => navigator.storage.persisted()")
    shown = page.inner_text("[data-test=storage]")
    assert shown.startswith("Kept") if persisted else shown.startswith("Not guaranteed")


def test_sign_out_with_unsent_work_asks_and_keeps_it(live_server, new_context, factory):
    from .seed import field_day
    people = field_day(factory)
    context = new_context()
    page = context.new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)
    network = Network(context, live_server.url)
    network.offline()
    page.goto(f"{live_server.url}/#/site/{people.site_id}/entry")
    page.get_by_label("Basis").select_option("permit_condition")
    page.get_by_label("Granted by (name)").fill("Condition 7 of the permit")
    page.get_by_role("button", name="Save authorization").click()
    page.locator("h1:has-text('40 Center Street')").wait_for()

    page.goto(f"{live_server.url}/#/account")
    page.get_by_role("button", name="Sign out").click()
    warning = page.get_by_role("alertdialog")
    assert "1 change made on this device has not been sent" in warning.inner_text()
    warning.get_by_role("button", name="Keep them and sign out").click()
    page.locator("h1:has-text('Sign in')").wait_for()
    session = page.evaluate("""() => new Promise((resolve) => {
        const open = indexedDB.open('inspect-field');
        open.onsuccess = () => {
            const req = open.result.transaction('meta').objectStore('meta').get('session');
            req.onsuccess = () => resolve(req.result === undefined ? null : req.result);
        };
    })""")
    assert session is None  # the tokens are gone from the device
    assert [i["entity"] for i in outbox_items(page)] == ["entry_authorization"]

    network.online()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    assert outbox_items(page) == []


def test_sign_out_clears_private_media_caches_and_keeps_the_shell(live_server, new_context, factory):
    email = factory.user("applicant").email
    release_db()
    page = new_context().new_page()
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)
    shell = [name for name in cache_names(page) if name.startswith("inspect-shell-")]
    assert shell
    # a cache of private media, as a browser extension or an older version of the app could leave
    page.evaluate("""async () => {
        const cache = await caches.open('inspect-media-1');
        await cache.put('/api/v1/photos/x/thumbnail', new Response('private bytes'));
    }""")
    assert "inspect-media-1" in cache_names(page)
    page.goto(f"{live_server.url}/#/account")
    page.get_by_role("button", name="Sign out").click()
    page.locator("h1:has-text('Sign in')").wait_for()
    poll(page, "async () => !(await caches.keys()).includes('inspect-media-1')")
    assert sorted(cache_names(page)) == sorted(shell)  # the app still opens offline
