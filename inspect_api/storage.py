"""The blob store: one protocol, two backends (a local folder by default, S3 through boto3).

Keys are made by the app only (`blob_key`), and every key is checked against a strict pattern
before any path or object name is built from it, so no user input can reach the file system.
Content-addressed keys (`sha256/ab/cd/<hex>`) make identical bytes land once: `put_file` writes
only when the key is absent. Stored bytes are never rewritten (evidence, DOMAIN.md "Evidence").

STORAGE_URL: `file:///path/to/folder` (default: `blobs` in the instance folder) or
`s3://bucket/prefix` (with S3_ENDPOINT_URL for an S3-compatible service and the usual AWS_* variables).
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO, Protocol, runtime_checkable
from urllib.parse import unquote, urlparse

from flask import current_app

from .errors import NotFound

KEY_PATTERN = re.compile(r"^[a-z0-9]+(?:/[a-z0-9][a-z0-9_-]*)*(?:\.[a-z0-9_-]+)*$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SUFFIX = re.compile(r"^(?:\.[a-z0-9_-]+)*$")
MAX_KEY_LENGTH = 200


def validate_key(key: str) -> str:
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not KEY_PATTERN.fullmatch(key) or ".." in key:
        raise ValueError(f"invalid blob key {key!r}")
    return key


def blob_key(sha256_hex: str, suffix: str = "") -> str:
    """The content address of bytes with this SHA-256: `sha256/ab/cd/<hex><suffix>`; a suffix such as
    ".display.jpg" names a derivative made from those bytes."""
    if not _HEX64.fullmatch(sha256_hex or "") or not _SUFFIX.fullmatch(suffix):
        raise ValueError("blob_key needs a lower-case SHA-256 hex digest and a plain suffix")
    return f"sha256/{sha256_hex[:2]}/{sha256_hex[2:4]}/{sha256_hex}{suffix}"


# Blob writes asked for in this context (a thread or task), by any store: what code that may roll
# its transaction back reads to know whether work outside the transaction was done meanwhile.
_writes: ContextVar[int] = ContextVar("inspect_api.storage.writes", default=0)


def writes() -> int:
    """How many blob writes this context has asked for so far."""
    return _writes.get()


def _count_write() -> None:
    _writes.set(_writes.get() + 1)


@runtime_checkable
class BlobStore(Protocol):
    def put_file(self, path: Path | str, key: str, content_type: str, *, owned: bool = False) -> bool:
        """Store the file at `path` under `key` unless the key exists; True when written. `owned`:
        the caller never writes to `path` again (it only deletes it), so a store on the same disk
        may take the file by hard link instead of copying it."""

    def open(self, key: str) -> BinaryIO: ...

    def exists(self, key: str) -> bool: ...

    def delete(self, key: str) -> None: ...

    def size(self, key: str) -> int: ...

    def presigned_url(self, key: str, *, filename: str | None = None,
                      content_type: str | None = None) -> str | None: ...


class LocalBlobStore:
    """A folder. Writes go to a temporary name inside the store and are moved into place with
    os.replace, so a reader never sees half a file and a crash leaves no partial blob."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self._tmp = self.root / ".tmp"
        self._tmp.mkdir(exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.root.joinpath(*validate_key(key).split("/"))

    def put_file(self, path: Path | str, key: str, content_type: str, *, owned: bool = False) -> bool:
        _count_write()
        target = self._path(key)
        if target.exists():
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        if owned:
            try:
                os.chmod(path, 0o444)
                os.link(path, target)  # atomic, no copy, and never replaces a blob already there
                return True
            except FileExistsError:
                return False
            except OSError:
                pass  # another disk, or no hard links: copy instead
        fd, tmp_name = tempfile.mkstemp(dir=str(self._tmp), prefix="put-")
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            # A copy, not a hard link: the stored bytes must not share an inode the caller could
            # still write to. copyfile uses the kernel's copy_file_range/sendfile where it can.
            shutil.copyfile(path, tmp)
            os.chmod(tmp, 0o444)
            try:
                os.link(tmp, target)  # atomic, and refuses to replace a blob a racing request stored
            except FileExistsError:
                return False
            except OSError:  # a file system without hard links: atomic replace of identical bytes
                os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return True

    def open(self, key: str) -> BinaryIO:
        try:
            return self._path(key).open("rb")
        except FileNotFoundError:
            raise NotFound("The stored file is missing.") from None

    def local_path(self, key: str) -> Path:
        return self._path(key)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def size(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            raise NotFound("The stored file is missing.") from None

    def presigned_url(self, key: str, *, filename: str | None = None,
                      content_type: str | None = None) -> str | None:
        return None


class S3BlobStore:
    """An S3 bucket (or S3-compatible service) under a key prefix."""

    def __init__(self, bucket: str, prefix: str = "", *, endpoint_url: str | None = None,
                 expires_in: int = 300, client=None) -> None:
        # Imported here, not at the top: only an S3 store needs boto3, and importing it adds about a
        # quarter of a second to every start of a process that stores files locally (the default).
        import boto3
        from botocore.config import Config as BotoConfig
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.expires_in = expires_in
        self.client = client or boto3.client(
            "s3", endpoint_url=endpoint_url,
            config=BotoConfig(signature_version="s3v4", retries={"max_attempts": 3, "mode": "standard"}))

    def _name(self, key: str) -> str:
        validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _missing(self, exc) -> bool:
        code = str(exc.response.get("Error", {}).get("Code", ""))
        return code in ("404", "NoSuchKey", "NotFound")

    def put_file(self, path: Path | str, key: str, content_type: str, *, owned: bool = False) -> bool:
        _count_write()
        if self.exists(key):
            return False
        self.client.upload_file(str(path), self.bucket, self._name(key), ExtraArgs={"ContentType": content_type})
        return True

    def open(self, key: str) -> BinaryIO:
        ClientError = self.client.exceptions.ClientError
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._name(key))["Body"]
        except ClientError as exc:
            if self._missing(exc):
                raise NotFound("The stored file is missing.") from None
            raise

    def exists(self, key: str) -> bool:
        ClientError = self.client.exceptions.ClientError
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._name(key))
            return True
        except ClientError as exc:
            if self._missing(exc):
                return False
            raise

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self._name(key))

    def size(self, key: str) -> int:
        ClientError = self.client.exceptions.ClientError
        try:
            return int(self.client.head_object(Bucket=self.bucket, Key=self._name(key))["ContentLength"])
        except ClientError as exc:
            if self._missing(exc):
                raise NotFound("The stored file is missing.") from None
            raise

    def presigned_url(self, key: str, *, filename: str | None = None,
                      content_type: str | None = None) -> str | None:
        params = {"Bucket": self.bucket, "Key": self._name(key)}
        if filename:
            safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)[:100]
            params["ResponseContentDisposition"] = f'inline; filename="{safe}"'
        if content_type:
            params["ResponseContentType"] = content_type
        # Every blob is private evidence: the bucket's answer, too, is revalidated before reuse.
        params["ResponseCacheControl"] = "private, no-cache"
        return self.client.generate_presigned_url("get_object", Params=params, ExpiresIn=self.expires_in)


