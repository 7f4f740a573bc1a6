"""Receiving request bodies without holding them in memory, and recognising files by their bytes.

A body is copied in small chunks from the WSGI stream to a temporary file while its digests are
computed, so a 40 MB photo costs one chunk of memory, not 40 MB. Past `max_bytes` the copy stops,
the partial file is removed and 413 is raised; a client that disconnects mid-body leaves nothing
either (werkzeug raises ClientDisconnected from the short stream and the temp file is removed).

A body also has to keep pace: between chunks the copy checks UPLOAD_MAX_SECONDS (the whole body)
and, once UPLOAD_RATE_GRACE_SECONDS have passed, UPLOAD_MIN_BYTES_PER_SECOND (the average so far),
and drops a body that breaks either with 408. A slow client then holds a worker for a bounded time,
and never anything in the database: callers end their transaction before the copy starts. Reads
are sized to what the client has been sending (about half a second of it), so the checks run often
however slowly bytes arrive; a read that stalls completely ends at the socket timeout set for it
(the time left before the body would break the pace; also 408).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

from flask import current_app, has_app_context, has_request_context, request

from .errors import PayloadTooLarge, RequestTimeout

HEAD_BYTES = 64
TEMP_PREFIX = "upload-"
# The smallest read while a client is slow: a check at least every MIN_READ bytes.
MIN_READ = 1024


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


@dataclass(frozen=True)
class Pace:
    """How fast a body must arrive: at least `min_bytes_per_second` on average once `grace_seconds`
    have passed (0: no minimum), and all of it within `max_seconds` (0: no limit)."""

    min_bytes_per_second: int = 0
    grace_seconds: float = 0
    max_seconds: float = 0

    @classmethod
    def configured(cls) -> "Pace":
        if not has_app_context():
            return cls()
        config = current_app.config
        return cls(int(config.get("UPLOAD_MIN_BYTES_PER_SECOND") or 0),
                   float(config.get("UPLOAD_RATE_GRACE_SECONDS") or 0), float(config.get("UPLOAD_MAX_SECONDS") or 0))

    def check(self, size: int, elapsed: float) -> None:
        if self.max_seconds and elapsed > self.max_seconds:
            raise RequestTimeout(f"The body took longer than {self.max_seconds:g} seconds to arrive.")
        if self.min_bytes_per_second and elapsed > self.grace_seconds and size < self.min_bytes_per_second * elapsed:
            raise RequestTimeout(f"The body arrived slower than {self.min_bytes_per_second} bytes a second.")

    def wait_limit(self, size: int, elapsed: float) -> float | None:
        """How long the next read may wait with nothing arriving before the body breaks the pace
        (at least a second); None when no pace is set."""
        limits = []
        if self.max_seconds:
            limits.append(self.max_seconds)
        if self.min_bytes_per_second:
            limits.append(max(self.grace_seconds, (size + MIN_READ) / self.min_bytes_per_second))
        return max(1.0, min(limits) - elapsed) if limits else None

    def read_size(self, size: int, elapsed: float, chunk_size: int) -> int:
        """About half a second of what the client has sent so far, between MIN_READ and `chunk_size`
        (a read returns only once it is full, so a big read from a slow client would delay the checks).
        The pace is averaged over at least a second: the first bytes often arrive with the headers,
        and would make any client look fast."""
        if not (self.min_bytes_per_second or self.max_seconds):
            return chunk_size
        rate = size / max(elapsed, 1.0)
        return max(min(MIN_READ, chunk_size), min(chunk_size, int(rate / 2)))


def _client_socket():
    """The connection the request's body comes from, when the server says (gunicorn and werkzeug
    do), so a read can be given a timeout: neither sets one on its own."""
    if not has_request_context():
        return None
    sock = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    return sock if hasattr(sock, "settimeout") and hasattr(sock, "gettimeout") else None


def _timed_out(exc: BaseException) -> bool:
    """A read ended by the socket timeout: the error itself, or werkzeug's ClientDisconnected raised
    while handling it."""
    return isinstance(exc, TimeoutError) or isinstance(exc.__context__, TimeoutError)


def receive_to_tempfile(stream: BinaryIO, max_bytes: int, *, chunk_size: int = 1 << 16,
                        dir: Path | None = None, algorithms: Iterable[str] = (),
                        pace: Pace | None = None) -> Received:
    """Copy `stream` to a new temporary file, hashing as it goes (SHA-256 always, plus any of
    `algorithms`, e.g. "sha1" for tus checksums). Raises PayloadTooLarge past `max_bytes` and
    RequestTimeout when the body does not keep `pace` (by default the configured one)."""
    pace = pace or Pace.configured()
    sha256 = hashlib.sha256()
    extra = {name: hashlib.new(name) for name in algorithms if name != "sha256"}
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".part", dir=str(dir or temp_dir()))
    path = Path(name)
    size, head = 0, b""
    started = time.monotonic()
    sock = _client_socket() if pace.wait_limit(0, 0) is not None else None
    kept_timeout = sock.gettimeout() if sock is not None else None
    try:
        with os.fdopen(fd, "wb") as out:
            while True:
                elapsed = time.monotonic() - started
                if sock is not None:
                    # A read that stalls completely ends at this timeout (408), not after hours.
                    sock.settimeout(pace.wait_limit(size, elapsed))
                try:
                    chunk = stream.read(pace.read_size(size, elapsed, chunk_size))
                except Exception as exc:
                    if _timed_out(exc):
                        raise RequestTimeout("The body stopped arriving.") from None
                    raise
                if not chunk:
                    break
                size += len(chunk)
                pace.check(size, time.monotonic() - started)
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
    finally:
        if sock is not None:
            try:
                sock.settimeout(kept_timeout)
            except OSError:
                pass
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


__all__ = ["Pace", "Received", "receive_to_tempfile", "sniff_type", "temp_dir", "HEAD_BYTES"]
