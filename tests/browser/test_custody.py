"""A sample's chain of custody on the tablet (R-S1): offline, an inspector records a lab sample with
its containers and preservatives, hands it over with a signature drawn on the screen and sees each
holding time counting down; online, the API holds the hand-over with its signature photo, the
custody form downloads as a PDF, and a sample past its holding time is flagged."""
from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

from .conftest import TABLET_LANDSCAPE
from .helpers import back_online_and_synced, offline_after_first_sync, release_db
from .seed import field_day


def draw_signature(page) -> None:
    canvas = page.locator("canvas.signature")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + 30, box["y"] + box["height"] * 0.7)
    page.mouse.down()
    for i in range(1, 25):
        page.mouse.move(box["x"] + 30 + i * 12, box["y"] + box["height"] * (0.7 - 0.35 * ((i % 5) / 4)), steps=2)
    page.mouse.up()


def seed(client, factory, people):
    """An authorization covering sampling for the last week, and a lab sample taken 51 hours ago whose
    turbidity has not been analysed: 3 hours past its 48 hours."""
    from inspect_api.auth.models import User
    from inspect_api.extensions import db
    inspector = db.session.query(User).filter_by(email=people.inspector_email).one()
    headers = factory.headers(inspector)
    now = datetime.now(timezone.utc)
    auth = client.post("/api/v1/entry-authorizations", headers=headers, json={
        "id": str(uuid.uuid4()), "permit_id": people.site_id, "basis": "permit_condition",
        "granted_by_name": "Permit condition 4", "granted_by_relation": "permit", "scope": ["examination", "sampling"],
        "valid_from": (now - timedelta(days=7)).isoformat(), "valid_to": (now + timedelta(days=30)).isoformat()})
    assert auth.status_code == 201, auth.get_json()
    old = client.post("/api/v1/samples", headers=headers, json={
        "id": str(uuid.uuid4()), "permit_id": people.site_id, "entry_authorization_id": auth.get_json()["id"],
        "sampled_at": (now - timedelta(hours=51)).isoformat(), "sampler": "Ines Ortiz", "sample_type": "grab",
        "analysis": "lab", "lab_name": "Bay Labs", "outfall_id": "OF-2",
        "parameters": [{"name": "turbidity", "value": None, "unit": "NTU", "container": "500 mL HDPE",
                        "preservative": "ice \u2264 6 \u00b0C"}]})
    assert old.status_code == 201, old.get_json()
    return headers, old.get_json()["id"]


def test_sample_custody_offline_then_the_form(live_server, new_context, factory, client):
    people = field_day(factory)
    headers, old_id = seed(client, factory, people)
    release_db()
    context = new_context(TABLET_LANDSCAPE, accept_downloads=True)
    page, network, errors = offline_after_first_sync(context, live_server.url, people.inspector_email)
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.wait_for_selector("h1:has-text('40 Center Street')")
    page.click("text=Take a sample")
    page.wait_for_selector("h1:has-text('New sample')")
    page.get_by_label("Analysis").select_option("lab")
    page.get_by_label("Lab name").fill("Bay Labs")
    page.get_by_label("Discharge point (outfall)").fill("OF-1")
    # Containers and preservatives come with each parameter; the inspector may write the lab's own.
    assert page.locator("[data-test=container]").input_value() == "500 mL HDPE"
    page.locator("[data-test=preservative]").fill("ice \u2264 6 \u00b0C (cooler 2)")
    page.click("text=Add reading")
    page.get_by_label("Parameter").nth(1).select_option("tss")
    assert page.locator("[data-test=container]").nth(1).input_value() == "1 L HDPE"
    # The holding times count down from the time sampled.
    turbidity = page.locator("[data-holding=turbidity]")
    assert re.fullmatch(r"Turbidity: Analyse by .+ — (47 h 59 min|48 h) left", turbidity.inner_text()), turbidity.inner_text()
    assert turbidity.get_attribute("data-status") == "running"
    assert "Total suspended solids: Analyse by" in page.inner_text("[data-holding=tss]")

    # A hand-over, signed on the tablet, recorded at once while offline.
    assert page.locator("[data-test=relinquished-by]").input_value() == "Ines Ortiz"
    page.locator("[data-test=received-by]").fill("Casey Courier")
    page.get_by_role("button", name="Record hand-over").click()
    assert "signs on the tablet" in page.inner_text("[data-test=custody]")
    draw_signature(page)
    page.get_by_role("button", name="Record hand-over").click()
    page.wait_for_selector("[data-test=hand-over-recorded]")
    assert "Ines Ortiz → Casey Courier" in page.inner_text("[data-test=transfers]")
    assert "(signed)" in page.inner_text("[data-test=transfers]")
    assert page.locator("[data-test=relinquished-by]").input_value() == "Casey Courier"
    assert "once the sample has reached the server" in page.inner_text("[data-test=custody-pdf-later]")
    page.get_by_role("button", name="Save sample").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")
    assert "waiting" in page.inner_text("[data-test=pending]")

    back_online_and_synced(page, network)

    samples = client.get(f"/api/v1/samples?permit_id={people.site_id}", headers=headers).get_json()
    new = [s for s in samples if s["id"] != old_id]
    assert len(new) == 1
    sample = new[0]
    assert sample["analysis"] == "lab" and sample["lab_name"] == "Bay Labs"
    assert [(p["name"], p["value"], p["container"], p["preservative"]) for p in sample["parameters"]] == [
        ("turbidity", None, "500 mL HDPE", "ice \u2264 6 \u00b0C (cooler 2)"),
        ("tss", None, "1 L HDPE", "ice \u2264 6 \u00b0C")]
    [transfer] = sample["chain_of_custody"]
    assert (transfer["from_name"], transfer["to_name"]) == ("Ines Ortiz", "Casey Courier")
    assert datetime.fromisoformat(transfer["at"]) >= datetime.fromisoformat(sample["sampled_at"]).replace(second=0)
    signature = client.get(f"/api/v1/photos/{transfer['signature_photo_id']}", headers=headers)
    assert signature.status_code == 200, signature.get_json()
    assert (signature.get_json()["parent_type"], signature.get_json()["parent_id"]) == ("sample", sample["id"])
    assert [h["status"] for h in sample["holding_time"]] == ["running", "running"]

    # Online, the custody form for the lab downloads as a PDF.
    page.goto(f"{live_server.url}/#/site/{people.site_id}/sample/{sample['id']}")
    page.locator("a[data-test=custody-pdf]:not([aria-disabled])").wait_for()
    save = page.locator("a[data-save^='custody-']:not([aria-disabled])")
    with page.expect_download() as download:
        save.click()
    with open(download.value.path(), "rb") as handle:
        assert handle.read(5) == b"%PDF-"
    assert re.fullmatch(r"custody-[A-Z]+-\d{4}-\d{4}-\d{4}-\d{2}-\d{2}\.pdf", download.value.suggested_filename), \
        download.value.suggested_filename

    # The sample taken 51 hours ago and not yet analysed is flagged.
    page.goto(f"{live_server.url}/#/site/{people.site_id}/sample/{old_id}")
    flag = page.locator("[data-holding=turbidity]")
    flag.wait_for()
    assert flag.get_attribute("data-status") == "exceeded"
    assert flag.inner_text() == "Turbidity: Holding time exceeded by 3 h"
    assert not errors, errors
    release_db()
