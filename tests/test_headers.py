"""Response headers an attacker could bend: one charset on the app's files, and
absolute URLs the API hands out built from configuration, never from the request's Host."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from inspect_api.photos.tus import encode_metadata
from inspect_api.web.routes import PWA_ROOT, TYPES

APP_FILES = ["/", "/sw.js", "/manifest.webmanifest"] + sorted(
    "/static/pwa/" + p.relative_to(PWA_ROOT).as_posix() for p in Path(PWA_ROOT).rglob("*")
    if p.is_file() and p.suffix in TYPES)


def test_every_app_file_carries_one_charset(client):
    assert len(APP_FILES) > 10
    seen = set()
    for url in APP_FILES:
        response = client.get(url)
        assert response.status_code == 200, url
        kind = response.headers["Content-Type"]
        seen.add(kind)
        assert kind.lower().count("charset") <= 1, (url, kind)
        if kind.startswith(("text/html", "text/javascript", "text/css")):
            assert kind.endswith("; charset=utf-8"), (url, kind)
    assert {"text/html; charset=utf-8", "text/javascript; charset=utf-8"} <= seen


def _start_upload(client, factory, host: str):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant)
    meta = {"photo_id": str(uuid.uuid4()), "permit_id": permit.id, "sha256": "0" * 64, "content_type": "image/jpeg"}
    return client.post("/api/v1/uploads", headers={**headers, "Tus-Resumable": "1.0.0", "Upload-Length": "100",
                                                   "Upload-Metadata": encode_metadata(meta), "Host": host})


def test_tus_location_never_echoes_the_request_host(client, factory):
    response = _start_upload(client, factory, "attacker.example")
    assert response.status_code == 201, response.get_json()
    location = response.headers["Location"]
    assert "attacker.example" not in location
    assert location.startswith("/api/v1/uploads/") and location.endswith(response.get_json()["id"])


@pytest.mark.parametrize("base", ["https://permits.fairhaven.example", "https://permits.fairhaven.example/"])
def test_tus_location_is_built_on_public_base_url(app, client, factory, base):
    app.config["PUBLIC_BASE_URL"] = base
    response = _start_upload(client, factory, "attacker.example")
    assert response.status_code == 201
    assert response.headers["Location"] == "https://permits.fairhaven.example/api/v1/uploads/" + response.get_json()["id"]
