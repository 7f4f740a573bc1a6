"""A supervisor's first sync of a county in the browser.

    python benchmarks/first_sync.py                       # 10,000 permits, 50,000 field records, SQLite
    python benchmarks/first_sync.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    python benchmarks/first_sync.py --permits 1000 --records 5000

Seeds a throwaway database through the models (benchmarks/county.py: every record numbered in the
change feed with its snapshot, as any write), serves the app on 127.0.0.1 (werkzeug, threaded, as
tests/browser does) and drives the system Chromium through Playwright: a fresh device, the
supervisor signs in, and the script measures from the click on "Sign in":

  home     the home screen ("Inspections to review") has drawn its queue;
  usable   home drawn, and a permit can be found and opened: the Sites screen lists permits and the
           first one listed opens as its site screen (not "Site not on this device");
  listed   back on Sites, left open: it lists every permit of the county;
  complete the first sync has finished (nothing left to receive: "Synced ..." and "Sync now" again);

then the records the device holds (IndexedDB, counted) and the storage the origin uses
(navigator.storage.estimate()). The progress the sync bar showed is sampled on the way. Times are
wall clock on a machine that may be shared: as measured, noise included.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from benchmarks.county import PASSWORD, seed_county  # noqa: E402
from benchmarks.throwaway import Throwaway  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]

COUNT_RECORDS = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open("inspect-field");
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const names = ["permits", "entry_authorizations", "records"];
    const t = db.transaction(names, "readonly");
    const out = {};
    for (const n of names) { const r = t.objectStore(n).count(); r.onsuccess = () => { out[n] = r.result; }; }
    t.oncomplete = () => { db.close(); resolve(out); };
    t.onerror = () => reject(t.error);
  };
})"""
ESTIMATE = "() => navigator.storage.estimate().then((e) => ({usage: e.usage, quota: e.quota}))"
PROGRESS = "() => { const p = document.querySelector('[data-test=progress]'); return p ? p.textContent : ''; }"
SYNCED = ("() => { const b = document.querySelector(\"#syncbar button[aria-label='Sync now']\");"
          " const l = document.querySelector('[data-test=last-sync]');"
          " return Boolean(b && !b.disabled && l && l.textContent.startsWith('Synced')); }")


def build_app(url: str, blobs: str):
    from inspect_api import create_app, import_models
    from inspect_api.config import TestConfig
    from inspect_api.extensions import db
    import_models()
    engine = sa.create_engine(url)
    db.metadata.create_all(engine)  # a throwaway database, as the test suite makes its own
    engine.dispose()
    return create_app(TestConfig(SQLALCHEMY_DATABASE_URI=url, STORAGE_URL=f"file://{blobs}",
                                 UPLOAD_TEMP_DIR=f"{blobs}/tmp", INSTANCE_PATH=blobs))


class Server:
    def __init__(self, app) -> None:
        from werkzeug.serving import make_server
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


