"""Resumable uploads (tus 1.0 core + creation, expiration, checksum, termination)."""
from __future__ import annotations

import base64
import hashlib
import uuid
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from sqlalchemy import func, select, update

from inspect_api import create_app
from inspect_api.clock import now as utcnow
from inspect_api.extensions import db
from inspect_api.photos.cli import photos as photos_cli
from inspect_api.photos.models import Photo, PhotoUpload
from inspect_api.photos.tus import encode_metadata

from .helpers import gps_block, jpeg, make_exif, put_photo, sha

TUS = {"Tus-Resumable": "1.0.0"}
OCTETS = "application/offset+octet-stream"


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


@pytest.fixture
def permit(factory, applicant):
    return factory.permit(applicant=applicant[0])


@pytest.fixture
def picture():
    exif = make_exif(gps=gps_block(41.6377, -70.9035, alt=4.0, alt_ref=b"\x00"), make="Apple")
    return jpeg((300, 200), exif=exif, quality=95)


def create(client, headers, permit_id, data, *, photo_id=None, **meta):
    values = {"photo_id": photo_id or str(uuid.uuid4()), "permit_id": permit_id, "sha256": sha(data),
              "content_type": "image/jpeg", **meta}
    return client.post("/api/v1/uploads", headers={**headers, **TUS, "Upload-Length": str(len(data)),
                                                   "Upload-Metadata": encode_metadata(values)})


def path_of(response) -> str:
    return urlparse(response.headers["Location"]).path


def patch(client, headers, url, offset, chunk, **extra):
    return client.patch(url, data=chunk, headers={**headers, **TUS, "Content-Type": OCTETS,
                                                  "Upload-Offset": str(offset), **extra})


def head(client, headers, url):
    return client.head(url, headers={**headers, **TUS})


def original_bytes(client, headers, url) -> bytes:
    import urllib.request
    r = client.get(url, headers=headers)
    if r.status_code == 302:
        with urllib.request.urlopen(r.headers["Location"], timeout=10) as response:
            return response.read()
    assert r.status_code == 200
    return r.data


def rows(model) -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(model))


def test_options_announces_the_protocol(client):
    r = client.options("/api/v1/uploads")
    assert r.status_code == 204
    assert r.headers["Tus-Resumable"] == "1.0.0" and r.headers["Tus-Version"] == "1.0.0"
    assert set(r.headers["Tus-Extension"].split(",")) == {"creation", "expiration", "checksum", "termination"}
    assert r.headers["Tus-Max-Size"] == str(40 * 1024 * 1024)
    assert r.headers["Tus-Checksum-Algorithm"] == "sha256,sha1"


def test_creation_answers_201_with_location(client, applicant, permit, picture):
    r = create(client, applicant[1], permit.id, picture)
    assert r.status_code == 201, r.get_json()
    assert r.headers["Upload-Offset"] == "0" and r.headers["Upload-Length"] == str(len(picture))
    assert r.headers["Upload-Expires"].endswith("GMT") and r.headers["Tus-Resumable"] == "1.0.0"
    assert r.get_json()["offset"] == 0 and r.get_json()["length"] == len(picture)
    assert path_of(r) == f"/api/v1/uploads/{r.get_json()['id']}"


@pytest.mark.parametrize("cuts", [(1,), (100, 101), ("third", "two_thirds"), (7, "half", "last")],
                         ids=["one-byte", "adjacent", "thirds", "many"])
def test_cut_at_several_offsets_and_resumed_is_byte_identical(client, applicant, permit, picture, stored, cuts):
    named = {"third": len(picture) // 3, "two_thirds": 2 * len(picture) // 3, "half": len(picture) // 2,
             "last": len(picture) - 1}
    offsets = [named.get(c, c) for c in cuts] + [len(picture)]
    url = path_of(create(client, applicant[1], permit.id, picture))
    start = 0
    for end in offsets:
        held = int(head(client, applicant[1], url).headers["Upload-Offset"])  # where to resume
        assert held == start
        r = patch(client, applicant[1], url, held, picture[held:end])
        assert r.status_code == (204 if end < len(picture) else 200), r.get_json()
        assert r.headers["Upload-Offset"] == str(end)
        start = end
    body = r.get_json()
    assert r.headers["Photo-Id"] == body["id"] and body["sha256"] == sha(picture)
    assert body["exif_gps"]["altitude_m"] == 4.0 and body["location"]["source"] == "exif"
    assert original_bytes(client, applicant[1], body["url"]) == picture
    assert not any(key.startswith("uploads/") for key in stored())  # chunks gone once assembled


