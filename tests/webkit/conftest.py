"""WebKit tests: the real app, driven in WebKitGTK (Debian's webkit2gtk-driver: /usr/bin/WebKitWebDriver
with its MiniBrowser) through Selenium, on a private Xvfb display. Nothing is downloaded: the driver's
path is given, and Selenium Manager is switched off. Skips with the reason when a part is missing.

The server runs in a thread on a fixed port of its own, so a test can stop it (the socket closes and
the browser sees "connection refused", as when the office server is down) and start it again on the
same origin, which the service worker and IndexedDB belong to."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER_CANDIDATES = ("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                          "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                          "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "webkit"
TABLET = (820, 1180)
PHONE = (390, 844)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/webkit/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.webkit)
            item.add_marker(pytest.mark.browser)  # run once, with the browser suites (not again on PostgreSQL)


def minibrowser() -> str | None:
    return next((p for p in MINIBROWSER_CANDIDATES if Path(p).exists()), None)


def missing_parts() -> str | None:
    if not Path(WEBKIT_DRIVER).exists():
        return f"{WEBKIT_DRIVER} is not installed (Debian package `webkit2gtk-driver`)"
    if not minibrowser():
        return "WebKitGTK's MiniBrowser is not installed (Debian package `libwebkit2gtk-4.1-0`)"
    if not shutil.which("Xvfb"):
        return "Xvfb is not installed (Debian package `xvfb`)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the `selenium` Python package is not installed (test extra)"
    return None


@pytest.fixture(scope="session")
def display():
    """A private X display (Xvfb) for the browser; its number is chosen by Xvfb itself."""
    reason = missing_parts()
    if reason:
        pytest.skip(reason)
    if os.environ.get("WEBKIT_DISPLAY"):
        yield os.environ["WEBKIT_DISPLAY"]
        return
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x1400x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.kill()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)


class Browser:
    """One WebKitGTK window through WebKitWebDriver."""

    def __init__(self, display: str, size=TABLET) -> None:
        os.environ["SE_MANAGER_PATH"] = "/bin/false"  # never let Selenium Manager fetch a driver or browser
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        options = Options()
        options.binary_location = minibrowser()
        options.add_argument("--automation")
        env = {**os.environ, "DISPLAY": display, "WEBKIT_DISABLE_COMPOSITING_MODE": "1"}
        service = Service(executable_path=WEBKIT_DRIVER, env=env)
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(*size)
        self.driver.implicitly_wait(0)

    def quit(self) -> None:
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 - the window may already be gone
            pass


@pytest.fixture
def webkit(display, request):
    browsers: list[Browser] = []

    def make(size=TABLET) -> Browser:
        browser = Browser(display, size)
        browsers.append(browser)
        return browser

    yield make
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for n, browser in enumerate(browsers):
        if failed:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            try:
                browser.driver.save_screenshot(str(ARTIFACTS / f"failure-{request.node.name}-{n}.png"))
            except Exception:  # noqa: BLE001
                pass
        browser.quit()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StoppableServer:
    """The test app served on one port that outlives stop() and start()."""

    def __init__(self, app) -> None:
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None
        self.thread = None

    def start(self) -> None:
        from werkzeug.serving import make_server
        self.server = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(timeout=10)
            self.server = None


@pytest.fixture
def office_server(app):
    server = StoppableServer(app)
    server.start()
    yield server
    server.stop()
