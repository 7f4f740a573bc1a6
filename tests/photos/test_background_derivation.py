"""Thumbnails made after the answer (README "Photo thumbnails after the answer"): with
PHOTO_DERIVE_INLINE off, as in production, an upload is answered once its original is verified and
stored; GET /thumbnail answers 202 with Retry-After until a worker pass (derivation.drain) made both
thumbnails; an image whose pixels do not decode is failed for good and its original still served."""
from __future__ import annotations

import io
import struct
import threading
import time
import zlib
from datetime import timedelta

import pytest
from PIL import Image
from sqlalchemy import func, select

from inspect_api import clock
from inspect_api.cli import main
from inspect_api.config import TestConfig
from inspect_api.extensions import db
from inspect_api.photos import derivation, imaging
from inspect_api.photos.exif import gps_exif_bytes
from inspect_api.photos.models import Photo, PhotoDerivation

from .helpers import jpeg, picture, put_photo, sha


@pytest.fixture
def config(config):
    """The photo suite's configuration (local folder and S3) with the thumbnails left to the worker."""
    return TestConfig(**{**{name: getattr(config, name) for name in dir(config) if name.isupper()},
                         "PHOTO_DERIVE_INLINE": False})


@pytest.fixture
def inspector(factory):
    return factory.as_role("inspector")


@pytest.fixture
def permit(factory):
    return factory.permit()


def camera_jpeg(size=(2000, 1500), orientation=6) -> bytes:
    exif = Image.Exif()
    exif.load(gps_exif_bytes(41.6376, -70.9036, orientation=orientation))
    return jpeg(size, exif=exif, image=picture(size))


