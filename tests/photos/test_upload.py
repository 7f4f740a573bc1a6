"""PUT /photos/{id}: streamed, verified, idempotent uploads and their metadata."""
from __future__ import annotations

import io
import uuid

import pytest
from PIL import Image
from sqlalchemy import func, select

from inspect_api.audit import AuditEntry
from inspect_api.changes import SyncChange
from inspect_api.extensions import db
from inspect_api.photos.models import Photo

from .helpers import encoded, gps_block, jpeg, make_exif, put_photo, sha

SITE = (41.6376, -70.9036)  # factory permits' site point


def photo_count() -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(Photo))


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


@pytest.fixture
def permit(factory, applicant):
    return factory.permit(applicant=applicant[0])


def test_first_upload_is_201_with_the_full_body(client, applicant, permit, stored):
    exif = make_exif(gps=gps_block(41.6380, -70.9040, alt=12.5, alt_ref=b"\x00"), make="Apple", model="iPad Air",
                     taken="2026:05:04 10:03:00", offset="-04:00")
    data = jpeg((64, 48), exif=exif)
    photo_id = str(uuid.uuid4())
    captured = "2026-05-04T14:03:05Z"
    r = put_photo(client, applicant[1], permit.id, data, photo_id=photo_id, parent_type="completion_notice",
                  parent_id=str(uuid.uuid4()), captured_at=captured, device_lat=41.6377, device_lon=-70.9037,
                  device_accuracy_m=8)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["id"] == photo_id and body["sha256"] == sha(data) and body["bytes"] == len(data)
    assert body["content_type"] == "image/jpeg" and (body["width"], body["height"]) == (64, 48)
    assert body["taken_at"] == "2026-05-04T10:03:00-04:00"
    assert body["captured_at"] == captured
    assert body["camera_make"] == "Apple" and body["camera_model"] == "iPad Air" and body["orientation"] == 1
    assert body["exif_gps"] == {"lat": pytest.approx(41.638, abs=1e-6), "lon": pytest.approx(-70.904, abs=1e-6),
                                "alt": 12.5}
    assert body["device_gps"] == {"lat": 41.6377, "lon": -70.9037, "accuracy_m": 8.0}
    assert body["location"] == {"lat": body["exif_gps"]["lat"], "lon": body["exif_gps"]["lon"], "source": "exif"}
    # 0.0004 deg of latitude (44.5 m) and of longitude at 41.6 N (33.3 m)
    assert body["distance_to_site_m"] == pytest.approx(55.5, abs=0.3)
    assert body["within_site"] is None and body["far_from_site"] is False
    assert body["url"] == f"/api/v1/photos/{photo_id}/original"
    assert body["thumbnail_url"] == f"/api/v1/photos/{photo_id}/thumbnail"
    assert body["permit_id"] == permit.id and body["parent_type"] == "completion_notice"
    assert body["uploaded_by"] == {"id": applicant[0].id, "name": applicant[0].name}
    assert len(stored()) == 3  # original + two thumbnails


def test_metadata_may_come_as_headers(client, applicant, permit):
    data = jpeg()
    r = put_photo(client, applicant[1], permit.id, data, via_headers=True, device_lat=41.7, device_lon=-70.9)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["device_gps"] == {"lat": 41.7, "lon": -70.9, "accuracy_m": None}
    assert r.get_json()["location"]["source"] == "device"


def test_permit_id_is_required(client, applicant):
    r = put_photo(client, applicant[1], None, jpeg())
    assert r.status_code == 422
    assert r.get_json()["error"] == "validation_error" and "permit_id" in r.get_json()["errors"]


def test_same_id_same_bytes_is_200_and_other_bytes_409(client, applicant, permit, stored):
    data, photo_id = jpeg(), str(uuid.uuid4())
    first = put_photo(client, applicant[1], permit.id, data, photo_id=photo_id)
    again = put_photo(client, applicant[1], permit.id, data, photo_id=photo_id)
    assert first.status_code == 201 and again.status_code == 200
    assert again.get_json() == first.get_json()
    other = put_photo(client, applicant[1], permit.id, jpeg((65, 48)), photo_id=photo_id)
    assert other.status_code == 409
    assert other.get_json()["error"] == "conflict"
    assert photo_count() == 1 and len(stored()) == 3


def test_checksum_mismatch_is_422_and_stores_nothing(client, applicant, permit, stored, leftovers):
    r = put_photo(client, applicant[1], permit.id, jpeg(), digest="0" * 64)
    assert r.status_code == 422
    assert r.get_json()["error"] == "checksum_mismatch" and r.get_json()["code"] == 422
    assert photo_count() == 0 and stored() == [] and leftovers() == []