def until(page, script: str, timeout: float, every: float = 0.1, seen: list | None = None) -> float:
    """Polls `script` in the page until it is true (never past `timeout` s); returns when it was.
    (page.wait_for_function would compile with eval, which the app's CSP forbids.) `seen` collects
    the sync bar's progress texts on the way."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if page.evaluate(script):
            return time.perf_counter()
        if seen is not None:
            text = page.evaluate(PROGRESS)
            if text and (not seen or seen[-1][1] != text):
                seen.append((time.perf_counter(), text))
        page.wait_for_timeout(int(every * 1000))
    raise TimeoutError(f"not true after {timeout:.0f} s: {script[:80]}")


def measure(base: str, county, permits: int, timeout: float) -> dict:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="allow",
                                          locale="en-US", timezone_id="America/New_York")
            context.set_default_timeout(timeout * 1000)
            page = context.new_page()
            page.goto(base + "/")
            page.wait_for_selector("html[data-ready=true]")
            page.get_by_label("E-mail").fill(county.supervisor_email)
            page.get_by_label("Password").fill(PASSWORD)
            seen: list = []
            start = time.perf_counter()
            page.get_by_role("button", name="Sign in").click()
            home = until(page, "() => { const m = document.querySelector('main');"
                               " return Boolean(m && m.querySelector('h1') && m.querySelector('h1').textContent"
                               " === 'Inspections to review' && !m.querySelector('.loading')); }", timeout, seen=seen)
            page.evaluate("() => { location.hash = '#/sites'; }")
            until(page, "() => Boolean(document.querySelector('main a.row[data-permit]'))", timeout, seen=seen)
            page.locator("main a.row[data-permit]").first.click()
            usable = until(page, "() => { const h = document.querySelector('main h1');"
                                 " return Boolean(location.hash.startsWith('#/site/') && h &&"
                                 " h.textContent !== 'Site not on this device' && !document.querySelector('main .loading')); }",
                           timeout, seen=seen)
            syncing_when_usable = bool(page.evaluate(PROGRESS))
            # Back to Sites, left open: when does it list every permit of the county?
            page.evaluate("() => { location.hash = '#/sites'; }")
            listed = until(page, "() => Array.from(document.querySelectorAll('main h2.section-title')).some((e) =>"
                                 f" e.textContent === 'Other permits ({permits}, view only)')",
                           timeout, every=0.25, seen=seen)
            complete = until(page, SYNCED, timeout, every=0.25, seen=seen)
            counts = page.evaluate(COUNT_RECORDS)
            estimate = page.evaluate(ESTIMATE)
            return {"home_s": home - start, "usable_s": usable - start, "complete_s": complete - start,
                    "listed_s": listed - start,
                    "syncing_when_usable": syncing_when_usable, "counts": counts, "usage": estimate["usage"],
                    "progress": [(t - start, text) for t, text in seen]}
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL (a throwaway database is made on it)")
    parser.add_argument("--permits", type=int, default=10_000)
    parser.add_argument("--records", type=int, default=50_000, help="field records spread over the permits")
    parser.add_argument("--timeout", type=float, default=900, help="seconds any one wait may take")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is not installed (Debian package `chromium`)")
    db_ = Throwaway(args.pg, "first_sync")
    blobs = tempfile.TemporaryDirectory(prefix="first-sync-blobs-")
    server = None
    try:
        app = build_app(db_.url, blobs.name)
        with app.app_context():
            from inspect_api.extensions import db
            start = time.perf_counter()
            county = seed_county(permits=args.permits, records=args.records)
            seeded = time.perf_counter() - start
            feed = db.session.scalar(sa.text("select count(*) from sync_changes"))
            db.session.remove()
        print(f"seeded {args.permits:,} permits and {args.records:,} field records ({feed:,} feed rows) in "
              f"{seeded:.1f} s on {'PostgreSQL' if args.pg else 'SQLite'}; machine load {os.getloadavg()[0]:.2f}",
              flush=True)
        server = Server(app)
        r = measure(server.url, county, args.permits, args.timeout)
        held = sum(r["counts"].values())
        print(f"home screen drawn:         {r['home_s']:6.1f} s after signing in")
        print(f"usable (a permit opened):  {r['usable_s']:6.1f} s{' (sync still running)' if r['syncing_when_usable'] else ''}")
        print(f"Sites lists all permits:   {r['listed_s']:6.1f} s (the screen left open from then on)")
        print(f"first sync complete:       {r['complete_s']:6.1f} s")
        print(f"records on the device:     {held:,} ({r['counts']}); expected {feed - 1:,} (the feed less the one assignment)")
        print(f"IndexedDB + caches (navigator.storage.estimate().usage): {r['usage'] / 2**20:.1f} MiB")
        steps = r["progress"]
        shown = steps if len(steps) <= 12 else steps[:4] + steps[len(steps) // 2 - 2:len(steps) // 2 + 2] + steps[-4:]
        print("sync bar progress on the way:")
        for t, text in shown:
            print(f"  {t:6.1f} s  {text}")
    finally:
        if server is not None:
            server.stop()
        db_.drop()
        blobs.cleanup()


if __name__ == "__main__":
    main()
