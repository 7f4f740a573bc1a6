"""Real camera files (../shared/data/real-exif, read in place): every one as expected.json says."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from inspect_api.extensions import db
from inspect_api.photos.models import Photo

from .helpers import put_photo

TYPES = {".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp", ".heic": "image/heic"}


def _cases():
    from tests.conftest import SHARED_DATA
    path = SHARED_DATA / "real-exif" / "expected.json"
    if not path.is_file():
        return [pytest.param(None, None, marks=pytest.mark.skip(
            reason=f"real camera files not present at {path.parent} (the ../shared folder beside the checkout)"))]
    return [pytest.param(name, expected, id=name) for name, expected in json.loads(path.read_text()).items()]


@pytest.mark.parametrize("name,expected", _cases())
def test_real_camera_file(client, factory, shared_data, stored, leftovers, name, expected):
    user, headers = factory.as_role("inspector")
    permit = factory.permit()
    data = (shared_data / name).read_bytes()
    r = put_photo(client, headers, permit.id, data, content_type=TYPES[(shared_data / name).suffix.lower()])
    body = r.get_json()
    if not expected["valid"]:
        assert r.status_code == 422 and body["error"] == "image_invalid", body
        db.session.rollback()
        assert db.session.scalar(select(func.count()).select_from(Photo)) == 0
        assert stored() == [] and leftovers() == []
        return
    assert r.status_code == 201, body
    assert body["sha256"] and body["bytes"] == len(data)
    if expected.get("exif_gps") is None:
        assert body["exif_gps"] is None
    else:
        for key in ("lat", "lon"):
            assert body["exif_gps"][key] == pytest.approx(expected["exif_gps"][key], abs=1e-5), key
        # expected.json names an altitude only where it checked one; where it names none, the file may
        # still carry one, so only a named altitude is compared.
        if expected["exif_gps"].get("alt") is not None:
            assert body["exif_gps"]["altitude_m"] == pytest.approx(expected["exif_gps"]["alt"], abs=0.01)
        assert body["location"]["source"] == "exif"
    if "orientation" in expected:
        assert body["orientation"] == expected["orientation"]
    if "size" in expected:
        width, height = expected["size"]
        turned = expected.get("orientation", 1) in (5, 6, 7, 8)
        assert (body["width"], body["height"]) == ((height, width) if turned else (width, height))
    original = client.get(body["url"], headers=headers)
    assert original.status_code in (200, 302)
    if original.status_code == 200:
        assert original.data == data