def store_from_url(url: str, *, endpoint_url: str | None = None, expires_in: int = 300) -> BlobStore:
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return LocalBlobStore(unquote(parsed.path))
    if parsed.scheme == "s3":
        if not parsed.netloc:
            raise ValueError("STORAGE_URL s3://bucket/prefix needs a bucket")
        return S3BlobStore(parsed.netloc, parsed.path, endpoint_url=endpoint_url, expires_in=expires_in)
    if parsed.scheme == "" and url:
        return LocalBlobStore(url)
    raise ValueError(f"unsupported STORAGE_URL scheme {parsed.scheme!r}")


def get_storage() -> BlobStore:
    """The app's blob store, built once per app from STORAGE_URL and S3_ENDPOINT_URL."""
    app = current_app._get_current_object()
    url = app.config["STORAGE_URL"]
    cached = app.extensions.get("blob_store")
    if cached is None or cached[0] != url:
        store = store_from_url(url, endpoint_url=app.config.get("S3_ENDPOINT_URL"),
                               expires_in=int(app.config.get("PRESIGNED_URL_SECONDS", 300)))
        cached = (url, store)
        app.extensions["blob_store"] = cached
    return cached[1]


__all__ = ["BlobStore", "LocalBlobStore", "S3BlobStore", "blob_key", "get_storage", "store_from_url",
           "validate_key", "writes", "KEY_PATTERN"]
