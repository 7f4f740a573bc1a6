"""An inspector's whole field day offline, then one sync; checked through the API afterwards."""
from __future__ import annotations

import hashlib

from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import Network, outbox_items, release_db, sign_in, wait_for_service_worker, wait_synced
from .seed import SITE, field_day


def draw_signature(page) -> None:
    page.locator("canvas.signature").scroll_into_view_if_needed()
    box = page.locator("canvas.signature").bounding_box()
    page.mouse.move(box["x"] + 30, box["y"] + box["height"] * 0.7)
    page.mouse.down()
    for i in range(1, 30):
        page.mouse.move(box["x"] + 30 + i * 14, box["y"] + box["height"] * (0.7 - 0.35 * ((i % 6) / 5)), steps=2)
    page.mouse.up()


def record_entry_authorization(page, site_id: str) -> None:
    page.click("text=Record entry authorization")
    page.get_by_label("Granted by (name)").fill("Pat Owner")
    draw_signature(page)
    page.get_by_role("button", name="Save authorization").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")
    page.wait_for_selector("text=Valid now")


def answer_checklist(page, deficient_key: str, photos: list[bytes], screenshot) -> None:
    keys = page.eval_on_selector_all("[data-item]", "els => els.map(e => e.dataset.item)")
    assert len(keys) >= 10, keys
    for key in keys:
        answer = "deficient" if key == deficient_key else ("n/a" if key.startswith("dewatering") else "ok")
        page.click(f"[data-item='{key}'] button[data-answer='{answer}']")
    item = f"[data-item='{deficient_key}']"
    page.fill(f"{item} input[type=text]", "Silt fence down along the east edge; sediment in the street.")
    for n, data in enumerate(photos):
        page.set_input_files(f"{item} input[type=file]", files=[{"name": f"east-{n}.jpg", "mimeType": "image/jpeg", "buffer": data}])
        page.locator(f"{item} figure.photo").nth(n).wait_for()
    assert page.locator(f"{item} [data-test=due]").inner_text().startswith("Due ")
    screenshot(page, "inspector-checklist", locator=f"{item} .answers")


def take_sample(page) -> None:
    page.click("text=Take a sample")
    page.wait_for_selector("h1:has-text('New sample')")
    page.get_by_label("Discharge point (outfall)").fill("OF-1")
    page.get_by_label("Reading").first.fill("72")
    page.wait_for_selector("[data-test=action-level]")
    page.click("text=Add reading")
    page.get_by_label("Reading").nth(1).fill("9.1")
    page.locator("[data-test=action-level]").nth(1).wait_for()


def check_sites_list(page, people) -> None:
    rows = page.locator("a.row")
    assert [rows.nth(i).get_attribute("data-permit") for i in range(rows.count())] == [
        people.site_id, people.other_site_id, people.far_site_id]  # assigned first, nearest first
    assert page.locator(f"a.row[data-permit='{people.other_site_id}'] .chip.bad").inner_text() == "Cease and desist"
    page.get_by_label("Search sites").fill("fort street")
    assert page.locator("a.row").count() == 1
    page.click(f"a.row[data-permit='{people.other_site_id}']")
    assert "Cease-and-desist order open" in page.inner_text("[data-test=cease-and-desist]")
    page.go_back()
    page.get_by_label("Search sites").fill("")


def test_field_day_offline_then_sync(live_server, new_context, factory, client, screenshot):
    people = field_day(factory)
    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.wait_for_selector(f"a.row[data-permit='{people.site_id}']")
    screenshot(page, "inspector-sites")
    check_sites_list(page, people)

    network = Network(context, live_server.url)
    network.offline()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    page.click(f"a.row[data-permit='{people.site_id}']")
    page.wait_for_selector("h1:has-text('40 Center Street')")

    # R-E2 on the device: no authorization yet, so the inspection may not start.
    page.click("text=Start inspection")
    assert "No site-entry authorization covers examination" in page.inner_text("[data-test=entry-problem]")
    record_entry_authorization(page, people.site_id)
    screenshot(page, "inspector-site")

    page.click("text=Start inspection")
    page.wait_for_selector("h1:has-text('Inspection')")
    photos = [camera_jpeg(SITE["lat"] + 0.0001, SITE["lon"] + 0.0002, seed=1), camera_jpeg(SITE["lat"], SITE["lon"] - 0.0003, seed=2)]
    answer_checklist(page, "perimeter_controls_maintained", photos, screenshot)
    page.get_by_label("Notes").fill("Rain overnight; east perimeter failed.")
    page.get_by_role("button", name="Submit for review").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")
    take_sample(page)
    screenshot(page, "inspector-sample", locator="[data-test=action-level]")
    page.get_by_role("button", name="Save sample").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")
    assert "waiting" in page.inner_text("[data-test=pending]")
    screenshot(page, "inspector-offline-pending", sizes=("tablet",))

    network.online()
    page.evaluate("window.dispatchEvent(new Event('online'))")
    try:
        wait_synced(page, timeout=30000)
    except Exception:
        raise AssertionError(outbox_items(page)) from None
    assert not page.locator("[data-test=sync-error]").count(), page.inner_text("#syncbar")
    assert not errors, errors

    headers = factory.headers(factory_user(people.inspector_email))
    check_server_records(client, headers, people, photos)
    release_db()


def factory_user(email):
    from inspect_api.auth.models import User
    from inspect_api.extensions import db
    return db.session.query(User).filter_by(email=email).one()


def check_server_records(client, headers, people, photos) -> None:
    site = people.site_id
    eas = client.get(f"/api/v1/entry-authorizations?permit_id={site}", headers=headers).get_json()
    assert len(eas) == 1 and eas[0]["granted_by_name"] == "Pat Owner" and eas[0]["signature_photo_id"]
    inspections = client.get(f"/api/v1/inspections?permit_id={site}", headers=headers).get_json()
    assert len(inspections) == 1
    inspection = inspections[0]
    assert inspection["status"] == "submitted" and inspection["entry_authorization_id"] == eas[0]["id"]
    deficient = [i for i in inspection["checklist"]["items"] if i["answer"] == "deficient"]
    assert [i["key"] for i in deficient] == ["perimeter_controls_maintained"] and len(deficient[0]["photo_ids"]) == 2
    assert [f["item_key"] for f in inspection["findings"]] == ["perimeter_controls_maintained"]
    assert inspection["findings"][0]["due_on"]
    samples = client.get(f"/api/v1/samples?permit_id={site}", headers=headers).get_json()
    assert len(samples) == 1
    assert {p["name"] for p in samples[0]["parameters"]} == {"turbidity", "ph"}
    assert {e["parameter"] for e in samples[0]["exceedances"]} >= {"ph"}
    listed = client.get(f"/api/v1/photos?permit_id={site}", headers=headers).get_json()
    assert len(listed) == 3  # two item photos and the signature, each exactly once
    by_id = {p["id"]: p for p in listed}
    assert by_id[eas[0]["signature_photo_id"]]["content_type"] == "image/png"
    digests = {hashlib.sha256(b).hexdigest() for b in photos}
    for photo_id in deficient[0]["photo_ids"]:
        photo = by_id[photo_id]
        assert photo["sha256"] in digests
        assert photo["parent_type"] == "inspection" and photo["parent_id"] == inspection["id"]
        assert photo["location"]["source"] == "exif" and photo["device_gps"]["accuracy_m"] == 6
        assert photo["within_site"] is True
