"""HTTP as client libraries expect it: weak ETags and If-Match, gzip for JSON over 1 kB, 415 for a
JSON body under another content type, no content type on empty answers, tus method override."""
from __future__ import annotations

import gzip
import json
import uuid

import pytest

from tests.photos.helpers import jpeg, sha
from inspect_api.photos.tus import encode_metadata

API = "/api/v1"


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


def _new_permit(client, factory, headers):
    r = client.post(f"{API}/permits", json=factory.permit_payload(), headers=headers)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_record_get_answers_a_weak_etag_that_if_match_accepts(client, factory, applicant):
    _, headers = applicant
    permit = _new_permit(client, factory, headers)
    url = f"{API}/permits/{permit['id']}"
    r = client.get(url, headers=headers)
    assert r.status_code == 200 and r.headers["ETag"] == 'W/"1"'
    r = client.patch(url, json={"description": "Bigger driveway"}, headers={**headers, "If-Match": r.headers["ETag"]})
    assert r.status_code == 200 and r.get_json()["version"] == 2 and r.headers["ETag"] == 'W/"2"'
    r = client.patch(url, json={"description": "Stale"}, headers={**headers, "If-Match": 'W/"1"'})
    assert r.status_code == 409 and r.get_json()["error"] == "version_conflict"
    r = client.patch(url, json={"description": "Any version"}, headers={**headers, "If-Match": "*"})
    assert r.status_code == 200 and r.get_json()["description"] == "Any version" and r.headers["ETag"] == 'W/"3"'
    r = client.get(f"{API}/permits", headers=headers)
    assert "ETag" not in r.headers  # a list is not a record


def test_json_over_a_kilobyte_is_gzip_compressed_for_clients_that_accept_it(client, factory, applicant):
    _, headers = applicant
    r = client.get(f"{API}/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in r.headers["Vary"]
    assert json.loads(gzip.decompress(r.get_data()))["openapi"].startswith("3.1")
    assert "Content-Encoding" not in client.get(f"{API}/openapi.json").headers
    for _ in range(4):
        _new_permit(client, factory, headers)
    r = client.get(f"{API}/permits", headers={**headers, "Accept-Encoding": "gzip"})
    assert r.headers["Content-Encoding"] == "gzip" and len(json.loads(gzip.decompress(r.get_data()))) == 4
    r = client.get(f"{API}/me", headers={**headers, "Accept-Encoding": "gzip"})  # small: sent as is
    assert r.status_code == 200 and "Content-Encoding" not in r.headers and r.get_json()["role"] == "applicant"


def test_sync_pull_is_compressed(client, factory):
    inspector = factory.user("inspector")
    for _ in range(4):
        factory.assign(factory.permit(status="issued"), inspector)
    headers = {**factory.headers(inspector, device_id="tab-1"), "Accept-Encoding": "gzip"}
    r = client.get(f"{API}/sync/pull", headers=headers)
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(r.get_data()))["changes"]


def test_json_body_under_another_content_type_is_415(client, factory, applicant):
    _, headers = applicant
    body = json.dumps(factory.permit_payload())
    r = client.post(f"{API}/permits", data=body, headers={**headers, "Content-Type": "text/plain"})
    assert r.status_code == 415, r.get_json()
    assert r.get_json()["error"] == "unsupported_media_type" and "application/json" in r.get_json()["message"]
    r = client.post(f"{API}/permits", data=body, headers={**headers, "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 201


def test_options_and_204_answers_carry_no_content_type_for_no_content(client, factory, applicant):
    _, headers = applicant
    r = client.options(f"{API}/permits")
    assert r.status_code == 200 and r.get_data() == b"" and "Content-Type" not in r.headers
    assert {"GET", "POST"} <= set(r.headers["Allow"].replace(" ", "").split(","))
    r = client.post(f"{API}/auth/logout", headers=headers)
    assert r.status_code == 204 and r.get_data() == b"" and "Content-Type" not in r.headers


def test_tus_honours_x_http_method_override(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(applicant=user)
    data = jpeg((64, 48))
    meta = {"photo_id": str(uuid.uuid4()), "permit_id": permit.id, "sha256": sha(data), "content_type": "image/jpeg"}
    tus = {**headers, "Tus-Resumable": "1.0.0"}
    r = client.post(f"{API}/uploads", headers={**tus, "Upload-Length": str(len(data)),
                                                "Upload-Metadata": encode_metadata(meta)})
    assert r.status_code == 201
    url = r.headers["Location"].split("localhost", 1)[-1]
    r = client.post(url, data=data[:10], headers={**tus, "X-HTTP-Method-Override": "PATCH", "Upload-Offset": "0",
                                                  "Content-Type": "application/offset+octet-stream"})
    assert r.status_code == 204 and r.headers["Upload-Offset"] == "10"
    r = client.post(url, headers={**tus, "X-HTTP-Method-Override": "HEAD"})
    assert r.status_code == 200 and r.headers["Upload-Offset"] == "10"
    r = client.post(url, headers={**tus, "X-HTTP-Method-Override": "DELETE"})
    assert r.status_code == 204
    assert client.head(url, headers=tus).status_code in (404, 410)