def undecodable_png() -> bytes:
    """A PNG whose every chunk is whole (and its CRC right) but whose pixel data is not a zlib stream:
    nothing short of decoding can tell."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40, 30, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", b"\x00garbage that is no deflate stream" * 4) + chunk(b"IEND", b""))


def thumbnail(client, headers, photo_id, size="display"):
    return client.get(f"/api/v1/photos/{photo_id}/thumbnail", query_string={"size": size}, headers=headers)


def test_upload_is_answered_before_thumbnails_then_the_worker_makes_them(app, client, inspector, permit, stored):
    _, headers = inspector
    data = camera_jpeg()
    r = put_photo(client, headers, permit.id, data)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    # The answer carries everything read from the header and EXIF: the size as displayed (turned by
    # orientation 6), the camera's position, the type from the bytes.
    assert (body["width"], body["height"], body["orientation"]) == (1500, 2000, 6)
    assert body["exif_gps"] == {"lat": pytest.approx(41.6376, abs=1e-6), "lon": pytest.approx(-70.9036, abs=1e-6)}
    assert body["content_type"] == "image/jpeg" and body["sha256"] == sha(data)
    # Only the original is stored; the job waits.
    assert [key for key in stored() if key.endswith(".jpg")] == []
    assert len(stored()) == 1
    assert db.session.get(PhotoDerivation, sha(data)).status == "queued"

    for size in ("display", "small"):
        waiting = thumbnail(client, headers, body["id"], size)
        assert waiting.status_code == 202
        assert waiting.headers["Retry-After"] == "2"
        assert waiting.get_json() == {"code": 202, "status": "Accepted", "error": "processing",
                                      "message": "The thumbnails are being made; ask again in 2 seconds.",
                                      "errors": {"retry_after_s": [2]}}
    # The original is served meanwhile, byte for byte.
    original = client.get(f"/api/v1/photos/{body['id']}/original", headers=headers)
    assert original.status_code in (200, 302)
    if original.status_code == 200:
        assert original.data == data

    tally = derivation.drain("worker-1")
    assert (tally.done, tally.failed, tally.retrying) == (1, 0, 0)
    assert len(stored()) == 3
    for size, expected in (("display", (960, 1280)), ("small", (240, 320))):
        r = thumbnail(client, headers, body["id"], size)
        if r.status_code == 302:  # S3: a signed URL to the stored JPEG
            with app.app_context():
                key = db.session.get(Photo, body["id"]).display_key if size == "display" else \
                    db.session.get(Photo, body["id"]).small_key
            image_bytes = derivation.thumbnail_bytes(sha(data), "", size, key)[0]
        else:
            assert r.status_code == 200 and r.mimetype == "image/jpeg"
            image_bytes = r.data
        image = Image.open(io.BytesIO(image_bytes))
        assert image.format == "JPEG" and image.size == expected  # upright, longest side 1280 / 320
        assert not image.getexif()  # no metadata in a derivative
    job = db.session.get(PhotoDerivation, sha(data), populate_existing=True)
    assert (job.status, job.attempts, job.claimed_by, job.last_error) == ("done", 1, None, None)
    assert job.derived_at is not None
    # A second pass finds nothing to do.
    assert derivation.drain("worker-1").ids == []


def test_same_bytes_share_one_job(client, inspector, permit):
    _, headers = inspector
    data = jpeg((300, 200))
    assert put_photo(client, headers, permit.id, data).status_code == 201
    assert put_photo(client, headers, permit.id, data).status_code == 201  # another photo id, same bytes
    assert db.session.scalar(select(func.count()).select_from(PhotoDerivation)) == 1
    assert derivation.drain().done == 1


def test_undecodable_pixels_fail_for_good_and_the_original_is_still_served(client, inspector, permit, stored):
    _, headers = inspector
    data = undecodable_png()
    r = put_photo(client, headers, permit.id, data, content_type="image/png")
    assert r.status_code == 201, r.get_json()
    photo_id = r.get_json()["id"]
    assert (r.get_json()["width"], r.get_json()["height"]) == (40, 30)

    tally = derivation.drain("worker-1")
    assert (tally.done, tally.failed, tally.retrying) == (0, 1, 0)
    job = db.session.get(PhotoDerivation, sha(data), populate_existing=True)
    assert job.status == "failed" and job.last_error == "The image is truncated or corrupt."
    assert job.next_attempt_at is None and job.claimed_by is None

    for size in ("display", "small"):
        r = thumbnail(client, headers, photo_id, size)
        assert r.status_code == 404
        assert r.get_json()["error"] == "thumbnail_failed"
        assert r.get_json()["errors"] == {"reason": ["The image is truncated or corrupt."]}
    original = client.get(f"/api/v1/photos/{photo_id}/original", headers=headers)
    assert original.status_code in (200, 302)
    if original.status_code == 200:
        assert original.data == data
    assert len(stored()) == 1  # the original only
    assert derivation.drain("worker-1").ids == []  # never tried again


def test_a_crash_mid_job_leaves_the_job_to_another_worker_once_the_lease_runs_out(app, client, inspector, permit,
                                                                                   monkeypatch):
    _, headers = inspector
    data = jpeg((400, 300))
    assert put_photo(client, headers, permit.id, data).status_code == 201
    start = clock.now()
    # Worker 1 claims the job, then dies before it records anything.
    assert derivation.claim("worker-1", 5) == [sha(data)]
    # While its lease holds, nobody else takes the job.
    assert derivation.drain("worker-2").ids == []
    monkeypatch.setattr(clock, "now", lambda: start + timedelta(seconds=app.config["PHOTO_DERIVE_LEASE_SECONDS"] + 1))
    tally = derivation.drain("worker-2")
    assert tally.done == 1
    job = db.session.get(PhotoDerivation, sha(data), populate_existing=True)
    assert (job.status, job.attempts) == ("done", 2)


def test_a_store_failure_mid_job_is_rolled_back_and_retried_later(app, client, inspector, permit, monkeypatch):
    _, headers = inspector
    data = jpeg((400, 300))
    photo_id = put_photo(client, headers, permit.id, data).get_json()["id"]
    real_make = derivation.make

    def store_away(*args, **kwargs):
        raise OSError("the blob store did not answer")

    monkeypatch.setattr(derivation, "make", store_away)
    tally = derivation.drain("worker-1")
    assert (tally.done, tally.retrying) == (0, 1)
    job = db.session.get(PhotoDerivation, sha(data), populate_existing=True)
    assert job.status == "queued" and job.attempts == 1 and job.claimed_by is None
    assert job.last_error == "OSError: the blob store did not answer"
    assert job.next_attempt_at > clock.now()
    assert thumbnail(client, headers, photo_id).status_code == 202
    # Not due yet; once it is, the next pass makes the thumbnails.
    monkeypatch.setattr(derivation, "make", real_make)
    assert derivation.drain("worker-1").ids == []
    later = job.next_attempt_at + timedelta(seconds=1)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert derivation.drain("worker-1").done == 1
    assert thumbnail(client, headers, photo_id).status_code in (200, 302)


def test_a_job_out_of_attempts_is_failed(app, client, inspector, permit, monkeypatch):
    _, headers = inspector
    data = jpeg((200, 100))
    put_photo(client, headers, permit.id, data)
    job = db.session.get(PhotoDerivation, sha(data))
    job.attempts = app.config["PHOTO_DERIVE_MAX_ATTEMPTS"]
    db.session.commit()
    assert derivation.claim("worker-1", 5) == []
    job = db.session.get(PhotoDerivation, sha(data), populate_existing=True)
    assert job.status == "failed" and job.last_error == "The thumbnails could not be made in 5 attempts."


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_limits_still_refuse_at_the_upload_and_keep_nothing(app, client, inspector, permit, stored, leftovers):
    _, headers = inspector
    app.config["MAX_IMAGE_PIXELS"] = 100 * 100
    r = put_photo(client, headers, permit.id, jpeg((101, 100)))
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert r.get_json()["errors"] == {"pixels": [10000]}
    cut = jpeg((80, 60))
    r = put_photo(client, headers, permit.id, cut[: len(cut) * 2 // 3])
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    app.config["MAX_UPLOAD_BYTES"] = 1000
    r = put_photo(client, headers, permit.id, jpeg((90, 90), quality=100))
    assert r.status_code == 413 and r.get_json()["error"] == "payload_too_large"
    db.session.rollback()
    assert db.session.scalar(select(func.count()).select_from(Photo)) == 0
    assert db.session.scalar(select(func.count()).select_from(PhotoDerivation)) == 0
    assert stored() == [] and leftovers() == []


def test_server_side_renditions_use_the_original_until_the_thumbnail_exists(client, inspector, permit):
    _, headers = inspector
    data = jpeg((800, 600))
    photo_id = put_photo(client, headers, permit.id, data).get_json()["id"]
    photo = db.session.get(Photo, photo_id)
    made, kept = derivation.thumbnail_bytes(photo.sha256, photo.original_key, "small", photo.small_key)
    assert not kept and Image.open(io.BytesIO(made)).size == (320, 240)
    derivation.drain()
    stored_bytes, kept = derivation.thumbnail_bytes(photo.sha256, photo.original_key, "small", photo.small_key)
    assert kept and Image.open(io.BytesIO(stored_bytes)).size == (320, 240)


def test_two_workers_never_make_one_photos_thumbnails_twice(app, client, inspector, permit, monkeypatch):
    _, headers = inspector
    shas = []
    for n in range(8):
        data = jpeg((64 + n, 48))
        assert put_photo(client, headers, permit.id, data).status_code == 201
        shas.append(sha(data))
    db.session.commit()
    db.session.close()
    made: list[tuple[str, str]] = []
    lock = threading.Lock()
    real_make = derivation.make

    def counted(original_key, *, store_as=None):
        with lock:
            made.append((threading.current_thread().name, original_key))
        time.sleep(0.05)  # long enough for the other worker to claim meanwhile
        return real_make(original_key, store_as=store_as)

    monkeypatch.setattr(derivation, "make", counted)
    tallies = {}

    def work(name):
        with app.app_context():
            tallies[name] = derivation.drain(name)

    threads = [threading.Thread(target=work, args=(name,), name=name) for name in ("w1", "w2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    keys = [key for _, key in made]
    assert len(keys) == len(set(keys)) == 8  # each photo's thumbnails made once
    assert {name for name, _ in made} == {"w1", "w2"}  # and both workers took part
    assert sum(t.done for t in tallies.values()) == 8 and all(t.skipped == 0 for t in tallies.values())
    db.session.rollback()
    assert {job.status for job in db.session.scalars(select(PhotoDerivation))} == {"done"}
    assert sorted(job.sha256 for job in db.session.scalars(select(PhotoDerivation))) == sorted(shas)


def test_worker_command_once_makes_the_thumbnails(app, client, inspector, permit):
    _, headers = inspector
    put_photo(client, headers, permit.id, jpeg((300, 200)))
    db.session.commit()
    result = app.test_cli_runner().invoke(main, ["worker", "--once", "--photos-only"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "thumbnails made 1, failed 0, to retry 0"
    both = app.test_cli_runner().invoke(main, ["worker", "--once", "--mail-only", "--photos-only"])
    assert both.exit_code != 0 and "exclude each other" in both.output


def test_inspect_reads_no_pixels(tmp_path, monkeypatch):
    """The answer's facts come from the header: decoding is never called at the door."""
    exif = Image.Exif()
    exif.load(gps_exif_bytes(41.6, -70.9, orientation=8))
    paths = []
    for fmt in ("JPEG", "PNG", "WEBP", "HEIF"):
        paths.append(tmp_path / f"p.{fmt.lower()}")
        picture((300, 200)).save(paths[-1], fmt, exif=exif.tobytes())

    def no_decoding(*_args, **_kwargs):
        raise AssertionError("pixels decoded at the door")

    monkeypatch.setattr(imaging.ImageFile.ImageFile, "load", no_decoding)
    for path in paths:
        seen = imaging.inspect(path, path.read_bytes()[:64], max_pixels=10**8, max_decode_bytes=320 << 20)
        assert (seen.width, seen.height, seen.exif.orientation) == (200, 300, 8), path
        assert seen.exif.gps["lat"] == pytest.approx(41.6)
