"""The applicant reads the Town's costs in the app (R-O2, R-O3): the work with its items, each notice with its
received date and its protest window's last day (received + 30 days), a written protest while the window is
open and a plain refusal after it, payments, interest and the balance as the office server states them."""
from __future__ import annotations

from datetime import date, timedelta

from inspect_api import clock

from .api_seed import town_costs
from .conftest import PHONE, TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sideways_scroll, sign_in, wait_synced

REASON = "The silt fence was restored by our contractor on the deadline; the Town's crew repeated the work."


def town_style(day: date) -> str:
    """The Town's style of date, as the app writes it: "Jun 3, 2026"."""
    return f"{day:%b} {day.day}, {day.year}"


def seed_costs(factory, client, monkeypatch):
    """Two cost recoveries on one permit, from orders whose deadlines passed: the first noticed to the owner
    five days ago (the window is open) with a payment; the second received 40 days ago (window closed,
    interest running from day 31)."""
    today = clock.today()
    applicant, _ = factory.as_role("applicant", name="Alex Builder")
    _, sup = factory.as_role("supervisor", name="Sam Reyes")
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=9000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": {"lat": 41.6402, "lon": -70.8998}},
                            owner={"name": "Ana Souza", "email": "ana@example.org"})

    open_received, closed_received = today - timedelta(days=5), today - timedelta(days=40)
    records = [town_costs(client, sup, permit.id, monkeypatch, abated=today - timedelta(days=10), received=open_received),
               town_costs(client, sup, permit.id, monkeypatch, abated=today - timedelta(days=50), received=closed_received)]
    r = client.post(f"/api/v1/cost-recoveries/{records[0]['id']}/payments", headers=sup,
                    json={"paid_on": (today - timedelta(days=1)).isoformat(), "amount": "500.00", "reference": "Check 1042"})
    assert r.status_code == 201, r.get_json()
    ids = {"email": applicant.email, "permit": permit.id, "open": records[0]["id"], "closed": records[1]["id"],
           "open_received": open_received, "closed_received": closed_received, "sup": sup}
    release_db()
    return ids


def test_applicant_reads_costs_and_protests_within_the_window(live_server, new_context, factory, client, monkeypatch,
                                                              screenshot):
    s = seed_costs(factory, client, monkeypatch)
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, s["email"])
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{s['permit']}")
    card = page.locator("[data-test=cost-notices]")
    card.locator(f"[data-cost-notice='{s['open']}']").wait_for()
    # The orders behind the costs were done by the Town: they ask nothing more of the applicant, so they are
    # not listed under what the Town asks (the app used to show them as "Comply by" a past deadline).
    assert page.locator("[data-test=town-asks] [data-order]").count() == 0
    assert "$3,000.00" in card.inner_text() and "Lien" in card.inner_text()  # the closed one passed its lien date
    last_day = town_style(s["open_received"] + timedelta(days=30))
    assert card.locator(f"[data-cost-notice='{s['open']}'] [data-test=protest-by]").inner_text() == f"Protest by {last_day}"
    assert card.locator(f"[data-cost-notice='{s['closed']}'] [data-test=protest-by]").count() == 0

    card.locator(f"[data-cost-notice='{s['open']}']").click()
    page.locator("[data-test=cost-items]").wait_for()
    items = page.inner_text("[data-test=cost-items]")
    assert "$3,000.00" in items and "DPW crew, 2 x 6 h" in items and "$720.00" in items and "Contractor" in items
    owner = page.locator("[data-recipient]:has-text('Ana Souza')")
    # The last day to protest is the received date + 30 days (R-O3; day 30 is still on time).
    assert owner.locator("[data-test=protest-ends]").inner_text() == town_style(s["open_received"] + timedelta(days=30))
    assert town_style(s["open_received"]) in owner.inner_text() and "certified mail" in owner.inner_text()
    violator = page.locator("[data-recipient]:has-text('Lee Clearing Co.')")
    assert "Only the person this notice was sent to may protest it." in violator.inner_text()
    balance = page.inner_text("[data-test=cost-balance]")
    assert "$500.00" in balance and "Check 1042" in balance
    statement = client.get(f"/api/v1/cost-recoveries/{s['open']}/statement", headers=s["sup"]).get_json()
    release_db()
    assert page.inner_text("[data-test=total-due]") == "$2,500.00" == f"${float(statement['total_due']):,.2f}"
    assert sideways_scroll(page) == []
    assert_accessible(page, "cost notice with an open protest window")
    screenshot(page, "applicant-cost-notice", sizes=("phone", "tablet"), locator="[data-test=cost-recipients]")

    # A protest needs its written reason, is asked once, and is then shown as filed.
    owner.get_by_role("button", name="File a protest").click()
    assert "Write why you protest" in owner.inner_text()
    owner.get_by_label("Your written reason").fill(REASON)
    owner.get_by_role("button", name="File a protest").click()
    confirm(page, "cannot be changed or withdrawn")
    page.locator("[data-recipient]:has-text('Ana Souza') :text('Protest filed')").wait_for()
    stored = client.get(f"/api/v1/cost-recoveries/{s['open']}", headers=s["sup"]).get_json()
    release_db()
    assert stored["status"] == "protest_pending"
    mine = next(n for n in stored["recipients"] if n["role"] == "owner")
    assert mine["protest"]["text"] == REASON and mine["protest"]["filed_on"] == clock.today().isoformat()
    assert next(n for n in stored["recipients"] if n["role"] == "violator")["protest"] is None

    # After the 30 days: no form, a plain refusal naming the last day; interest as the server states it.
    page.goto(f"{live_server.url}/#/permit/{s['permit']}/costs/{s['closed']}")
    refusal = page.locator("[data-recipient]:has-text('Ana Souza') [data-test=protest-closed]")
    refusal.wait_for()
    ended = town_style(s["closed_received"] + timedelta(days=30))
    assert f"The 30 days to protest ended on {ended}" in refusal.inner_text()
    assert page.get_by_role("button", name="File a protest").count() == 0
    closed = client.get(f"/api/v1/cost-recoveries/{s['closed']}/statement", headers=s["sup"]).get_json()
    release_db()
    assert float(closed["interest"]) > 0
    interest = page.inner_text("[data-test=interest]")
    assert f"${float(closed['interest']):,.2f}" in interest and "14 % a year" in interest
    assert town_style(date.fromisoformat(closed["interest_from"])) in interest
    assert "became a lien on the property" in page.inner_text("[data-test=cost-balance]")
    page.set_viewport_size(TABLET_LANDSCAPE)
    assert_accessible(page, "cost notice after its protest window")
