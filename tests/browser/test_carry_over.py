"""Starting an inspection from the last one (R-I3), offline: the last submitted inspection's answers and
notes are filled in and marked "carried over" until the inspector confirms or changes each; a submission
with any still carried over is refused naming the items; its photos are shown beside the item; the
device's recent weather, samplers and labs are offered as choices. Checked through the API afterwards."""
from __future__ import annotations

from .api_seed import inspected_field_day, sample
from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import (assert_accessible, back_online_and_synced, confirm, offline_after_first_sync, release_db,
                      sideways_scroll, small_text, undersized_controls)
from .seed import SITE

DEFICIENT = "perimeter_controls_installed"  # deficient on the last inspection (api_seed.submitted_inspection)
CHANGED = "check_dams"


def item(key: str) -> str:
    return f"[data-item='{key}']"


def phone_problems(page) -> list[str]:
    """At 320 px: no control under 44 px, no text too small, nothing scrolling sideways."""
    page.set_viewport_size({"width": 320, "height": 700})
    try:
        return undersized_controls(page) + small_text(page) + sideways_scroll(page)
    finally:
        page.set_viewport_size(TABLET_LANDSCAPE)


def test_start_from_the_last_inspection_offline(live_server, new_context, factory, client):
    people, headers, last = inspected_field_day(factory, client, [camera_jpeg(SITE["lat"], SITE["lon"], seed=7)])
    last_photo = last["checklist"]["items"][1]["photo_ids"][0]
    sample(client, headers, people.site_id, last["entry_authorization_id"], sampler="Jo Courier", analysis="lab",
           lab_name="Alpha Analytical")
    release_db()
    page, network, errors = offline_after_first_sync(new_context(TABLET_LANDSCAPE), live_server.url, people.inspector_email)
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    start = page.locator("[data-test=start-from-last]")
    start.wait_for()
    assert start.inner_text().startswith("Start from the last inspection (Routine, ")
    page.get_by_role("button", name="Start inspection").wait_for()  # a blank start stays on offer beside it
    assert phone_problems(page) == []
    start.click()
    page.wait_for_url("**/inspection/**")
    page.locator("[data-test=carried-from]").wait_for()
    new_id = page.url.rsplit("/", 1)[-1]
    assert new_id != last["id"]

    # every answer and note is filled in as it was, and marked
    keys = page.eval_on_selector_all("[data-item]", "els => els.map(e => e.dataset.item)")
    assert len(keys) == len(last["checklist"]["items"]) and page.locator("[data-test=carried]").count() == len(keys)
    for answer in last["checklist"]["items"]:
        pressed = page.locator(f"{item(answer['key'])} button[aria-pressed=true]")
        assert pressed.get_attribute("data-answer") == answer["answer"], answer["key"]
    assert page.input_value(f"{item(DEFICIENT)} input[type=text]") == "Wattle crushed by the excavator at the north corner."
    assert page.input_value(f"{item(DEFICIENT)} select") == "high"
    assert page.inner_text("[data-test=carried-count]") == f"{len(keys)} carried over"
    # the last inspection's photo beside the item, labelled with its date, not part of this inspection
    earlier = page.locator(f"{item(DEFICIENT)} [data-test=earlier-photos]")
    assert "Photos from the inspection of " in earlier.inner_text()
    assert earlier.locator(f"figure.photo[data-photo='{last_photo}']").count() == 1
    assert page.locator(f"{item(DEFICIENT)} .photos figure").count() == 1  # none carried into this inspection

    # the recent weather is one tap away
    page.locator("[data-test=recent-weather] button", has_text="Overcast, 58 °F, 0.4 in rain").click()
    assert page.get_by_label("Weather").input_value() == "overcast"
    assert page.get_by_label("Temperature (°F)").input_value() == "58"
    assert page.get_by_label("Rain in last 24 h (in)").input_value() == "0.4"
    assert_accessible(page, "inspection started from the last one")
    assert phone_problems(page) == []

    # refused while anything is still carried over, naming the items
    page.get_by_role("button", name="Submit for review").click()
    problem = page.locator("[data-test=carried-problem]")
    problem.wait_for()
    assert "1. Limit of work marked" in problem.inner_text() and "2. Perimeter controls installed" in problem.inner_text()
    assert new_id in page.url

    # confirm some, change one
    page.get_by_role("button", name="Still so: Limit of work marked").click()
    page.get_by_role("button", name="Still so: Perimeter controls maintained").click()
    page.click(f"{item(CHANGED)} button[data-answer=deficient]")
    page.fill(f"{item(CHANGED)} input[type=text]", "Check dam washed out below the swale.")
    assert page.locator(f"{item(CHANGED)} [data-test=carried]").count() == 0
    assert page.locator(f"{item('limit_of_work_marked')} [data-test=carried]").count() == 0
    assert page.inner_text("[data-test=carried-count]") == f"{len(keys) - 3} carried over"
    page.get_by_role("button", name="Submit for review").click()
    page.locator("[data-test=carried-problem]").wait_for()
    text = page.inner_text("[data-test=carried-problem]")
    assert "Limit of work marked" not in text and "Check dams" not in text and "Perimeter controls installed" in text

    # the rest unchanged, after every item was on the screen; the deficient one stays deficient
    page.get_by_role("button", name="Confirm all unchanged").click()
    confirm(page, "One of them is deficient and stays so")
    assert page.locator("[data-test=carried]").count() == 0
    assert page.locator(f"{item(DEFICIENT)} button[aria-pressed=true]").get_attribute("data-answer") == "deficient"
    page.get_by_role("button", name="Submit for review").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")

    # recent samplers and labs on the sample screen
    page.get_by_role("button", name="Take a sample").click()
    page.wait_for_selector("h1:has-text('New sample')")
    assert page.get_by_label("Sampler").get_attribute("list") == "recent-samplers"
    assert page.eval_on_selector_all("#recent-samplers option", "os => os.map(o => o.value)") == ["Jo Courier"]
    assert page.get_by_label("Lab name").get_attribute("list") == "recent-labs"
    assert page.eval_on_selector_all("#recent-labs option", "os => os.map(o => o.value)") == ["Alpha Analytical"]
    page.get_by_role("link", name="Cancel").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")

    back_online_and_synced(page, network)

    body = client.get(f"/api/v1/inspections/{new_id}", headers=headers).get_json()
    assert body["status"] == "submitted" and body["checklist"]["carried_from_id"] == last["id"]
    assert body["weather"] == {"conditions": "overcast", "temperature_f": 58.0, "rainfall_in_24h": 0.4}
    answers = {a["key"]: a for a in body["checklist"]["items"]}
    assert {a["carried_over"] for a in answers.values()} == {False}
    assert answers[CHANGED]["answer"] == "deficient" and answers[CHANGED]["note"] == "Check dam washed out below the swale."
    assert answers[DEFICIENT]["answer"] == "deficient" and answers[DEFICIENT]["severity"] == "high"
    assert answers[DEFICIENT]["note"] == "Wattle crushed by the excavator at the north corner."
    assert answers[DEFICIENT]["photo_ids"] == []  # the old photo stays with the old inspection
    before = {a["key"]: a["answer"] for a in last["checklist"]["items"]}
    assert {k: a["answer"] for k, a in answers.items() if k != CHANGED} == {k: v for k, v in before.items() if k != CHANGED}
    findings = {f["item_key"]: f for f in body["findings"]}
    assert set(findings) == {DEFICIENT, CHANGED}
    assert findings[CHANGED]["description"] == "Check dams: deficient. Check dam washed out below the swale."
    assert findings[DEFICIENT]["severity"] == "high"
    release_db()

    # online, the last inspection's photo beside the item loads
    page.goto(f"{live_server.url}/#/site/{people.site_id}/inspection/{new_id}")
    photo = page.locator(f"{item(DEFICIENT)} [data-test=earlier-photos] figure.photo[data-photo='{last_photo}']")
    photo.locator("p:has-text('Uploaded')").wait_for()
    assert page.evaluate(f"() => document.querySelector(\"figure.photo[data-photo='{last_photo}'] img\").naturalWidth") > 0
    assert not errors, errors

