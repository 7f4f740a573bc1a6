"""A kept inspection report on S3 (moto's standalone server over HTTP): stored under renditions/,
answered from the bucket on the second request without rendering."""
import pytest

from inspect_api.reports import pdf
from inspect_api.storage import get_storage

from ..conftest import s3_test_config

pytestmark = pytest.mark.s3


@pytest.fixture
def config(_schema, moto_endpoint):
    return s3_test_config(_schema, moto_endpoint)


def test_a_report_is_kept_in_the_bucket(inspected, client, monkeypatch):
    calls = []
    real = pdf.render
    monkeypatch.setattr(pdf, "render", lambda data: calls.append(1) or real(data))
    url = f"/api/v1/inspections/{inspected.inspection_id}/report.pdf"
    first = client.get(url, headers=inspected.headers)
    assert first.status_code == 200 and first.data.startswith(b"%PDF-") and len(calls) == 1
    store = get_storage()
    found = store.client.list_objects_v2(Bucket=store.bucket, Prefix=f"{store.prefix}/renditions/")["Contents"]
    assert [obj["Key"].rsplit("/", 1)[-1] for obj in found] == [first.headers["ETag"].strip('"') + ".pdf"]
    again = client.get(url, headers=inspected.headers)
    assert again.status_code == 200 and again.data == first.data and len(calls) == 1
