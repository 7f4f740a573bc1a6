"""Private files are revalidated, never served from a browser cache unasked (API.md "Photos"):
`Cache-Control: private, no-cache` with the ETag, and a conditional GET answers 304."""
from __future__ import annotations

import hashlib
import urllib.request

import pytest


from .helpers import jpeg, put_photo


@pytest.fixture
def photo(client, factory):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant)
    r = put_photo(client, headers, permit.id, jpeg((640, 480)))
    assert r.status_code == 201, r.get_json()
    return r.get_json(), headers


@pytest.mark.parametrize("which, etag", [("url", "{sha}"), ("thumbnail_url", "{sha}-display"),
                                         ("small_thumbnail_url", "{sha}-small")])
def test_photo_files_are_private_no_cache_with_etag_and_revalidate(client, factory, photo, which, etag, backend):
    body, headers = photo
    first = client.get(body[which], headers=headers)
    if backend == "s3":  # a short-lived signed URL; the bucket's answer carries the same policy
        assert first.status_code == 302 and first.headers["Cache-Control"] == "no-store"
        with urllib.request.urlopen(first.headers["Location"], timeout=10) as signed:
            assert signed.headers["Cache-Control"] == "private, no-cache" and signed.read()
        return
    assert first.status_code == 200 and first.data
    assert first.headers["Cache-Control"] == "private, no-cache"
    assert first.headers["ETag"] == '"' + etag.format(sha=body["sha256"]) + '"'
    again = client.get(body[which], headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["Cache-Control"] == "private, no-cache" and again.headers["ETag"] == first.headers["ETag"]
    # the revalidation is still an authorised request: another account gets 404, cached copy or not
    _, stranger = factory.as_role("applicant")
    r = client.get(body[which], headers={**stranger, "If-None-Match": first.headers["ETag"]})
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_final_report_documents_are_private_no_cache_with_etag(client, factory, backend):
    if backend == "s3":
        pytest.skip("documents on S3 are a signed-URL redirect, covered by the photo case above")
    from tests.closeout.conftest import pdf_bytes
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant, status="active", disturbed_area_sqft=30000)
    r = client.post("/api/v1/final-reports", json={"permit_id": permit.id}, headers=headers)
    assert r.status_code == 201, r.get_json()
    pdf = pdf_bytes()
    r = client.post(f"/api/v1/final-reports/{r.get_json()['id']}/documents", data=pdf,
                    query_string={"kind": "as_built_plan", "filename": "plan.pdf"},
                    headers={**headers, "Content-Type": "application/pdf",
                             "X-Content-SHA256": hashlib.sha256(pdf).hexdigest()})
    assert r.status_code == 201, r.get_json()
    url = r.get_json()["url"]
    got = client.get(url, headers=headers)
    assert got.status_code == 200 and got.data == pdf
    assert got.headers["Cache-Control"] == "private, no-cache"
    assert got.headers["ETag"] == f'"{hashlib.sha256(pdf).hexdigest()}"'
    again = client.get(url, headers={**headers, "If-None-Match": got.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "private, no-cache"
