"""Receiving request bodies without holding them in memory, and recognising files by their bytes.

A body is copied in small chunks from the WSGI stream to a temporary file while its digests are
computed, so a 40 MB photo costs one chunk of memory, not 40 MB. Past `max_bytes` the copy stops,
the partial file is removed and 413 is raised; a client that disconnects mid-body leaves nothing
either (werkzeug raises ClientDisconnected from the short stream and the temp file is removed).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

from flask import current_app, has_app_context

from .errors import PayloadTooLarge

HEAD_BYTES = 64
TEMP_PREFIX = "upload-"


@dataclass
class Received:
    """A body on disk: its path, SHA-256 (hex), size and first bytes. Use as a context manager so
    the temporary file is removed however the caller leaves."""

    path: Path
    sha256: str
    size: int
    head: bytes = b""
    digests: dict[str, str] = field(default_factory=dict)

    def discard(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def __enter__(self) -> "Received":
        return self

    def __exit__(self, *_exc) -> None:
        self.discard()


def temp_dir() -> Path:
    """Where bodies are spooled: UPLOAD_TEMP_DIR, else `tmp` in the instance folder (the same disk
    as the default blob folder, so storing is a rename rather than a copy)."""
    if has_app_context():
        configured = current_app.config.get("UPLOAD_TEMP_DIR")
        folder = Path(configured) if configured else Path(current_app.instance_path, "tmp")
    else:
        folder = Path(tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def receive_to_tempfile(stream: BinaryIO, max_bytes: int, *, chunk_size: int = 1 << 16,
                        dir: Path | None = None, algorithms: Iterable[str] = ()) -> Received:
    """Copy `stream` to a new temporary file, hashing as it goes (SHA-256 always, plus any of
    `algorithms`, e.g. "sha1" for tus checksums). Raises PayloadTooLarge past `max_bytes`."""
    sha256 = hashlib.sha256()
    extra = {name: hashlib.new(name) for name in algorithms if name != "sha256"}
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".part", dir=str(dir or temp_dir()))
    path = Path(name)
    size, head = 0, b""
    try:
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = stream.read(chunk_size)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise PayloadTooLarge(f"The body is larger than the limit of {max_bytes} bytes.")
                if len(head) < HEAD_BYTES:
                    head += chunk[:HEAD_BYTES - len(head)]
                sha256.update(chunk)
                for digest in extra.values():
                    digest.update(chunk)
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    digests = {name: d.hexdigest() for name, d in extra.items()}
    digests["sha256"] = sha256.hexdigest()
    return Received(path=path, sha256=digests["sha256"], size=size, head=head, digests=digests)


_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1"}
_AVIF_BRANDS = {b"avif", b"avis"}


def _iso_brands(head: bytes) -> set[bytes]:
    box_size = int.from_bytes(head[0:4], "big")
    end = min(max(box_size, 16), len(head))
    brands = {head[8:12]}
    brands.update(head[i:i + 4] for i in range(16, end - 3, 4))
    return brands


def sniff_type(head: bytes) -> str | None:
    """The file type from its magic bytes: "image/jpeg", "image/png", "image/webp", "image/heic"
    (any HEIF still image), "application/pdf", or None. The declared Content-Type is never trusted."""
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if len(head) >= 12 and head[0:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brands = _iso_brands(head)
        # AVIF shares the HEIF container (and often the mif1 brand) but is not an accepted type.
        if head[8:12] in _AVIF_BRANDS:
            return None
        if brands & _HEIF_BRANDS:
            return "image/heic"
        return None
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    return None


__all__ = ["Received", "receive_to_tempfile", "sniff_type", "temp_dir", "HEAD_BYTES"]
