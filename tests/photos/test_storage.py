"""The blob store protocol on both backends: content addresses, put-if-absent, strict keys, signed URLs."""
from __future__ import annotations

import hashlib
import urllib.request

import pytest

from inspect_api.storage import BlobStore, LocalBlobStore, S3BlobStore, blob_key, get_storage, store_from_url, validate_key

from .helpers import jpeg, put_photo


@pytest.fixture
def store(app) -> BlobStore:
    return get_storage()


def test_backend_matches_the_configuration(store, backend):
    assert isinstance(store, BlobStore)
    assert isinstance(store, LocalBlobStore if backend == "local" else S3BlobStore)


def test_put_only_if_absent_and_read_back(store, tmp_path):
    data = b"evidence bytes"
    key = blob_key(hashlib.sha256(data).hexdigest())
    source = tmp_path / "a"
    source.write_bytes(data)
    assert store.exists(key) is False
    assert store.put_file(source, key, "application/octet-stream") is True
    source.write_bytes(b"other bytes under the same key")
    assert store.put_file(source, key, "application/octet-stream") is False  # never rewritten
    with store.open(key) as handle:
        assert handle.read() == data
    assert store.size(key) == len(data) and store.exists(key)
    store.delete(key)
    assert store.exists(key) is False


@pytest.mark.parametrize("key", ["../etc/passwd", "/abs", "a//b", "a/../b", "A/B", "a/.hidden", "a b", "a\\b", "",
                                 "x" * 201, "sha256/ab/..", "uploads/\u00e9"])
def test_keys_are_strict(store, key, tmp_path):
    with pytest.raises(ValueError):
        validate_key(key)
    with pytest.raises(ValueError):
        store.exists(key)


def test_blob_key_shape():
    digest = hashlib.sha256(b"x").hexdigest()
    assert blob_key(digest) == f"sha256/{digest[:2]}/{digest[2:4]}/{digest}"
    assert blob_key(digest, ".small.jpg").endswith(".small.jpg")
    for bad in ("ABC", digest.upper(), digest[:-1]):
        with pytest.raises(ValueError):
            blob_key(bad)
    with pytest.raises(ValueError):
        blob_key(digest, "/../x")


def test_local_write_is_atomic_and_read_only(tmp_path):
    store = LocalBlobStore(tmp_path / "blobs")
    source = tmp_path / "src"
    source.write_bytes(b"abc")
    key = blob_key(hashlib.sha256(b"abc").hexdigest())
    store.put_file(source, key, "text/plain")
    assert list((tmp_path / "blobs" / ".tmp").iterdir()) == []  # no temporary left behind
    assert not store.local_path(key).stat().st_mode & 0o222
    assert store.presigned_url(key) is None


def test_store_from_url():
    assert isinstance(store_from_url("file:///tmp/x-blobs"), LocalBlobStore)
    s3 = store_from_url("s3://bucket/some/prefix", endpoint_url="http://127.0.0.1:1")
    assert (s3.bucket, s3.prefix) == ("bucket", "some/prefix")
    with pytest.raises(ValueError):
        store_from_url("ftp://host/x")


def test_original_is_served_byte_identical(client, factory, backend):
    user, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=user)
    data = jpeg((90, 60))
    body = put_photo(client, headers, permit.id, data).get_json()
    r = client.get(body["url"], headers=headers)
    if backend == "s3":
        assert r.status_code == 302 and r.headers["Cache-Control"] == "no-store"
        assert "X-Amz-Expires=300" in r.headers["Location"] and "X-Amz-Signature=" in r.headers["Location"]
        with urllib.request.urlopen(r.headers["Location"], timeout=10) as response:  # over HTTP, to moto
            assert response.read() == data
            assert response.headers["Content-Type"] == "image/jpeg"
    else:
        assert r.status_code == 200 and r.data == data
        assert r.headers["Content-Type"] == "image/jpeg" and r.headers["X-Content-SHA256"] == body["sha256"]
        assert r.headers["ETag"] == f'"{body["sha256"]}"'


def test_presigned_url_only_after_the_authorization_check(client, factory, backend):
    user, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=user)
    body = put_photo(client, headers, permit.id, jpeg()).get_json()
    _other, other_headers = factory.as_role("applicant")
    r = client.get(body["url"], headers=other_headers)
    assert r.status_code == 404 and "Location" not in r.headers
