"""Decompression bombs, pixel limits and corrupt files: 422 image_invalid, nothing kept."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from inspect_api.extensions import db
from inspect_api.photos.models import Photo

from .helpers import encoded, jpeg, png_bomb, png_text_bomb, put_photo


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


@pytest.fixture
def permit(factory, applicant):
    return factory.permit(applicant=applicant[0])


def _nothing_kept(stored, leftovers) -> bool:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(Photo)) == 0 and stored() == [] and leftovers() == []


def test_png_decompression_bomb(client, applicant, permit, stored, leftovers):
    bomb = png_bomb()
    assert len(bomb) < 2_000_000
    r = put_photo(client, applicant[1], permit.id, bomb, content_type="image/png")
    assert r.status_code == 422
    assert r.get_json()["error"] == "image_invalid" and "pixels" in r.get_json()["errors"]
    assert _nothing_kept(stored, leftovers)


def test_png_text_chunk_bomb(client, applicant, permit, stored, leftovers):
    r = put_photo(client, applicant[1], permit.id, png_text_bomb(), content_type="image/png")
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_pixel_limit_from_config(app, client, applicant, permit, stored, leftovers):
    app.config["MAX_IMAGE_PIXELS"] = 100 * 100
    over = put_photo(client, applicant[1], permit.id, jpeg((101, 100)))
    assert over.status_code == 422 and over.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)
    at_limit = put_photo(client, applicant[1], permit.id, jpeg((100, 100)))
    assert at_limit.status_code == 201


@pytest.mark.parametrize("fmt,kind", [("PNG", "image/png"), ("WEBP", "image/webp")])
def test_truncated_png_and_webp(client, applicant, permit, stored, leftovers, fmt, kind):
    data = encoded(fmt, (120, 90), **({"lossless": True} if fmt == "WEBP" else {}))
    r = put_photo(client, applicant[1], permit.id, data[: len(data) * 2 // 3], content_type=kind)
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)


def test_jpeg_header_only(client, applicant, permit, stored, leftovers):
    r = put_photo(client, applicant[1], permit.id, jpeg()[:200])
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)


def test_empty_body(client, applicant, permit, stored, leftovers):
    r = put_photo(client, applicant[1], permit.id, b"")
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)


def test_pdf_declared_as_jpeg(client, applicant, permit, stored, leftovers):
    r = put_photo(client, applicant[1], permit.id, b"%PDF-1.7\n" + b"0" * 500)
    assert r.status_code == 422 and r.get_json()["error"] == "image_invalid"
    assert _nothing_kept(stored, leftovers)
