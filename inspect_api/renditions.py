"""Stored renditions: a document rendered once (a PDF of records) is kept and answered again until
anything it shows changes.

- The key is the SHA-256 of the canonical JSON of (document kind, audience, inputs). The caller
  computes `inputs` from rows it loads anyway: every record the document shows, by id and version,
  plus whatever it shows that has no version (a name, a configured level). The audience is what
  decides what a viewer is shown (e.g. "applicant" or "staff"), so a viewer never receives a
  rendition made for viewers who see more.
- The bytes live in the blob store under `renditions/<kind>/<ab>/<key>.<ext>`. No table: the key is
  all there is to look up, the store answers "is it there" in one stat (or HEAD), and a rendition is
  derived data that can be made again, so the prefix may be emptied at any time.
- The key is the ETag. A GET computes the key first and answers 304 on a matching If-None-Match,
  else the stored bytes, else renders, stores and answers. Two requests that render the same key at
  once both store under it; the first write stands (`put_file` never replaces), and both answer the
  bytes that stand, so one ETag always names one sequence of bytes.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any, Callable

from flask import Response, request

from .errors import NotFound
from .http import PRIVATE_FILE_CACHE
from .storage import get_storage

PREFIX = "renditions"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Rendered:
    """What a renderer made. `keep=False`: the bytes are right for now but not for the key (a part
    was unreadable, e.g. a thumbnail not yet in the store), so they are answered and not stored."""
    data: bytes
    keep: bool = True


def rendition_key(kind: str, audience: str, inputs: Any) -> str:
    """The hex SHA-256 naming the rendition of `kind` for `audience` from `inputs` (JSON values)."""
    if not _NAME.fullmatch(kind) or not _NAME.fullmatch(audience):
        raise ValueError("a rendition kind and audience are lower-case names")
    canonical = json.dumps({"kind": kind, "audience": audience, "inputs": inputs}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def blob_name(kind: str, key: str, extension: str = "pdf") -> str:
    return f"{PREFIX}/{kind}/{key[:2]}/{key}.{extension}"


def _read(name: str) -> bytes | None:
    try:
        with get_storage().open(name) as handle:
            return handle.read()
    except NotFound:
        return None


def _store(name: str, data: bytes, content_type: str) -> bytes:
    """Store `data` under `name` unless a rendition is there already; the bytes that stand."""
    fd, path = tempfile.mkstemp(prefix="rendition-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        written = get_storage().put_file(path, name, content_type, owned=True)
    finally:
        os.unlink(path)
    if written:
        return data
    return _read(name) or data


def kept(kind: str, audience: str, inputs: Any, render: Callable[[], bytes | Rendered], *,
         extension: str = "pdf", content_type: str = "application/pdf") -> tuple[str, bytes]:
    """(key, bytes) of the rendition: the stored one, or `render()`'s, stored on the way."""
    key = rendition_key(kind, audience, inputs)
    name = blob_name(kind, key, extension)
    data = _read(name)
    if data is None:
        made = render()
        made = made if isinstance(made, Rendered) else Rendered(made)
        data = _store(name, made.data, content_type) if made.keep else made.data
    return key, data


def respond(kind: str, audience: str, inputs: Any, render: Callable[[], bytes | Rendered], *, filename: str,
            content_type: str = "application/pdf", extension: str = "pdf", disposition: str = "inline") -> Response:
    """The HTTP answer for a rendition: 304 when the client holds it (nothing read, nothing rendered),
    else its bytes with the key as a strong ETag, private and revalidated before reuse."""
    key = rendition_key(kind, audience, inputs)
    headers = {"ETag": f'"{key}"', "Cache-Control": PRIVATE_FILE_CACHE}
    if request.if_none_match.contains_weak(key):  # RFC 9110 13.1.2: If-None-Match compares weakly
        return Response(status=304, headers=headers)
    _, data = kept(kind, audience, inputs, render, extension=extension, content_type=content_type)
    return Response(data, mimetype=content_type, headers={
        **headers, "Content-Disposition": f'{disposition}; filename="{filename}"'})


__all__ = ["PREFIX", "Rendered", "blob_name", "kept", "rendition_key", "respond"]
