"""Steps the browser tests share: signing in, waiting for the service worker, cutting the network."""
from __future__ import annotations

import json
import time
from pathlib import Path

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


def offline_after_first_sync(context, base_url: str, email: str):
    """An inspector's day as the field suites start it: signed in on a new page of `context`, the
    service worker in control and a first sync done; then the network cut and the app reloaded from
    the worker's copy. Returns the page, its Network and the page errors seen from then on."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, base_url, email)
    wait_for_service_worker(page)
    wait_synced(page)
    network = Network(context, base_url)
    network.offline()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    return page, network, errors


def back_online_and_synced(page, network, timeout: int = 30000) -> None:
    """The network is back: one sync sends the outbox, and ends with nothing waiting and no sync error."""
    network.online()
    page.evaluate("window.dispatchEvent(new Event('online'))")
    try:
        wait_synced(page, timeout=timeout)
    except Exception:
        raise AssertionError(outbox_items(page)) from None
    assert not page.locator("[data-test=sync-error]").count(), page.inner_text("#syncbar")


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


AXE_SOURCE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
# Serious and critical violations fail; moderate and minor ones are reported in the message only.
BLOCKING = ("serious", "critical")


def axe_violations(page, enable: tuple[str, ...] = ()) -> list[dict]:
    """Runs axe-core (npm package, from node_modules; the app never serves it) in the page and returns
    its violations. Loaded through the DevTools protocol, so the app's Content-Security-Policy, which
    forbids inline and foreign scripts, stays as it is. `enable` turns on rules axe leaves off by default
    (e.g. color-contrast-enhanced, WCAG AAA's 7:1)."""
    if not AXE_SOURCE.exists():
        import pytest
        pytest.fail(f"{AXE_SOURCE} is missing: run `npm install` in the checkout (package.json lists axe-core)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(f"() => {{ {AXE_SOURCE.read_text()}\n; window.axe = window.axe || axe; }}")
    return page.evaluate("""async (enable) => {
        const rules = Object.fromEntries(enable.map((id) => [id, { enabled: true }]));
        const result = await window.axe.run(document, { resultTypes: ["violations"], rules });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
    }""", list(enable))


def assert_accessible(page, where: str) -> None:
    found = axe_violations(page)
    blocking = [v for v in found if v["impact"] in BLOCKING]
    assert blocking == [], f"{where}: axe-core found {blocking}"


# Controls smaller than this fail (WCAG 2.5.5 target size, gloved hands in the field).
TAP = 44


# The outdoor theme's targets (css/app.css --tap there): gloved hands, sun on the screen.
OUTDOOR_TAP = 56
# Where ui/theme.js keeps the theme chosen on the Account screen (this device's localStorage).
THEME_KEY = "inspect-field.theme"


def theme_chosen_before(context, theme: str) -> None:
    """Every page of `context` opens as if `theme` had been chosen on the Account screen earlier."""
    context.add_init_script("try { localStorage.setItem(%s, %s); } catch (e) { /* about:blank */ }"
                            % (json.dumps(THEME_KEY), json.dumps(theme)))


def undersized_controls(page, tap: int = TAP) -> list[str]:
    """Visible controls in the page whose box is under `tap` x `tap` CSS px (44 unless told). Links inside running text are
    exempt (WCAG's inline exception); a checkbox counts by the label that wraps it."""
    return page.evaluate("""(tap) => {
        const out = [];
        const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
            return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !el.closest('[hidden]'); };
        const sel = 'button, a.button, a.row, a.back, .nav a, summary, select, textarea, '
            + 'input:not([type=checkbox]):not([type=radio]):not([type=file]):not([type=hidden]), label.check, .file-button';
        for (const el of document.querySelectorAll(sel)) {
            if (!visible(el) || el.closest('dialog:not([open])')) continue;
            const r = el.getBoundingClientRect();
            if (r.width + 0.5 < tap || r.height + 0.5 < tap)
                out.push(`${el.tagName.toLowerCase()}${el.className ? '.' + el.className.replace(/ /g, '.') : ''} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        return out;
    }""", tap)


def small_text(page) -> list[str]:
    """Text under 16 px for body copy, or under 14 px for secondary text (hints, chips, small print)."""
    return page.evaluate("""() => {
        const out = [];
        const secondary = '.hint, small, .chip, .muted, th, .count, .photo p, .syncbar *, figure *';
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const seen = new Set();
        while (walker.nextNode()) {
            const el = walker.currentNode.parentElement;
            if (!el || seen.has(el) || !walker.currentNode.textContent.trim()) continue;
            seen.add(el);
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height || el.closest('[hidden], dialog:not([open]), .word, .sr-word, svg')) continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            const min = el.closest(secondary) ? 14 : 16;
            if (size + 0.01 < min) out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${size}px < ${min}px`);
        }
        return out;
    }""")


def sideways_scroll(page) -> list[str]:
    """The elements that stick out past the right edge of the screen (the page would scroll sideways);
    empty when nothing does."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth <= width) return [];
        const out = [];
        for (const el of document.body.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.right > width + 0.5 && r.width > 0) out.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(r.right)}`);
        }
        return out.slice(0, 10);
    }""")


def confirm(page, expect: str) -> None:
    """Answers the app's confirmation dialog after checking it says what will happen."""
    dialog = page.locator("dialog.confirm[open]")
    dialog.wait_for()
    assert expect in dialog.inner_text(), dialog.inner_text()
    dialog.locator("[data-confirm=yes]").click()
    dialog.wait_for(state="detached")
