"""Steps the browser tests share: signing in, waiting for the service worker, cutting the network."""
from __future__ import annotations

import time

from tests.factories import PASSWORD


def sign_in(page, base_url: str, email: str) -> None:
    page.goto(base_url + "/")
    page.wait_for_selector("html[data-ready=true]")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#nav a")


def poll(page, script: str, timeout: float = 20.0) -> None:
    """Until `script` (a function) returns true in the page. page.wait_for_function would compile its
    predicate with eval, which the app's Content-Security-Policy (rightly) forbids."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(script):
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout} s: {script}")
        page.wait_for_timeout(100)


def wait_for_service_worker(page) -> None:
    """Until the page is controlled by an activated worker, i.e. the shell is precached."""
    poll(page, "() => Boolean(navigator.serviceWorker && navigator.serviceWorker.controller"
               " && navigator.serviceWorker.controller.state === 'activated')")


def wait_synced(page, timeout: int = 30000) -> None:
    """Until a sync run has finished and nothing waits in the outbox."""
    page.locator("[data-test=pending]:has-text('Everything sent')").wait_for(timeout=timeout)
    page.locator("#syncbar button[aria-label='Sync now']:not([disabled])").wait_for(timeout=timeout)


class Network:
    """Cuts the network for the page AND its service worker: context.set_offline alone does not stop
    a service worker's fetches, so every request to the app's origin is also aborted by a route."""

    def __init__(self, context, base_url: str) -> None:
        self.context = context
        self.pattern = base_url + "/**"
        self.down = False

    def _abort(self, route):
        route.abort("internetdisconnected")

    def offline(self) -> None:
        self.context.route(self.pattern, self._abort)
        self.context.set_offline(True)
        self.down = True

    def online(self) -> None:
        self.context.unroute(self.pattern, self._abort)
        self.context.set_offline(False)
        self.down = False


def release_db() -> None:
    """End the test thread's transaction. The embedded SQLite begins every transaction IMMEDIATE (a
    write lock), so a test that read a row would otherwise block the live server's writes."""
    from inspect_api.extensions import db
    db.session.commit()
    db.session.close()


def outbox_items(page) -> list[dict]:
    """What the device still holds unsent (without photo bytes), read from its IndexedDB."""
    return page.evaluate("""() => new Promise((resolve, reject) => {
        const open = indexedDB.open('inspect-field');
        open.onsuccess = () => {
            const req = open.result.transaction('outbox').objectStore('outbox').getAll();
            req.onsuccess = () => resolve(req.result.map(({bytes, ...rest}) => rest));
            req.onerror = () => reject(req.error);
        };
        open.onerror = () => reject(open.error);
    })""")