def test_tus_result_equals_put_result(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture, device_lat="41.6", device_lon="-70.9"))
    via_tus = patch(client, applicant[1], url, 0, picture).get_json()
    via_put = put_photo(client, applicant[1], permit.id, picture, device_lat=41.6, device_lon=-70.9).get_json()
    ignore = {"id", "url", "thumbnail_url", "small_thumbnail_url", "created_at", "updated_at"}
    assert {k: v for k, v in via_tus.items() if k not in ignore} == {k: v for k, v in via_put.items() if k not in ignore}


def test_state_survives_another_process(client, applicant, permit, picture, config):
    url = path_of(create(client, applicant[1], permit.id, picture))
    assert patch(client, applicant[1], url, 0, picture[:500]).status_code == 204
    db.session.commit()
    other = create_app(config)  # a second API process: shares only the database and the blob store
    with other.app_context():
        other_client = other.test_client()
        assert head(other_client, applicant[1], url).headers["Upload-Offset"] == "500"
        r = patch(other_client, applicant[1], url, 500, picture[500:])
        assert r.status_code == 200 and r.get_json()["sha256"] == sha(picture)
        db.session.remove()
    assert original_bytes(client, applicant[1], r.get_json()["url"]) == picture


def test_offset_mismatch_is_409_with_the_offset_held(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    patch(client, applicant[1], url, 0, picture[:300])
    r = patch(client, applicant[1], url, 0, picture[:300])
    assert r.status_code == 409
    assert r.get_json()["error"] == "offset_mismatch" and r.get_json()["errors"]["offset"] == [300]
    assert head(client, applicant[1], url).headers["Upload-Offset"] == "300"


@pytest.mark.parametrize("algorithm", ["sha256", "sha1"])
def test_chunk_checksums(client, applicant, permit, picture, algorithm):
    url = path_of(create(client, applicant[1], permit.id, picture))
    chunk = picture[:1000]
    good = base64.b64encode(hashlib.new(algorithm, chunk).digest()).decode()
    bad = base64.b64encode(hashlib.new(algorithm, b"other").digest()).decode()
    r = patch(client, applicant[1], url, 0, chunk, **{"Upload-Checksum": f"{algorithm} {bad}"})
    assert r.status_code == 460
    assert r.get_json()["error"] == "checksum_mismatch" and r.get_json()["code"] == 460
    assert head(client, applicant[1], url).headers["Upload-Offset"] == "0"
    r = patch(client, applicant[1], url, 0, chunk, **{"Upload-Checksum": f"{algorithm} {good}"})
    assert r.status_code == 204 and r.headers["Upload-Offset"] == "1000"


def test_unsupported_checksum_algorithm_is_400(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    r = patch(client, applicant[1], url, 0, picture[:10], **{"Upload-Checksum": "md5 AAAA"})
    assert r.status_code == 400 and "Upload-Checksum" in r.get_json()["errors"]


def test_missing_tus_version_is_412(client, applicant):
    r = client.post("/api/v1/uploads", headers={**applicant[1], "Upload-Length": "10"})
    assert r.status_code == 412
    assert r.headers["Tus-Version"] == "1.0.0" and r.get_json()["error"] == "tus_version_unsupported"


def test_patch_needs_offset_content_type(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    r = client.patch(url, data=picture, headers={**applicant[1], **TUS, "Content-Type": "image/jpeg",
                                                 "Upload-Offset": "0"})
    assert r.status_code == 415 and r.get_json()["error"] == "unsupported_media_type"


def test_chunk_past_upload_length_is_413(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    r = patch(client, applicant[1], url, 0, picture + b"extra")
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"
    assert head(client, applicant[1], url).headers["Upload-Offset"] == "0"


def test_whole_file_digest_mismatch_deletes_the_upload(client, applicant, permit, picture, stored):
    url = path_of(create(client, applicant[1], permit.id, picture))
    tampered = picture[:-10] + bytes(10)
    r = patch(client, applicant[1], url, 0, tampered)
    assert r.status_code == 422 and r.get_json()["error"] == "checksum_mismatch"
    assert head(client, applicant[1], url).status_code == 404
    assert rows(Photo) == 0 and rows(PhotoUpload) == 0 and stored() == []


def test_invalid_image_deletes_the_upload(client, applicant, permit, stored, leftovers):
    data = b"%PDF-1.4 not a photo" * 50
    url = path_of(create(client, applicant[1], permit.id, data))
    patch(client, applicant[1], url, 0, data[:100])
    r = patch(client, applicant[1], url, 100, data[100:])
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert rows(Photo) == 0 and rows(PhotoUpload) == 0 and stored() == [] and leftovers() == []


def test_creation_checks(app, client, applicant, permit, factory, picture):
    r = create(client, applicant[1], permit.id, picture, content_type="text/plain")
    assert r.status_code == 415
    r = client.post("/api/v1/uploads", headers={**applicant[1], **TUS, "Upload-Length": "100",
                                                "Upload-Metadata": encode_metadata({"permit_id": permit.id})})
    assert r.status_code == 422 and "photo_id" in r.get_json()["errors"]
    other_permit = factory.permit()
    assert create(client, applicant[1], other_permit.id, picture).status_code == 404
    r = client.post("/api/v1/uploads", headers={**applicant[1], **TUS, "Upload-Metadata": "photo_id !!!"})
    assert r.status_code == 400
    app.config["MAX_UPLOAD_BYTES"] = 100
    r = create(client, applicant[1], permit.id, picture)
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"


def test_another_user_cannot_touch_an_upload(client, factory, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    _inspector, headers = factory.as_role("inspector")
    assert head(client, headers, url).status_code == 404
    r = patch(client, headers, url, 0, picture)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_termination_deletes_bytes(client, applicant, permit, picture, stored):
    url = path_of(create(client, applicant[1], permit.id, picture))
    patch(client, applicant[1], url, 0, picture[:400])
    assert any(key.startswith("uploads/") for key in stored())
    r = client.delete(url, headers={**applicant[1], **TUS})
    assert r.status_code == 204
    assert head(client, applicant[1], url).status_code == 404 and stored() == []


def test_finished_upload_tells_its_photo(client, applicant, permit, picture):
    url = path_of(create(client, applicant[1], permit.id, picture))
    done = patch(client, applicant[1], url, 0, picture)
    h = head(client, applicant[1], url)
    assert h.status_code == 200 and h.headers["Upload-Offset"] == str(len(picture))
    assert h.headers["Photo-Id"] == done.get_json()["id"]
    again = patch(client, applicant[1], url, len(picture), b"")  # the answer to the last PATCH was lost
    assert again.status_code == 200 and again.get_json() == done.get_json()


def test_expired_uploads_answer_410_and_are_cleaned(app, client, applicant, permit, picture, stored):
    url = path_of(create(client, applicant[1], permit.id, picture))
    patch(client, applicant[1], url, 0, picture[:400])
    db.session.execute(update(PhotoUpload).values(expires_at=utcnow() - timedelta(minutes=1)))
    db.session.commit()
    r = head(client, applicant[1], url)
    assert r.status_code == 410
    result = app.test_cli_runner().invoke(photos_cli, ["cleanup-uploads"])
    assert result.exit_code == 0 and "removed 1 expired upload(s)" in result.output
    assert rows(PhotoUpload) == 0 and stored() == []


def test_creating_an_upload_sweeps_expired_ones(client, applicant, permit, picture, stored):
    url = path_of(create(client, applicant[1], permit.id, picture))
    patch(client, applicant[1], url, 0, picture[:400])
    db.session.execute(update(PhotoUpload).values(expires_at=utcnow() - timedelta(minutes=1)))
    db.session.commit()
    assert create(client, applicant[1], permit.id, picture).status_code == 201
    assert rows(PhotoUpload) == 1 and stored() == []


def test_conflicting_photo_id_is_refused_at_creation(client, applicant, permit, picture):
    taken = put_photo(client, applicant[1], permit.id, jpeg()).get_json()["id"]
    r = create(client, applicant[1], permit.id, picture, photo_id=taken)
    assert r.status_code == 409 and r.get_json()["error"] == "conflict"
