"""Hostile and broken photos with a report from the public: each is read by the same hardened decoder as
every upload, and refuses the whole report (422) leaving nothing behind: no report, no photo row, no
blob, no spooled file, no audit row, no message, no number used. Size limits hold for the form too; a
HEIC, PNG or WebP from a phone is taken; only supervisors ever read a photo."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from ..photos.helpers import encoded, jpeg, png_bomb, png_text_bomb
from .test_reports_support import (NOTHING, QUEUE, assert_error, config, form, phone_photo, post_form,  # noqa: F401
                                   report_of, stored, submit, town_clock)


def _heic() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 120, 40)).save(out, "HEIF")
    return out.getvalue()


HOSTILE = {
    "decompression bomb (pixel limit)": (png_bomb(), "mud.png", "image_invalid"),
    "text-chunk bomb": (png_text_bomb(), "mud.png", "image_invalid"),
    "truncated jpeg": (jpeg((640, 480))[:1500], "IMG_2041.JPG", "image_invalid"),
    "header only": (jpeg()[:20], "IMG_2042.JPG", "image_invalid"),
    "a pdf named .jpg": (b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n", "IMG_2043.jpg", "image_invalid"),
    "text named .jpg": (b"<?php system($_GET['c']); ?>", "IMG_2044.jpg", "image_invalid"),
    "empty file": (b"", "IMG_2045.jpg", "image_invalid"),
    "gif": (encoded("GIF"), "mud.gif", "image_invalid"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_photo_refuses_the_report_and_leaves_nothing(app, client, town_clock, name):
    data, filename, error = HOSTILE[name]
    r = post_form(client, form(email="ana@example.org"), [(phone_photo(), "IMG_2040.JPG"), (data, filename)])
    assert_error(r, 422, error)
    assert stored(app) == NOTHING
    # the refused report took no number: the next one is the year's first
    assert submit(client)["reference"].startswith("R-2026-0001-")


def test_the_pixel_limit_is_the_configured_one(app, client, town_clock):
    app.config["MAX_IMAGE_PIXELS"] = 96 * 72 - 1
    r = post_form(client, form(), [(phone_photo(size=(96, 72)), "IMG_1.JPG")])
    assert assert_error(r, 422, "image_invalid")["errors"] == {"pixels": [96 * 72 - 1]}
    assert stored(app) == NOTHING
    app.config["MAX_IMAGE_PIXELS"] = 96 * 72
    assert post_form(client, form(), [(phone_photo(size=(96, 72)), "IMG_1.JPG")]).status_code == 201


def test_a_photo_over_the_upload_limit_is_413_and_so_is_a_body_over_three_of_them(app, client, town_clock):
    photo = phone_photo()
    app.config["MAX_UPLOAD_BYTES"] = len(photo) - 1
    r = post_form(client, form(), [(photo, "IMG_1.JPG")])
    assert assert_error(r, 413, "payload_too_large")["errors"] == {"photos": [f"Over {len(photo) - 1} bytes."]}
    assert stored(app) == NOTHING
    app.config["MAX_UPLOAD_BYTES"] = 2000
    r = post_form(client, form(description="x" * 4000), [(b"\xff\xd8\xff" + b"0" * 80_000, "IMG_1.JPG")])
    payload = assert_error(r, 413, "payload_too_large")
    assert payload["errors"] == {"limit": [3 * 2000 + 64 * 1024]}
    assert stored(app) == NOTHING


@pytest.mark.parametrize("fmt, filename, kind", [("PNG", "a.png", "image/png"), ("WEBP", "a.webp", "image/webp"),
                                                 ("HEIF", "IMG_0001.HEIC", "image/heic")])
def test_png_webp_and_heic_from_a_phone_are_taken_by_their_bytes(app, client, factory, town_clock, fmt, filename,
                                                                   kind):
    data = _heic() if fmt == "HEIF" else encoded(fmt)
    r = post_form(client, form(), [(data, filename)])
    assert r.status_code == 201, r.get_json()
    report = report_of(r.get_json()["reference"])
    _, headers = factory.as_role("supervisor")
    [photo] = client.get(f"{QUEUE}/{report.id}", headers=headers).get_json()["photos"]
    assert (photo["content_type"], photo["width"], photo["height"], photo["exif_location"]) == (kind, 64, 48, None)
    assert client.get(photo["display_url"], headers=headers).mimetype == "image/jpeg"


@pytest.mark.parametrize("role", ["applicant", "inspector", "admin"])
def test_only_supervisors_read_a_reports_photos(app, client, factory, town_clock, role):
    r = post_form(client, form(), [(phone_photo(), "IMG_1.JPG")])
    report = report_of(r.get_json()["reference"])
    _, supervisor = factory.as_role("supervisor")
    [photo] = client.get(f"{QUEUE}/{report.id}", headers=supervisor).get_json()["photos"]
    _, headers = factory.as_role(role)
    for size in ("url", "display_url", "small_url"):
        assert_error(client.get(photo[size], headers=headers), 403, "forbidden")
        assert_error(client.get(photo[size]), 401, "unauthorized")
        shown = client.get(photo[size], headers=supervisor)
        assert shown.status_code == 200 and shown.headers["Cache-Control"] == "private, no-cache"
    # another report's id with this photo's id reads nothing
    other = report_of(submit(client)["reference"])
    assert_error(client.get(f"{QUEUE}/{other.id}/photos/{photo['id']}", headers=supervisor), 404, "not_found")
    assert_error(client.get(f"{QUEUE}/{report.id}/photos/{photo['id']}", query_string={"size": "huge"},
                            headers=supervisor), 422, "validation_error", "size")


class _Probe(io.BytesIO):
    """A request body that notes, at each read, how many SQL statements the app had run by then."""

    def __init__(self, data: bytes, statements: list) -> None:
        super().__init__(data)
        self.statements, self.seen = statements, []

    def read(self, size=-1):
        self.seen.append(len(self.statements))
        return super().read(size)

    def readinto(self, buffer):
        self.seen.append(len(self.statements))
        return super().readinto(buffer)


def test_the_body_is_read_before_any_sql_runs(app, client, town_clock):
    from werkzeug.test import EnvironBuilder

    from ..sql_count import counting
    builder = EnvironBuilder(method="POST", data={**form(email="ana@example.org"),
                                                  "photos": [(io.BytesIO(phone_photo()), "IMG_1.JPG")]})
    environ = builder.get_environ()
    payload, content_type = environ["wsgi.input"].read(), environ["CONTENT_TYPE"]
    with counting() as statements:
        probe = _Probe(payload, statements)
        r = client.post("/api/v1/public/reports", input_stream=probe, content_type=content_type,
                        content_length=len(payload), environ_base={"REMOTE_ADDR": "192.0.2.201"})
    assert r.status_code == 201, r.get_json()
    assert len(probe.seen) >= 2 and set(probe.seen) == {0}  # every read, to the last (empty) one, before any SQL
    assert len(statements) > 0  # and then the report was written
