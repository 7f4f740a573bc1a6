"""Dates on a device set to another time zone (R-I4, R-O1): the app counts days on the Town's calendar
(America/New_York), as the server does. At 21:30 in Fairhaven a browser on UTC is already on the next
day; the due date it shows for a new finding, and which findings it calls overdue, are still the Town's."""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

from inspect_api import clock
from inspect_api.inspections.rules import finding_due_on

from .conftest import TABLET_LANDSCAPE
from .helpers import release_db, sign_in, wait_synced
from .seed import field_day

API = "/api/v1"


def shown(day) -> str:
    return f"{day:%b} {day.day}, {day.year}"


def _findings(client, factory, people) -> dict[str, str]:
    """An entry authorization for the site, and two open findings: one due today, one due yesterday."""
    from inspect_api.auth.models import User
    from inspect_api.extensions import db
    inspector = db.session.get(User, people.inspector_id)
    supervisor = factory.user("supervisor")
    now = clock.now()
    ih, sh = factory.headers(inspector), factory.headers(supervisor)
    r = client.post(f"{API}/entry-authorizations", headers=ih, json={
        "permit_id": people.site_id, "basis": "permit_condition", "granted_by_name": "Condition 12",
        "granted_by_relation": "permit condition", "scope": ["examination", "survey", "sampling"],
        "valid_from": (now - timedelta(days=2)).isoformat(), "valid_to": (now + timedelta(days=30)).isoformat()})
    assert r.status_code == 201, r.get_json()
    ids = {}
    for name, due in (("today", clock.today()), ("yesterday", clock.today() - timedelta(days=1))):
        r = client.post(f"{API}/findings", headers=ih, json={
            "permit_id": people.site_id, "description": f"Silt fence down ({name})",
            "observed_on": (clock.today() - timedelta(days=3)).isoformat()})
        assert r.status_code == 201, r.get_json()
        finding = r.get_json()
        r = client.patch(f"{API}/findings/{finding['id']}", headers=sh, json={
            "version": finding["version"], "due_on": due.isoformat(), "due_on_reason": "Agreed on site"})
        assert r.status_code == 200, r.get_json()
        ids[name] = finding["id"]
    release_db()
    return ids


def test_a_utc_browser_counts_days_in_town_time(live_server, new_context, factory, client):
    people = field_day(factory)
    findings = _findings(client, factory, people)
    today = clock.today()
    evening = datetime.combine(today, time(21, 30), tzinfo=clock.town_zone())  # already tomorrow in UTC
    assert evening.astimezone(timezone.utc).date() == today + timedelta(days=1)
    page = new_context(TABLET_LANDSCAPE, timezone_id="UTC").new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.clock.set_fixed_time(evening)
    assert page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == "UTC"
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    page.click(f"a.row[data-permit='{people.site_id}']")
    page.wait_for_selector("h1:has-text('40 Center Street')")

    rows = {f: page.locator(f"li.item:has-text('({f})')") for f in findings}
    assert rows["today"].locator(".chip.warn").inner_text() == f"Due {shown(today)}"
    assert rows["today"].locator("[data-test=overdue]").count() == 0
    assert rows["yesterday"].locator("[data-test=overdue]").inner_text() == "Overdue"

    # A new finding on tonight's inspection is due as the server will have it: from the Town's day.
    page.click("text=Start inspection")
    page.wait_for_selector("h1:has-text('Inspection')")
    key = page.eval_on_selector_all("[data-item]", "els => els.map(e => e.dataset.item)")[0]
    page.click(f"[data-item='{key}'] button[data-answer='deficient']")
    new_control = page.is_checked(f"[data-item='{key}'] [data-test=finding] input[type=checkbox]")
    due = finding_due_on(today, needs_new_control=new_control)
    assert page.locator(f"[data-item='{key}'] [data-test=due]").inner_text() == f"Due {shown(due)}"
    assert errors == []
