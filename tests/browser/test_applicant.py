"""An applicant on a phone: my permits with what is due, a new application whose determination
follows the area and flags as they are typed, and a completion notice with photos."""
from __future__ import annotations

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .conftest import PHONE, camera_jpeg
from .helpers import release_db, sign_in, wait_for_service_worker, wait_synced


def seed(factory):
    applicant = factory.user("applicant", name="Alex Builder")
    active = factory.permit(applicant, status="active", disturbed_area_sqft=9000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "parcel_id": "18-033",
                                  "location": {"lat": 41.6402, "lon": -70.8998}},
                            proposed_use="Single-family dwelling with driveway")
    factory.permit(applicant, status="draft", disturbed_area_sqft=26000,
                   site={"address": "88 Alden Road, Fairhaven, MA 02719", "location": {"lat": 41.6511, "lon": -70.8790}},
                   proposed_use="Retail building and parking")
    ids = (applicant.id, applicant.email, active.id)
    db.session.commit()
    db.session.close()
    return ids


def level_text(page) -> str:
    return page.inner_text("[data-test=level]")


def test_applicant_permits_application_and_completion(live_server, new_context, factory, client, screenshot):
    applicant_id, email, active_id = seed(factory)
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.locator(f"a.row[data-permit='{active_id}']").wait_for()
    assert "completion notice" in page.locator("li", has=page.locator(f"a.row[data-permit='{active_id}']")).inner_text()
    screenshot(page, "applicant-permits")

    # New application: the determination follows the inputs as they are typed (R-A1..R-A4).
    page.click("text=New application")
    page.get_by_label("Land disturbed (sq ft)").fill("4999")
    assert level_text(page) == "Not covered by the bylaw"
    page.get_by_label("Land disturbed (sq ft)").fill("20000")
    assert level_text(page) == "Administrative land disturbance review"
    page.locator("[data-test=determination-source]:has-text('Confirmed by the Town')").wait_for()
    page.get_by_label("Land disturbed (sq ft)").fill("20001")
    assert level_text(page) == "Land disturbance permit"
    page.get_by_label("Land disturbed (sq ft)").fill("12000")
    page.get_by_label("Higher-pollutant land use (LUHPPL)").select_option("marina")
    assert level_text(page) == "Land disturbance permit"
    page.get_by_label("Higher-pollutant land use (LUHPPL)").select_option("")
    page.get_by_label("Drains to the Town's storm drains (MS4)").uncheck()
    assert level_text(page) == "Not covered by the bylaw"
    page.get_by_label("Drains to the Town's storm drains (MS4)").check()
    page.get_by_label("Address").fill("15 Washington Street, Fairhaven, MA 02719")
    page.get_by_label("Owner's name").fill("Jordan Silva")
    page.get_by_label("Proposed use").fill("Two-family dwelling")
    page.locator("[data-test=determination-source]:has-text('Confirmed by the Town')").wait_for()
    screenshot(page, "applicant-application", locator="[data-test=level]")
    page.get_by_role("button", name="Save application").click()
    page.locator("h1:has-text('15 Washington Street')").wait_for()
    wait_synced(page)

    # Completion notice with two photos (R-F1).
    page.goto(f"{live_server.url}/#/permit/{active_id}")
    page.click("text=Send completion notice")
    page.get_by_label("Statement").fill("All work is complete and matches the approved plan; the swale and rain garden are planted.")
    for n in range(2):
        page.set_input_files("input[type=file]", files=[{"name": f"done-{n}.jpg", "mimeType": "image/jpeg",
                                                         "buffer": camera_jpeg(41.6402, -70.8998, seed=5 + n)}])
        page.locator("figure.photo").nth(n).wait_for()
    screenshot(page, "applicant-completion", locator="figure.photo")
    page.get_by_role("button", name="Send completion notice").click()
    page.locator("h1:has-text('7 Oxford Street')").wait_for()
    wait_synced(page)
    screenshot(page, "applicant-permit")

    headers = factory.headers(db.session.get(User, applicant_id))
    permits = client.get("/api/v1/permits?q=Washington", headers=headers).get_json()
    notices = client.get(f"/api/v1/completion-notices?permit_id={active_id}", headers=headers).get_json()
    photos = client.get(f"/api/v1/photos?permit_id={active_id}", headers=headers).get_json()
    release_db()
    permits = permits if isinstance(permits, list) else permits["items"]
    assert [(p["status"], p["review_level"]) for p in permits] == [("draft", "administrative_review")]
    notices = notices if isinstance(notices, list) else notices["items"]
    assert len(notices) == 1 and len(notices[0]["photo_ids"]) == 2
    assert sorted(p["id"] for p in photos) == sorted(notices[0]["photo_ids"])
    assert all(p["parent_type"] == "completion_notice" and p["location"] for p in photos)
    assert {p["status"] for p in notices[0]["photos"]} == {"uploaded"}
