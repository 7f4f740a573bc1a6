"""A photo upload cut off mid-way resumes from the server's offset (tus HEAD), never sending the
bytes the server already holds, and the stored photo is byte-identical."""
from __future__ import annotations

import hashlib
import io
import os

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .conftest import TABLET_LANDSCAPE
from .helpers import outbox_items, release_db, sign_in, wait_for_service_worker, wait_synced


def big_jpeg() -> bytes:
    """Noise compresses badly: a 1600x1200 JPEG of it is a few megabytes, several upload chunks."""
    from PIL import Image
    image = Image.frombytes("RGB", (1600, 1200), os.urandom(1600 * 1200 * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=95)
    return out.getvalue()


def test_interrupted_upload_resumes_at_the_server_offset(live_server, new_context, factory, client):
    applicant = factory.user("applicant")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=8000)
    email, applicant_id, permit_id = applicant.email, applicant.id, permit.id
    release_db()
    data = big_jpeg()
    assert len(data) > 3 * 512 * 1024

    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)
    wait_synced(page)

    offsets: list[int] = []
    cut = {"done": False}

    def patches(route):
        request = route.request
        if request.method != "PATCH":
            return route.continue_()
        offset = int(request.headers["upload-offset"])
        offsets.append(offset)
        if offset > 0 and not cut["done"]:  # the connection drops during the second chunk
            cut["done"] = True
            return route.abort("connectionreset")
        return route.continue_()

    context.route(f"{live_server.url}/api/v1/uploads/**", patches)
    page.goto(f"{live_server.url}/#/permit/{permit_id}/completion")
    page.get_by_label("Statement").fill("Finished; the infiltration trench is covered and seeded.")
    page.set_input_files("input[type=file]", files=[{"name": "trench.jpg", "mimeType": "image/jpeg", "buffer": data}])
    page.locator("figure.photo").wait_for()
    page.get_by_role("button", name="Send completion notice").click()
    page.locator("[data-test=sync-error]").wait_for()
    assert "No connection" in page.inner_text("[data-test=sync-error]")
    left = outbox_items(page)
    assert [(i["kind"], bool(i.get("upload_url"))) for i in left] == [("photo", True)]

    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    chunk = 512 * 1024
    assert offsets[:2] == [0, chunk]
    assert offsets[2:] == list(range(chunk, len(data), chunk))  # resumed at the server's offset, nothing resent

    headers = factory.headers(db.session.get(User, applicant_id))
    photos = client.get(f"/api/v1/photos?permit_id={permit_id}", headers=headers).get_json()
    original = client.get(f"/api/v1/photos/{photos[0]['id']}/original", headers=headers)
    release_db()
    assert len(photos) == 1 and photos[0]["sha256"] == hashlib.sha256(data).hexdigest()
    assert original.data == data
