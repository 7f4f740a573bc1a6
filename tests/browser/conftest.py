"""Browser tests: the real app served by werkzeug on 127.0.0.1, driven by the system Chromium
through Playwright's sync API. Never downloads a browser; skips with the reason when either the
browser or the playwright package is missing."""
from __future__ import annotations

import io
import os
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"

# Sizes of the devices the app is made for: a 10-inch tablet both ways and a phone.
TABLET_LANDSCAPE = {"width": 1280, "height": 800}
TABLET_PORTRAIT = {"width": 800, "height": 1280}
PHONE = {"width": 390, "height": 844}
# Fairhaven town hall; sites in the tests lie around it.
HERE = {"latitude": 41.6376, "longitude": -70.9036, "accuracy": 6}


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def playwright_module():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (Debian package `chromium`)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the `playwright` Python package is not installed")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_module):
    browser = playwright_module.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield browser
    browser.close()


class LiveServer:
    """The test app on a free port in a thread (werkzeug), so the browser talks real HTTP."""

    def __init__(self, app) -> None:
        from werkzeug.serving import make_server
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(app):
    with LiveServer(app) as server:
        yield server


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def new_context(browser, request):
    contexts = []

    violations: list[str] = []

    def watch(page):
        # Chromium reports a Content-Security-Policy violation on the console; the app must cause none.
        page.on("console", lambda msg: violations.append(msg.text)
                if msg.type == "error" and "Content Security Policy" in msg.text else None)

    def make(viewport=TABLET_LANDSCAPE, **kwargs):
        kwargs.setdefault("timezone_id", "America/New_York")  # a test may set the device elsewhere
        context = browser.new_context(viewport=viewport, geolocation=HERE, permissions=["geolocation"],
                                      service_workers="allow", device_scale_factor=1, locale="en-US", **kwargs)
        context.set_default_timeout(15000)
        context.on("page", watch)
        contexts.append(context)
        return context

    yield make
    assert violations == [], violations
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for n, context in enumerate(contexts):
        if failed:  # what the screen showed when the test failed, for the CI log reader
            (ARTIFACTS / "failures").mkdir(parents=True, exist_ok=True)
            for m, page in enumerate(context.pages):
                page.screenshot(path=str(ARTIFACTS / "failures" / f"{request.node.name}-{n}-{m}.png"))
        context.close()


SIZES = {"tablet": TABLET_LANDSCAPE, "tablet-portrait": TABLET_PORTRAIT, "phone": PHONE}
# Screenshots the README shows; copied into docs/ when UPDATE_DOCS_SCREENSHOTS=1 (kept out of normal
# runs so the committed pictures change only when someone means to change them).
PUBLISHED = {"inspector-checklist-tablet": "inspector-tablet.png", "applicant-application-phone": "phone-application.png",
             "supervisor-deciding-application-tablet": "supervisor-application.png",
             "supervisor-costs-tablet": "supervisor-costs.png", "supervisor-program-tablet": "supervisor-program.png",
             "supervisor-public-report-tablet": "supervisor-public-report.png",
             "public-report-pt-phone": "public-report-pt.png"}


@pytest.fixture
def screenshot():
    """screenshot(page, name) saves test-artifacts/screenshots/<name>-<size>.png at each device size
    (tablet landscape, tablet portrait, phone), then restores the page's viewport."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page, name: str, sizes=tuple(SIZES), locator: str | None = None) -> None:
        original = page.viewport_size
        for size in sizes:
            page.set_viewport_size(SIZES[size])
            if locator:
                page.locator(locator).first.scroll_into_view_if_needed()
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            page.wait_for_timeout(150)  # let layout settle after the resize
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{size}.png"))
            publish(f"{name}-{size}")
        page.set_viewport_size(original)

    return save


def publish(shot: str) -> None:
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1" and shot in PUBLISHED:
        docs = Path(__file__).resolve().parents[2] / "docs"
        docs.mkdir(exist_ok=True)
        shutil.copyfile(SCREENSHOTS / f"{shot}.png", docs / PUBLISHED[shot])


def camera_jpeg(lat: float, lon: float, *, seed: int = 0, size=(1600, 1200)) -> bytes:
    """A camera-like JPEG with EXIF GPS (degrees/minutes/seconds rationals, N/S and E/W refs)."""
    from fractions import Fraction

    from PIL import Image, ImageDraw
    from PIL.TiffImagePlugin import IFDRational

    image = Image.new("RGB", size, (96 + seed * 20 % 120, 120, 80))
    draw = ImageDraw.Draw(image)
    for i in range(0, size[0], 80):
        draw.line([(i, 0), (i + 400, size[1])], fill=(150, 110 + seed * 30 % 100, 60), width=18)
    draw.rectangle((200, 700, 1400, 1000), fill=(70, 60, 50))

    def dms(value: float):
        value = abs(value)
        d = int(value)
        m = int((value - d) * 60)
        s = round(((value - d) * 60 - m) * 60 * 100)
        return (IFDRational(d, 1), IFDRational(m, 1), IFDRational(Fraction(s, 100)))

    exif = Image.Exif()
    exif[0x010F] = "TestCam"
    exif[0x0110] = "Field 1"
    exif[0x0132] = "2026:05:04 10:15:00"
    gps = exif.get_ifd(0x8825)
    gps[1] = "N" if lat >= 0 else "S"
    gps[2] = dms(lat)
    gps[3] = "E" if lon >= 0 else "W"
    gps[4] = dms(lon)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85, exif=exif)
    return out.getvalue()
