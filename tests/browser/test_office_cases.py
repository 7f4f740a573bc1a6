"""The supervisor's enforcement screens (R-A7, R-D1, R-O0): linking applications as one project and
confirming one separate, the security required before the start with the refusal it causes, the parties of
a permit (added, edited, linked to the applicant's account) and an enforcement case for a site with no
application. Each checked on screen and, through the API, in what was stored."""
from __future__ import annotations

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .conftest import PHONE, TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sideways_scroll, sign_in, wait_synced

PARCEL = "22-104"


def _site(n: int, parcel: str = PARCEL) -> dict:
    return {"address": f"{n} Shaw Road, Fairhaven, MA 02719", "parcel_id": parcel,
            "location": {"lat": 41.655 + n / 10000, "lon": -70.87}}


def test_one_project_separate_and_security_before_the_start(live_server, new_context, factory, client, screenshot):
    applicant, app_h = factory.as_role("applicant", name="Alex Builder")
    supervisor, sup = factory.as_role("supervisor", name="Sam Reyes")
    # Phases 1 and 2 of one subdivision: 4,000 sq ft each, each below the bylaw's threshold alone (R-A7).
    phase1 = factory.permit(applicant, status="under_review", disturbed_area_sqft=4000, site=_site(10))
    phase2 = factory.permit(applicant, status="submitted", disturbed_area_sqft=4000, site=_site(12))
    garage = factory.permit(applicant, status="submitted", disturbed_area_sqft=1500, site=_site(14),
                            proposed_use="Detached garage")
    approved = factory.permit(applicant, status="approved", disturbed_area_sqft=9000, site=_site(30, "22-200"))
    ids = {k: p.id for k, p in (("p1", phase1), ("p2", phase2), ("garage", garage), ("approved", approved))}
    assert phase1.review_level == phase2.review_level == "not_covered"
    sup_email, app_email = supervisor.email, applicant.email
    release_db()

    office = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(office, live_server.url, sup_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/applications")
    row = office.locator(f"[data-application='{ids['p1']}']")
    row.wait_for()
    assert "Parcel shared with another application" in row.inner_text()
    office.goto(f"{live_server.url}/#/application/{ids['p1']}")
    flag = office.locator("[data-test=parcel-flag]")
    flag.wait_for()
    assert f"parcel {PARCEL}" in flag.inner_text()
    assert "12 Shaw Road" in flag.inner_text() and "14 Shaw Road" in flag.inner_text()
    assert_accessible(office, "application with a parcel flag")
    screenshot(office, "supervisor-parcel-flag", sizes=("phone", "tablet"), locator="[data-test=project]")
    office.locator(f"[data-test=project] [data-other='{ids['p2']}']").get_by_role("button", name="Link as one project").click()
    confirm(office, "one project")
    office.locator("[data-test=project-total]:has-text('8,000 sq ft')").wait_for()
    assert "Administrative land disturbance review" in office.inner_text("section.determination")
    stored = {k: client.get(f"/api/v1/permits/{ids[k]}", headers=sup).get_json() for k in ("p1", "p2", "garage")}
    release_db()
    assert stored["p1"]["project_id"] and stored["p1"]["project_id"] == stored["p2"]["project_id"]
    assert stored["p1"]["review_level"] == stored["p2"]["review_level"] == "administrative_review"
    assert stored["garage"]["project_id"] is None and set(stored["garage"]["parcel_flag"]) == {ids["p1"], ids["p2"]}

    # The garage is its own project: confirmed separate, its flag clears and its level stays its own.
    office.goto(f"{live_server.url}/#/application/{ids['garage']}")
    office.locator("[data-test=parcel-flag]").wait_for()
    office.get_by_role("button", name="Confirm a separate project").click()
    office.locator("[data-test=project]:has-text('Not linked to another application.')").wait_for()
    assert office.locator("[data-test=parcel-flag]").count() == 0
    garage_now = client.get(f"/api/v1/permits/{ids['garage']}", headers=sup).get_json()
    release_db()
    assert garage_now["parcel_flag"] == [] and garage_now["project_id"] is None and garage_now["review_level"] == "not_covered"

    # Security before the start (R-D1): set on the application, shown on the site with the refusal in words.
    office.goto(f"{live_server.url}/#/application/{ids['approved']}")
    card = office.locator("[data-test=security]")
    card.get_by_label("Security required (US dollars)").fill("30,000")
    card.get_by_role("button", name="Require this security").click()
    office.locator("[data-test=security] [data-test=security-text]:has-text('Security required: $30,000.00, posted $0.00')").wait_for()
    assert "Work may not start" in card.inner_text() and "must be posted before land disturbance starts" in card.inner_text()
    stored = client.get(f"/api/v1/permits/{ids['approved']}", headers=sup).get_json()
    release_db()
    assert stored["security_required_amount"] == "30000.00" and stored["security_posted"] == "0.00"
    assert stored["commencement_blocked"]["error"] == "security_required"
    screenshot(office, "supervisor-security-required", sizes=("phone", "tablet"), locator="[data-test=security]")
    office.goto(f"{live_server.url}/#/site/{ids['approved']}")
    office.locator("[data-test=security-text]:has-text('Required: $30,000.00, posted $0.00')").wait_for()
    blocked = office.inner_text("[data-test=commencement-blocked]")
    assert "Work may not start yet." in blocked and "Security of $30,000.00 must be posted" in blocked
    assert "(R-D1)" not in blocked and "$0.00 is held" in blocked

    # The applicant is not offered "Work has started", and the API refuses it the same way.
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, app_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{ids['approved']}")
    page.locator("[data-test=commencement-blocked]:has-text('$30,000.00')").wait_for()
    assert page.get_by_role("button", name="Work has started").count() == 0
    r = client.post(f"/api/v1/permits/{ids['approved']}/transitions", json={"to": "active"}, headers=app_h)
    release_db()
    assert r.status_code == 409 and r.get_json()["error"] == "security_required"


def test_parties_and_an_enforcement_case_without_an_application(live_server, new_context, factory, client, screenshot):
    applicant, _ = factory.as_role("applicant", name="Alex Builder")
    supervisor, sup = factory.as_role("supervisor", name="Sam Reyes")
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=9000, site=_site(40, "22-300"),
                            owner={"name": "Ana Souza", "email": "ana@example.org"})
    permit_id, applicant_id, sup_email = permit.id, applicant.id, supervisor.email
    release_db()
    office = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(office, live_server.url, sup_email)
    wait_synced(office)

    # A site with no application: the case names the owner and the violator (R-O0).
    office.goto(f"{live_server.url}/#/sites")
    office.get_by_role("link", name="Open an enforcement case").click()
    form = office.locator("[data-test=new-case]")
    form.get_by_role("button", name="Open the case").click()
    assert "Name the violator" in form.inner_text() and "Give the site's address." in form.inner_text()
    form.get_by_label("Site address").fill("90 Sconticut Neck Road, Fairhaven, MA 02719")
    form.get_by_label("Parcel").fill("43-017")
    form.get_by_label("Latitude").fill("41.6102")
    form.get_by_label("Longitude").fill("-70.8841")
    form.get_by_label("Land disturbed (sq ft, estimated)").fill("12,500")
    form.get_by_label("Drains to the Town's storm drains (MS4)").check()
    form.get_by_label("What was seen").fill("Lot cleared and graded to the marsh edge; no controls.")
    owner = form.locator("[data-test=case-owner]")
    owner.get_by_label("Name").fill("Pat Marsh")
    owner.get_by_label("Mailing address").fill("1 Harbor View, Fairhaven, MA 02719")
    violator = form.locator("[data-test=case-violator]")
    violator.get_by_label("Name").fill("Lee Clearing Co.")
    violator.get_by_label("Mailing address").fill("55 Route 6, Mattapoisett, MA 02739")
    violator.get_by_label("E-mail").fill("office@leeclearing.example")
    assert sideways_scroll(office) == []
    assert_accessible(office, "new enforcement case")
    screenshot(office, "supervisor-new-case", sizes=("phone", "tablet"))
    form.get_by_role("button", name="Open the case").click()
    confirm(office, "naming Pat Marsh as owner and Lee Clearing Co. as violator")
    office.locator("[data-test=status]:has-text('Enforcement case: no application')").wait_for()
    parties = office.inner_text("[data-test=parties]")
    assert "Pat Marsh" in parties and "Lee Clearing Co." in parties and "55 Route 6" in parties
    case_id = office.url.rsplit("/", 1)[-1]
    case = client.get(f"/api/v1/permits/{case_id}", headers=sup).get_json()
    release_db()
    assert case["status"] == "unpermitted" and case["applicant_id"] is None and case["number"].startswith("ENF-")
    assert case["site"]["parcel_id"] == "43-017" and case["disturbed_area_sqft"] == 12500
    assert sorted((p["role"], p["name"], p["mailing_address"]) for p in case["parties"]) == [
        ("owner", "Pat Marsh", "1 Harbor View, Fairhaven, MA 02719"),
        ("violator", "Lee Clearing Co.", "55 Route 6, Mattapoisett, MA 02739")]

    # Parties: add a contractor, correct the violator's address.
    office.get_by_role("link", name="Parties").click()
    add = office.locator("[data-test=party-add]")
    add.get_by_label("Role").select_option("contractor")
    add.get_by_label("Name").fill("Nguyễn Văn Đức")
    add.get_by_label("E-mail").fill("duc@example.org")
    add.get_by_role("button", name="Add party").click()
    office.locator("[data-party]:has-text('Nguyễn Văn Đức')").wait_for()
    row = office.locator("[data-party]:has-text('Lee Clearing Co.')")
    row.locator("summary").click()
    row.get_by_label("Mailing address").fill("PO Box 12, Mattapoisett, MA 02739")
    row.get_by_role("button", name="Save party").click()
    office.locator("[data-party]:has-text('PO Box 12, Mattapoisett')").wait_for()
    assert_accessible(office, "parties")
    screenshot(office, "supervisor-parties", sizes=("phone", "tablet"))
    stored = client.get(f"/api/v1/permits/{case_id}/parties", headers=sup).get_json()
    release_db()
    by_name = {p["name"]: p for p in stored}
    assert by_name["Nguyễn Văn Đức"]["role"] == "contractor" and by_name["Nguyễn Văn Đức"]["email"] == "duc@example.org"
    assert by_name["Lee Clearing Co."]["mailing_address"] == "PO Box 12, Mattapoisett, MA 02739"
    assert by_name["Lee Clearing Co."]["version"] == 2

    # On an application, the owner party is linked to the applicant's account.
    office.goto(f"{live_server.url}/#/site/{permit_id}/parties")
    owner_row = office.locator("[data-party]:has-text('Ana Souza')")
    owner_row.locator("summary").click()
    owner_row.get_by_label("Linked to the account of this application's applicant").check()
    owner_row.get_by_role("button", name="Save party").click()
    office.locator("[data-party]:has-text('Ana Souza') :text('Linked to an applicant account')").wait_for()
    parties = client.get(f"/api/v1/permits/{permit_id}/parties", headers=sup).get_json()
    release_db()
    assert next(p for p in parties if p["name"] == "Ana Souza")["user_id"] == applicant_id
    assert db.session.get(User, applicant_id).role == "applicant"
    release_db()
