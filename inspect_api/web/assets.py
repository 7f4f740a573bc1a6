"""The field app's files as they go out: read once, compressed once per encoding (brotli and gzip),
and kept in memory by path, size and modification time. The cache holds only what any process can
rebuild from the files, so processes stay interchangeable; a changed file is a new key.

The files at fixed addresses (`/`, `/sw.js`, the manifest) are sent with the current version written
into their `/static/pwa/` paths, so they always name the version's own, immutable files; modules
import their neighbours relatively and need no rewriting.
"""
from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import brotli

# Tried in this order when the client weighs them alike: brotli is about 15% smaller on the app's
# modules than gzip, and every browser that runs the app sends it.
ENCODINGS = ("br", "gzip")
COMPRESSIBLE = {".html", ".js", ".css", ".svg", ".webmanifest"}
# Below this, compression saves less than a header costs.
MIN_SIZE = 256
_VERSION = re.compile(r'export const VERSION = "([^"]+)"')
PREFIX = b"/static/pwa/"


@dataclass(frozen=True)
class Variant:
    body: bytes
    etag: str


@dataclass(frozen=True)
class Asset:
    variants: dict[str, Variant]  # "identity" and each encoding that pays


def version_of(root: Path) -> str:
    """The app's version, as version.js (the one place it is set) says."""
    path = root / "version.js"
    stat = path.stat()
    return _read_version(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read_version(path: str, _mtime_ns: int, _size: int) -> str:
    match = _VERSION.search(Path(path).read_text(encoding="utf-8"))
    if not match:
        raise RuntimeError(f"{path} sets no VERSION")
    return match.group(1)


def load(path: Path, version: str | None = None) -> Asset:
    """The file's variants; with `version`, its /static/pwa/ paths point into that version."""
    stat = path.stat()
    return _load(str(path), stat.st_mtime_ns, stat.st_size, version)


@lru_cache(maxsize=256)
def _load(path: str, _mtime_ns: int, _size: int, version: str | None) -> Asset:
    data = Path(path).read_bytes()
    if version is not None:
        data = data.replace(PREFIX, PREFIX + version.encode() + b"/")
    digest = hashlib.sha256(data).hexdigest()[:20]
    variants = {"identity": Variant(data, digest)}
    if Path(path).suffix in COMPRESSIBLE and len(data) >= MIN_SIZE:
        for encoding, packed in (("br", brotli.compress(data, quality=11)), ("gzip", gzip.compress(data, 9, mtime=0))):
            if len(packed) < len(data):
                variants[encoding] = Variant(packed, f"{digest}-{encoding}")
    return Asset(variants)


def choose(asset: Asset, accept_encodings) -> str:
    """The encoding to send: the client's best among those the file has (werkzeug's parsed
    Accept-Encoding, which honours q=0), else the file as it is."""
    offered = [e for e in ENCODINGS if e in asset.variants]
    return accept_encodings.best_match(offered) or "identity"
