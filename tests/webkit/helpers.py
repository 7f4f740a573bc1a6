"""Steps the WebKit tests share (Selenium), mirroring tests/browser/helpers.py."""
from __future__ import annotations

import time

from tests.factories import PASSWORD


def wait(driver, script: str, timeout: float = 30.0, what: str = ""):
    """Until `script` (a JS expression body returning a value) returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout} s: {what or script}")
        time.sleep(0.15)


def css(driver, selector: str, timeout: float = 30.0):
    from selenium.webdriver.common.by import By
    wait(driver, f"return document.querySelector({selector!r}) !== null", timeout, selector)
    return driver.find_element(By.CSS_SELECTOR, selector)


def click_text(driver, selector: str, text: str, timeout: float = 30.0) -> None:
    """Clicks the first element matching `selector` whose text contains `text`."""
    script = (f"return Array.from(document.querySelectorAll({selector!r}))"
              f".find((e) => e.textContent.includes({text!r}) && e.getClientRects().length) || null")
    from selenium.common.exceptions import StaleElementReferenceException
    for _ in range(5):  # a screen that redraws after a sync replaces its elements: find it again
        element = wait(driver, script, timeout, f"{selector} with {text!r}")
        try:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return
        except StaleElementReferenceException:
            time.sleep(0.2)
    raise AssertionError(f"{selector} with {text!r} kept being redrawn")


def fill_label(driver, label: str, value: str) -> None:
    """Types into the control of the <label> whose text is `label`."""
    script = (f"const l = Array.from(document.querySelectorAll('label')).find((e) => e.textContent.trim() === {label!r});"
              "return l ? (l.control || document.getElementById(l.htmlFor)) : null")
    element = wait(driver, script, 20, f"field {label!r}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.clear()
    element.send_keys(value)


def sign_in(driver, base_url: str, email: str) -> None:
    driver.get(base_url + "/")
    css(driver, "html[data-ready=true]")
    fill_label(driver, "E-mail", email)
    fill_label(driver, "Password", PASSWORD)
    click_text(driver, "button", "Sign in")
    css(driver, "#nav a")


def wait_for_service_worker(driver) -> None:
    wait(driver, "return Boolean(navigator.serviceWorker && navigator.serviceWorker.controller"
                 " && navigator.serviceWorker.controller.state === 'activated')", 60, "service worker in control")


def wait_synced(driver, timeout: float = 60.0) -> None:
    wait(driver, "const p = document.querySelector('[data-test=pending]');"
                 "const b = document.querySelector(\"#syncbar button[aria-label='Sync now']\");"
                 "return p && p.textContent.includes('Everything sent') && b && !b.disabled", timeout, "synced")


def outbox(driver) -> list:
    return driver.execute_async_script("""const done = arguments[arguments.length - 1];
        const open = indexedDB.open('inspect-field');
        open.onsuccess = () => { const req = open.result.transaction('outbox').objectStore('outbox').getAll();
            req.onsuccess = () => done(req.result.map(({bytes, ...rest}) => rest)); };
        open.onerror = () => done(null);""")