def test_missing_digest_is_422(client, applicant, permit):
    r = client.put(f"/api/v1/photos/{uuid.uuid4()}", query_string={"permit_id": permit.id}, data=jpeg(),
                   headers={**applicant[1], "Content-Type": "image/jpeg"})
    assert r.status_code == 422 and "X-Content-SHA256" in r.get_json()["errors"]


def test_truncated_jpeg_is_422_image_invalid(client, applicant, permit, stored, leftovers):
    data = jpeg((200, 150))
    cut = data[: len(data) // 2]
    r = put_photo(client, applicant[1], permit.id, cut)
    assert r.status_code == 422
    assert r.get_json()["error"] == "image_invalid"
    assert photo_count() == 0 and stored() == [] and leftovers() == []


def test_text_posing_as_jpeg_is_422(client, applicant, permit, stored):
    r = put_photo(client, applicant[1], permit.id, b"just some text, not a picture\n" * 10)
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert photo_count() == 0 and stored() == []


@pytest.mark.parametrize("content_type", ["text/plain", "application/pdf", "image/gif", "application/octet-stream"])
def test_other_declared_types_are_415(client, applicant, permit, content_type, stored):
    r = put_photo(client, applicant[1], permit.id, jpeg(), content_type=content_type)
    assert r.status_code == 415
    assert r.get_json()["error"] == "unsupported_media_type"
    assert photo_count() == 0 and stored() == []


def test_declared_type_differing_from_the_bytes_keeps_the_sniffed_type(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg(), content_type="image/png")
    assert r.status_code == 201 and r.get_json()["content_type"] == "image/jpeg"


def test_png_webp_are_accepted(client, applicant, permit):
    for fmt, kind in (("PNG", "image/png"), ("WEBP", "image/webp")):
        r = put_photo(client, applicant[1], permit.id, encoded(fmt, (30, 20)), content_type=kind)
        assert r.status_code == 201, r.get_json()
        assert (r.get_json()["content_type"], r.get_json()["width"], r.get_json()["height"]) == (kind, 30, 20)


def test_oversized_body_is_413_from_content_length(app, client, applicant, permit, stored, leftovers):
    app.config["MAX_UPLOAD_BYTES"] = 1000
    r = put_photo(client, applicant[1], permit.id, jpeg((200, 200)))
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"
    assert photo_count() == 0 and stored() == [] and leftovers() == []


def test_oversized_body_is_413_while_streaming_without_length(app, client, applicant, permit, stored, leftovers):
    app.config["MAX_UPLOAD_BYTES"] = 1000
    data = jpeg((200, 200))
    assert len(data) > 1000
    r = client.put(f"/api/v1/photos/{uuid.uuid4()}", query_string={"permit_id": permit.id},
                   input_stream=io.BytesIO(data),
                   headers={**applicant[1], "Content-Type": "image/jpeg", "X-Content-SHA256": sha(data)},
                   environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"
    assert photo_count() == 0 and stored() == [] and leftovers() == []


def test_audit_and_change_feed_record_the_photo(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg())
    photo_id = r.get_json()["id"]
    db.session.rollback()
    entry = db.session.scalar(select(AuditEntry).where(AuditEntry.record_id == photo_id))
    assert entry.action == "photo.create" and entry.actor_id == applicant[0].id
    assert entry.changes["sha256"] == r.get_json()["sha256"]
    change = db.session.get(SyncChange, ("photo", photo_id))
    assert change.op == "upsert" and change.permit_id == permit.id


def test_identical_bytes_are_stored_once(client, applicant, permit, stored):
    data = jpeg()
    a = put_photo(client, applicant[1], permit.id, data)
    b = put_photo(client, applicant[1], permit.id, data)
    assert a.status_code == b.status_code == 201 and a.get_json()["id"] != b.get_json()["id"]
    assert len(stored()) == 3


def test_thumbnails_carry_no_exif_gps(client, applicant, permit):
    exif = make_exif(gps=gps_block(41.6, -70.9), make="Canon")
    r = put_photo(client, applicant[1], permit.id, jpeg((2000, 1000), exif=exif))
    assert r.status_code == 201
    for size, longest in (("display", 1280), ("small", 320)):
        thumb = _fetch(client, r.get_json()["thumbnail_url"] + f"?size={size}", applicant[1])
        image = Image.open(io.BytesIO(thumb))
        assert image.format == "JPEG" and max(image.size) == longest
        assert not image.getexif().get_ifd(0x8825) and not image.info.get("exif")


def _fetch(client, url, headers) -> bytes:
    import urllib.request
    r = client.get(url, headers=headers)
    if r.status_code == 302:
        with urllib.request.urlopen(r.headers["Location"], timeout=10) as response:
            return response.read()
    assert r.status_code == 200, r.get_json()
    return r.data
