"""The office's money trail in the app (R-O2, R-O3): after an order's deadline passes unmet, a supervisor
records the Town's work and its cost items on the close-out screen, sends the notice of costs to the
owner and the violator, sees the owner's protest as something to decide, decides it, records a
payment; and, for costs left unpaid past every protest window, opens the lien certificate. Each step
is checked through the API."""
from __future__ import annotations

from datetime import timedelta

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.permits.cases import add_party

from .conftest import TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sign_in


def _seed(factory, client, *, deadline_days_ago: int = 10):
    applicant, app_headers = factory.as_role("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=30000)
    add_party(supervisor, permit, {"role": "violator", "name": "Acme Site Works LLC", "email": "acme@example.org",
                                   "mailing_address": "1 Mill Rd, New Bedford"})
    owner = next(p for p in permit.parties if p.role == "owner")
    owner.user_id = applicant.id  # the owner signs in as the applicant and may protest their notice
    db.session.commit()
    today = clock.today()
    order = client.post("/api/v1/orders", headers=sup, json={
        "permit_id": permit.id, "kinds": ["controls"], "violated": [{"provision_kind": "bylaw", "provision": "§194-21(C)"}],
        "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}],
        "issued_on": (today - timedelta(days=deadline_days_ago + 10)).isoformat(),
        "deadline": (today - timedelta(days=deadline_days_ago)).isoformat()})
    assert order.status_code == 201, order.get_json()
    ids = (supervisor.email, permit.id, order.get_json()["id"], order.get_json()["number"])
    release_db()
    return ids, sup, app_headers


def _fill_item(page, n: int, category: str, what: str, amount: str) -> None:
    item = page.locator("[data-cost-item]").nth(n)
    item.get_by_label("Category").select_option(category)
    item.get_by_label("What was done").fill(what)
    item.get_by_label("Amount").fill(amount)


def test_supervisor_runs_the_money_trail_in_the_app(live_server, new_context, factory, client, screenshot):
    (email, permit_id, order_id, order_number), sup, app_headers = _seed(factory, client)
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")

    # The Town's work, after the deadline passed unmet: two items, refused in words while incomplete.
    work = page.locator(f"details[data-record-work='{order_id}']")
    work.locator("summary").click()
    work.get_by_role("button", name="Record the work").click()
    assert "Add at least one cost item" in work.inner_text()
    _fill_item(page, 0, "labor", "DPW crew, 6 hours", "720.00")
    work.get_by_role("button", name="Add a cost item").click()
    _fill_item(page, 1, "equipment", "Excavator, half day", "480.00")
    work.get_by_role("button", name="Record the work").click()
    confirm(page, "2 items, $1,200.00")
    page.locator("a.row[data-cost-recovery]").wait_for()
    assert "The Town's work is recorded" in page.locator("main .banner.ok").inner_text()
    [recovery] = client.get(f"/api/v1/cost-recoveries?permit_id={permit_id}", headers=sup).get_json()
    order = client.get(f"/api/v1/orders/{order_id}", headers=sup).get_json()
    release_db()
    assert recovery["costs_total"] == "1200.00" and order["status"] == "town_performed"
    assert [(i["category"], i["amount"]) for i in recovery["items"]] == [("labor", "720.00"), ("equipment", "480.00")]

    # The notices of costs: the owner's by certified mail, received today; the violator's by hand.
    page.click(f"a.row[data-cost-recovery='{recovery['id']}']")
    notices = page.locator("[data-test=cost-recipients]")
    notices.wait_for()
    today = clock.today()
    owner_box = notices.locator("fieldset", has_text="Property owner")
    owner_box.get_by_label("Sent", exact=True).select_option("certified_mail")
    owner_box.get_by_label("Sent on").fill(today.isoformat())
    owner_box.get_by_label("Received on").fill(today.isoformat())
    violator_box = notices.locator("fieldset", has_text="Acme Site Works LLC")
    violator_box.get_by_label("Received on").fill(today.isoformat())
    notices.get_by_role("button", name="Save notices").click()
    assert "Say how the notice to Acme Site Works LLC was sent" in notices.inner_text()
    violator_box.get_by_label("Sent", exact=True).select_option("hand")
    violator_box.get_by_label("Sent on").fill(today.isoformat())
    notices.get_by_role("button", name="Save notices").click()
    page.locator("main .banner.ok:has-text('Notices of costs saved')").wait_for()
    record = client.get(f"/api/v1/cost-recoveries/{recovery['id']}", headers=sup).get_json()
    release_db()
    by_role = {n["role"]: n for n in record["recipients"]}
    assert by_role["owner"]["method"] == "certified_mail" and by_role["owner"]["received_on"] == today.isoformat()
    assert by_role["violator"]["method"] == "hand"
    assert by_role["owner"]["protest_window_ends"] == (today + timedelta(days=30)).isoformat()
    assert "May protest until" in page.locator("[data-test=protest-ends]").first.inner_text()

    # The owner protests (on their own device); the close-out screen says a protest waits.
    protest = client.post(f"/api/v1/cost-recoveries/{recovery['id']}/protest", headers=app_headers,
                          json={"recipient_id": by_role["owner"]["id"], "text": "The excavator was on site two hours, not four."})
    release_db()
    assert protest.status_code == 201, protest.get_json()
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")
    page.locator(f"a.row[data-cost-recovery='{recovery['id']}'] [data-test=protest-to-decide]").wait_for()
    page.click(f"a.row[data-cost-recovery='{recovery['id']}']")
    protests = page.locator("[data-test=cost-protests]")
    protests.wait_for()
    assert "two hours, not four" in protests.inner_text()
    protests.get_by_label("Decision").select_option("reduce")
    protests.get_by_role("button", name="Decide the protest").click()
    assert "Give the reduced amount" in protests.inner_text()
    protests.get_by_label("Reduced amount").fill("960.00")
    protests.get_by_label("Reason").fill("Excavator time reduced to two hours on the operator's log.")
    protests.get_by_role("button", name="Decide the protest").click()
    confirm(page, "reduce the costs to $960.00")
    page.locator("main .banner.ok:has-text('Protest decided')").wait_for()
    decided = client.get(f"/api/v1/cost-recoveries/{recovery['id']}", headers=sup).get_json()
    release_db()
    assert decided["decision"]["decision"] == "reduce" and decided["decision"]["amount"] == "960.00"
    assert page.locator("[data-test=cost-decision]").count() == 1

    # A payment against what is owed now.
    pay = page.locator("[data-test=payment-form]")
    pay.get_by_label("Amount").fill("300.00")
    pay.get_by_label("Reference").fill("Check 1042")
    pay.get_by_role("button", name="Record payment").click()
    confirm(page, "Record $300.00 paid?")
    page.locator("main .banner.ok:has-text('Payment of $300.00 recorded')").wait_for()
    statement = client.get(f"/api/v1/cost-recoveries/{recovery['id']}/statement", headers=sup).get_json()
    release_db()
    assert statement["principal"] == "960.00" and statement["payments_total"] == "300.00"
    assert statement["principal_outstanding"] == "660.00"
    assert "$660.00" in page.locator("[data-test=cost-balance]").inner_text()
    assert_accessible(page, "office costs screen")
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, "supervisor-costs", sizes=("tablet",))


