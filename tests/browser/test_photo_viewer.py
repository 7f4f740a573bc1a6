"""The photo viewer and markup: an inspector offline opens the photos of an inspection full screen, reads
when and where each was taken and how far from the site, goes from one to the next by key and by swipe,
zooms, marks one up with an arrow, a circle, a freehand line and a label, and saves; the markup reaches
the server after its photo, the photo's bytes unchanged; a supervisor sees it from the review screen."""
from __future__ import annotations

import hashlib
import re

from inspect_api.photos.rules import haversine_m

from .api_seed import entry_authorization
from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import (
    assert_accessible,
    back_online_and_synced,
    offline_after_first_sync,
    outbox_items,
    poll,
    release_db,
    sign_in,
    undersized_controls,
    wait_synced,
)
from .seed import SITE, field_day

PARIS = (48.8566, 2.3522)
DEFICIENT = "perimeter_controls_maintained"
VIEWER = "dialog.viewer[open]"


def shot_at(data: bytes, when: str, offset: str) -> bytes:
    """The camera JPEG with the time of the shot (DateTimeOriginal and its offset), as a phone writes it."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data))
    exif = image.getexif()
    details = exif.get_ifd(0x8769)
    details[0x9003] = when
    details[0x9011] = offset
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85, exif=exif)
    return out.getvalue()


def answer_with_photos(page, photos: list[bytes]) -> None:
    keys = page.eval_on_selector_all("[data-item]", "els => els.map(e => e.dataset.item)")
    for key in keys:
        page.click(f"[data-item='{key}'] button[data-answer='{'deficient' if key == DEFICIENT else 'ok'}']")
    item = f"[data-item='{DEFICIENT}']"
    for n, data in enumerate(photos):
        page.set_input_files(f"{item} input[type=file]", files=[{"name": f"p{n}.jpg", "mimeType": "image/jpeg", "buffer": data}])
        page.locator(f"{item} figure.photo").nth(n).wait_for()


def image_box(page):
    return page.locator(f"{VIEWER} svg.viewer-image image").bounding_box()


def at(box, fx: float, fy: float) -> tuple[float, float]:
    return box["x"] + fx * box["width"], box["y"] + fy * box["height"]


def drag(page, start, end, steps: int = 8) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def showing(page, photo_id: str) -> None:
    page.locator(f"dialog.viewer[open][data-photo='{photo_id}'] [data-test=viewer-distance]").wait_for()
    poll(page, "() => { const i = document.querySelector('dialog.viewer svg.viewer-image image');"
               " return i && (i.getAttribute('href') || '').startsWith('blob:') && Number(i.getAttribute('width')) > 0; }")


def view_box(page) -> list[float]:
    return [float(v) for v in page.locator(f"{VIEWER} svg.viewer-image").get_attribute("viewBox").split()]


def open_thumbnail(page, scope: str, photo_id: str) -> None:
    page.locator(f"{scope} figure.photo[data-photo='{photo_id}'] button.photo-open").click()
    showing(page, photo_id)


def km_words(metres: float) -> str:
    return f"{int(metres / 1000 + 0.5):,} km"


def test_an_inspector_marks_up_a_photo_offline_and_the_office_sees_it(live_server, new_context, factory, client, screenshot):
    from inspect_api.auth.models import User
    from inspect_api.extensions import db

    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    headers = factory.headers(inspector)
    entry_authorization(client, headers, people.site_id)
    release_db()
    near = shot_at(camera_jpeg(SITE["lat"] + 0.0002, SITE["lon"] + 0.0003, seed=3), "2026:05:04 10:15:00", "-04:00")
    far = camera_jpeg(*PARIS, seed=4)

    page, network, errors = offline_after_first_sync(new_context(TABLET_LANDSCAPE), live_server.url, people.inspector_email)
    page.click(f"a.row[data-permit='{people.site_id}']")
    page.click("text=Start inspection")
    page.wait_for_selector("h1:has-text('Inspection')")
    answer_with_photos(page, [near, far])
    near_id, far_id = page.eval_on_selector_all(f"[data-item='{DEFICIENT}'] figure.photo", "els => els.map(e => e.dataset.photo)")
    inspection_id = page.evaluate("() => location.hash.split('/').pop()")

    # The viewer on the photo still on the device: the camera's time and place, read from its own bytes.
    opener = f"[data-item='{DEFICIENT}'] figure.photo[data-photo='{near_id}'] button.photo-open"
    page.click(opener)
    showing(page, near_id)
    viewer = page.locator(VIEWER)
    assert viewer.locator("#viewer-title").inner_text() == "Photo 1 of 2"
    assert viewer.locator("[data-test=viewer-time]").inner_text() == "May 4, 10:15 AM (camera clock)"
    assert viewer.locator("[data-test=viewer-place]").inner_text() == (
        f"{SITE['lat'] + 0.0002:.5f}, {SITE['lon'] + 0.0003:.5f} (camera GPS)")
    metres = haversine_m(SITE["lat"] + 0.0002, SITE["lon"] + 0.0003, SITE["lat"], SITE["lon"])
    assert viewer.locator("[data-test=viewer-distance]").inner_text() == f"{round(metres)} m"
    assert viewer.locator("[data-test=viewer-far]").count() == 0
    assert "not sent yet" in viewer.inner_text()

    # Next and previous by key; the far photo warns with its distance.
    page.keyboard.press("ArrowRight")
    showing(page, far_id)
    paris = haversine_m(*PARIS, SITE["lat"], SITE["lon"])
    assert viewer.locator("[data-test=viewer-far]").inner_text() == f"Taken {km_words(paris)} from the site"
    assert viewer.locator("[data-test=viewer-time]").inner_text().endswith("(device clock; the camera wrote no time)")
    page.keyboard.press("ArrowRight")  # the last photo: nothing after it
    assert viewer.get_attribute("data-photo") == far_id and viewer.locator("[data-viewer=next]").is_disabled()
    page.keyboard.press("ArrowLeft")
    showing(page, near_id)

    # ... and by swipe (a pointer dragged sideways across the photo).
    box = image_box(page)
    drag(page, at(box, 0.8, 0.5), at(box, 0.2, 0.52))
    showing(page, far_id)
    box = image_box(page)
    drag(page, at(box, 0.2, 0.5), at(box, 0.8, 0.5))
    showing(page, near_id)

    # Zoom by buttons, keys and double tap: the svg's viewBox narrows around the photo and comes back.
    assert view_box(page) == [0, 0, 1600, 1200]
    viewer.locator("[data-viewer=zoom-in]").click()
    assert [round(v) for v in view_box(page)[2:]] == [1067, 800]
    page.keyboard.press("+")
    assert viewer.locator("output.viewer-zoom").inner_text() == "225%"
    box = image_box(page)
    drag(page, at(box, 0.5, 0.5), at(box, 0.3, 0.3))  # zoomed in: a drag pans, it does not turn the photo
    assert viewer.get_attribute("data-photo") == near_id
    x, y, w, h = view_box(page)
    assert round(w) == 711 and x > (1600 - w) / 2 and y > (1200 - h) / 2
    page.keyboard.press("-")
    viewer.locator("[data-viewer=zoom-out]").click()
    assert view_box(page) == [0, 0, 1600, 1200] and viewer.locator("[data-viewer=zoom-out]").is_disabled()
    page.mouse.dblclick(*at(image_box(page), 0.25, 0.25))
    assert viewer.locator("output.viewer-zoom").inner_text() == "250%"
    x, y, w, h = view_box(page)  # the point tapped stays under the finger: (400, 300) at a quarter across
    assert abs(x - 240) < 5 and abs(y - 180) < 5 and round(w) == 640
    page.mouse.dblclick(*at(image_box(page), 0.5, 0.5))
    assert view_box(page) == [0, 0, 1600, 1200]

    # Markup: an arrow, a yellow circle, a freehand line and a label.
    viewer.locator("[data-viewer=mark-up]").click()
    tools = viewer.locator(".markup-tools")
    box = image_box(page)
    drag(page, at(box, 0.2, 0.2), at(box, 0.5, 0.5))
    tools.get_by_role("button", name="Circle", exact=True).click()
    tools.get_by_role("button", name="Yellow", exact=True).click()
    assert tools.get_by_role("button", name="Yellow", exact=True).get_attribute("aria-pressed") == "true"
    drag(page, at(box, 0.6, 0.3), at(box, 0.8, 0.6))
    tools.get_by_role("button", name="Freehand", exact=True).click()
    page.mouse.move(*at(box, 0.1, 0.7))
    page.mouse.down()
    for i in range(1, 40):
        page.mouse.move(*at(box, 0.1 + i * 0.01, 0.7 + (0.05 if i % 2 else 0)))
    page.mouse.up()
    tools.get_by_role("button", name="Text", exact=True).click()
    tools.get_by_label("Label text").fill("Silt fence down")
    page.mouse.click(*at(box, 0.3, 0.85))
    assert viewer.locator("svg g.marks-draft g.mark").count() == 4
    assert undersized_controls(page) == []  # the tools too: 44 px targets for gloved hands
    tools.get_by_role("button", name="Undo", exact=True).click()
    assert viewer.locator("svg g.marks-draft g.mark").count() == 3
    tools.get_by_label("Label text").fill("Silt fence down")
    page.mouse.click(*at(box, 0.3, 0.85))
    tools.get_by_role("button", name="Save markup", exact=True).click()
    viewer.locator(".markup-tools").wait_for(state="detached")
    kinds = viewer.locator("svg g.marks-own g.mark").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert kinds == ["arrow", "circle", "freehand", "text"]
    assert "By you: 1 arrow, 1 circle, 1 freehand line, label “Silt fence down”" in viewer.locator(".viewer-marks").inner_text()
    screenshot(page, "inspector-photo-markup", sizes=("tablet", "phone"))
    held = [i for i in outbox_items(page) if i.get("entity") == "photo_annotation"]
    assert len(held) == 1 and held[0]["data"]["photo_id"] == near_id and held[0]["state"] == "pending"

    # Esc closes; focus goes back to the thumbnail, which now says it is marked up.
    page.keyboard.press("Escape")
    page.locator("dialog.viewer").wait_for(state="detached")
    assert page.evaluate("() => document.activeElement.closest('figure.photo').dataset.photo") == near_id
    page.locator(f"figure.photo[data-photo='{near_id}'] [data-test=marked-up]").wait_for()

    page.get_by_role("button", name="Submit for review").click()
    page.wait_for_selector("h1:has-text('40 Center Street')")
    back_online_and_synced(page, network, timeout=60000)
    assert not errors, errors

    # On the server: the markup as drawn, in fractions of the image, by the inspector; the photo as taken.
    stored = client.get(f"/api/v1/photos/{near_id}/annotations", headers=headers)
    assert stored.status_code == 200, stored.get_json()
    [markup] = stored.get_json()
    assert markup["created_by"] == people.inspector_id and markup["drawn_by"]["name"] == "Ines Ortiz"
    shapes = markup["shapes"]
    assert [s["kind"] for s in shapes] == ["arrow", "circle", "freehand", "text"]
    assert all(0 <= v <= 1 for s in shapes for p in s["points"] for v in p)
    arrow, circle, line, label = shapes
    assert all(abs(a - b) < 0.02 for p, q in zip(arrow["points"], [[0.2, 0.2], [0.5, 0.5]]) for a, b in zip(p, q))
    assert arrow["colour"] == "#ff2a1a" and circle["colour"] == "#ffe600"
    assert all(abs(a - b) < 0.02 for p, q in zip(circle["points"], [[0.6, 0.3], [0.8, 0.6]]) for a, b in zip(p, q))
    assert 2 <= len(line["points"]) <= 40 and label["text"] == "Silt fence down" and len(label["points"]) == 1
    photo = client.get(f"/api/v1/photos/{near_id}", headers=headers).get_json()
    assert photo["sha256"] == hashlib.sha256(near).hexdigest()
    assert client.get(f"/api/v1/photos/{far_id}", headers=headers).get_json()["far_from_site"] is True
    release_db()

    # Reopened, the markup is drawn over the photo from what the server holds.
    page.goto(f"{live_server.url}/#/site/{people.site_id}/inspection/{inspection_id}")
    open_thumbnail(page, f"[data-item='{DEFICIENT}']", near_id)
    page.locator(f"{VIEWER} svg g.marks-own g.mark").nth(3).wait_for()
    assert page.locator(f"{VIEWER} svg g.marks-own ellipse").count() == 2  # the circle and its halo
    assert page.locator(f"{VIEWER} svg g.marks-own text").text_content() == "Silt fence down"

    # Edited again: the same record, sent as an edit of the version the server holds.
    page.locator(f"{VIEWER} [data-viewer=mark-up]:has-text('Edit my markup')").click()
    page.locator(f"{VIEWER} .markup-tools").get_by_role("button", name="Undo", exact=True).click()
    page.locator(f"{VIEWER} .markup-tools").get_by_role("button", name="Save markup", exact=True).click()
    page.locator(f"{VIEWER} .markup-tools").wait_for(state="detached")
    wait_synced(page)
    [edited] = client.get(f"/api/v1/photos/{near_id}/annotations", headers=headers).get_json()
    assert edited["id"] == markup["id"] and edited["version"] == markup["version"] + 1
    assert [s["kind"] for s in edited["shapes"]] == ["arrow", "circle", "freehand"]
    release_db()

    # The supervisor opens the same photo from the review screen: the inspector's markup, named, read-only.
    office = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(office, live_server.url, people.supervisor_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/review/{inspection_id}")
    open_thumbnail(office, "[data-photo-card]", near_id)
    board = office.locator(VIEWER)
    board.locator("svg g.marks-others g.mark").nth(2).wait_for()
    assert board.locator("svg g.marks-others g.mark").count() == 3  # as last edited
    assert board.locator("svg g.marks-own g.mark").count() == 0
    assert "By Ines Ortiz: 1 arrow, 1 circle" in board.locator(".viewer-marks").inner_text()
    assert re.match(r"^\d+ m, inside the limit of work$", board.locator("[data-test=viewer-distance]").inner_text())
    assert board.locator("[data-test=viewer-time]").inner_text() == "May 4, 10:15 AM (camera clock)"  # as on the device
    assert "marked up: 1 arrow" in board.locator("svg.viewer-image").get_attribute("aria-label")
    assert_accessible(office, "the photo viewer with markup")
    assert undersized_controls(office) == []
    screenshot(office, "supervisor-photo-viewer", sizes=("tablet", "phone"))
    office.keyboard.press("ArrowRight")
    showing(office, far_id)
    assert board.locator("[data-test=viewer-far]").inner_text().endswith("km from the site")
    office.keyboard.press("Escape")
    office.locator("dialog.viewer").wait_for(state="detached")
    office.locator(f"figure.photo[data-photo='{near_id}'] [data-test=marked-up]").wait_for()
