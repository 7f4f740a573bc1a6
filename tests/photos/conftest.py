"""Photo fixtures: every API test here runs twice, once on the local blob folder and once on S3
(moto's standalone server over HTTP on 127.0.0.1, started once per session)."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from inspect_api.config import TestConfig
from inspect_api.storage import LocalBlobStore, get_storage

from ..conftest import S3_TEST_BUCKET as BUCKET


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def backend(request):
    return request.param


@pytest.fixture
def config(backend, _schema, tmp_path, request):
    overrides = {"UPLOAD_TEMP_DIR": str(tmp_path / "upload-tmp")}
    if backend == "s3":
        endpoint = request.getfixturevalue("moto_endpoint")
        overrides.update(STORAGE_URL=f"s3://{BUCKET}/t-{uuid.uuid4().hex[:12]}", S3_ENDPOINT_URL=endpoint)
    else:
        overrides["STORAGE_URL"] = (tmp_path / "blobs").as_uri()
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, **overrides)


def blob_keys(app) -> list[str]:
    """Every key in the app's blob store (the S3 prefix or the local folder)."""
    with app.app_context():
        store = get_storage()
        if isinstance(store, LocalBlobStore):
            return sorted(str(p.relative_to(store.root)) for p in store.root.rglob("*")
                          if p.is_file() and ".tmp" not in p.relative_to(store.root).parts)
        pages = store.client.get_paginator("list_objects_v2").paginate(Bucket=store.bucket, Prefix=store.prefix + "/")
        return sorted(obj["Key"][len(store.prefix) + 1:] for page in pages for obj in page.get("Contents", []))


def temp_files(app) -> list[Path]:
    folder = Path(app.config["UPLOAD_TEMP_DIR"])
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def stored(app):
    return lambda: blob_keys(app)


@pytest.fixture
def leftovers(app):
    return lambda: temp_files(app)