def test_unpaid_costs_past_every_protest_window_open_the_lien_certificate(live_server, new_context, factory, client):
    (email, permit_id, order_id, _number), sup, _app = _seed(factory, client, deadline_days_ago=80)
    today = clock.today()
    recovery = client.post("/api/v1/cost-recoveries", headers=sup, json={
        "order_id": order_id, "abatement_completed_on": (today - timedelta(days=70)).isoformat(),
        "items": [{"category": "labor", "description": "DPW crew", "amount": "720.00"}]}).get_json()
    owner = next(p for p in client.get(f"/api/v1/permits/{permit_id}", headers=sup).get_json()["parties"] if p["role"] == "owner")
    patched = client.patch(f"/api/v1/cost-recoveries/{recovery['id']}", headers=sup, json={
        "version": recovery["version"], "recipients": [{
            "party_id": owner["id"], "method": "certified_mail", "sent_on": (today - timedelta(days=65)).isoformat(),
            "received_on": (today - timedelta(days=62)).isoformat()}]})
    assert patched.status_code == 200, patched.get_json()
    assert patched.get_json()["status"] == "lien" and patched.get_json()["lien_certificates"] == []
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}/costs/{recovery['id']}'; }}")
    lien = page.locator("[data-test=lien]")
    lien.wait_for()
    assert "became a lien on the property" in lien.inner_text() and "$720.00" in lien.inner_text()
    # Opening the certificate produces it once and keeps it.
    page.locator("a.button[data-lien-certificate='current'][href^='blob:']").wait_for()
    kept = client.get(f"/api/v1/cost-recoveries/{recovery['id']}", headers=sup).get_json()["lien_certificates"]
    release_db()
    assert len(kept) == 1 and kept[0]["superseded"] is False and kept[0]["lien_amount"] == "720.00"
    page.reload()
    page.locator(f"[data-kept-certificate='{kept[0]['id']}'] .chip.good:has-text('Stands')").wait_for()
    kept_pdf = page.locator(f"[data-kept-certificate='{kept[0]['id']}'] a.button[target=_blank][href^='blob:']")
    kept_pdf.wait_for()
    # read in a tab of its own, or kept on the device under its own name, which the link says
    save = page.locator(f"[data-kept-certificate='{kept[0]['id']}'] a[data-save]")
    assert save.get_attribute("aria-label") == f"Save a copy of {save.get_attribute('download')}"
    assert_accessible(page, "office costs screen with a lien")
