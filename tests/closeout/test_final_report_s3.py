"""Final report documents on S3 (moto's standalone server over HTTP): stored content-addressed, read back
through a signed URL after authorization, nothing stored from a rejected upload."""
import urllib.request

import pytest

from ..conftest import s3_test_config
from .conftest import pdf_bytes

pytestmark = pytest.mark.s3


@pytest.fixture
def config(_schema, moto_endpoint):
    return s3_test_config(_schema, moto_endpoint)


def _keys(app):
    from inspect_api.storage import get_storage
    store = get_storage()
    found = store.client.list_objects_v2(Bucket=store.bucket, Prefix=store.prefix + "/").get("Contents", [])
    return [obj["Key"][len(store.prefix) + 1:] for obj in found]


def test_document_on_s3(app, factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, stranger = factory.as_role("applicant")
    permit = closeout.permit("permit", applicant=applicant)
    r = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=headers)
    report_id = r.get_json()["id"]
    r = closeout.upload(report_id, b"<html>not a plan</html>", headers, content_type="application/octet-stream")
    assert r.status_code == 415 and _keys(app) == []
    pdf = pdf_bytes()
    r = closeout.upload(report_id, pdf, headers)
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    assert _keys(app) == [f"sha256/{doc['sha256'][:2]}/{doc['sha256'][2:4]}/{doc['sha256']}"]
    assert client.get(doc["url"], headers=stranger).status_code == 404
    r = client.get(doc["url"], headers=headers)
    assert r.status_code == 302 and r.headers["Location"].startswith("http://127.0.0.1")
    with urllib.request.urlopen(r.headers["Location"], timeout=30) as signed:
        assert signed.read() == pdf
