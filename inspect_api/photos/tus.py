"""The tus 1.0 resumable upload protocol (https://tus.io/protocols/resumable-upload): header parsing
and the constants the server announces. Core protocol plus the creation, expiration, checksum and
termination extensions.

Protocol as served under /api/v1/uploads:
- OPTIONS /uploads           -> 204 Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Checksum-Algorithm.
- POST /uploads              Upload-Length, Upload-Metadata (base64 values: photo_id, permit_id, sha256,
                             content_type (or filetype), parent_type, parent_id, captured_at, device_lat,
                             device_lon, device_accuracy_m) -> 201, Location, Upload-Expires.
- HEAD /uploads/{id}         -> 200 Upload-Offset, Upload-Length (and Photo-Id once finished).
- PATCH /uploads/{id}        Content-Type: application/offset+octet-stream, Upload-Offset, optional
                             Upload-Checksum "<sha256|sha1> <base64 digest>" -> 204 Upload-Offset; the
                             PATCH that completes the upload answers 200 with the photo as JSON and a
                             Photo-Id header. Offset mismatch 409; chunk checksum mismatch 460.
- DELETE /uploads/{id}       -> 204 (termination).
Every request but OPTIONS carries Tus-Resumable: 1.0.0 (else 412).
"""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime
from email.utils import format_datetime

from ..errors import ApiError

TUS_VERSION = "1.0.0"
EXTENSIONS = ("creation", "expiration", "checksum", "termination")
CHECKSUM_ALGORITHMS = ("sha256", "sha1")
OFFSET_CONTENT_TYPE = "application/offset+octet-stream"
CHECKSUM_MISMATCH_STATUS = 460  # tus checksum extension: "Checksum Mismatch"
_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_DIGITS = re.compile(r"^[0-9]{1,19}$")


class TusError(ApiError):
    code, error, default_message = 400, "bad_request", "The tus request is not valid."


class TusVersionUnsupported(ApiError):
    code, error, default_message = 412, "tus_version_unsupported", "Send Tus-Resumable: 1.0.0."


class ChunkChecksumMismatch(ApiError):
    code, error = CHECKSUM_MISMATCH_STATUS, "checksum_mismatch"
    default_message = "The chunk does not match its Upload-Checksum; nothing of it was kept. Send it again."


def parse_int(value: str | None, header: str) -> int:
    if value is None or not _DIGITS.fullmatch(value.strip()):
        raise TusError(f"{header} must be a non-negative integer.", errors={header: ["Not a non-negative integer."]})
    return int(value.strip())


def parse_metadata(header: str | None) -> dict[str, str]:
    """`key base64value,key2 base64value2` -> {key: text}; a key may come without a value."""
    result: dict[str, str] = {}
    if not header or not header.strip():
        return result
    for pair in header.split(","):
        parts = pair.strip().split(" ")
        key = parts[0]
        if not _KEY.fullmatch(key) or key in result or len(parts) > 2:
            raise TusError("Upload-Metadata is not valid.", errors={"Upload-Metadata": [f"Bad pair {key[:64]!r}."]})
        try:
            result[key] = base64.b64decode(parts[1], validate=True).decode("utf-8") if len(parts) == 2 else ""
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise TusError("Upload-Metadata is not valid.",
                           errors={"Upload-Metadata": [f"The value of {key} is not base64 UTF-8."]}) from None
    return result


def encode_metadata(values: dict[str, str]) -> str:
    return ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in values.items())


def parse_checksum(header: str | None) -> tuple[str, bytes] | None:
    """`Upload-Checksum: sha256 <base64>` -> ("sha256", digest bytes); None when absent."""
    if header is None:
        return None
    parts = header.strip().split(" ")
    if len(parts) != 2 or parts[0].lower() not in CHECKSUM_ALGORITHMS:
        raise TusError("Upload-Checksum must be '<algorithm> <base64 digest>' with sha256 or sha1.",
                       errors={"Upload-Checksum": [f"Supported: {', '.join(CHECKSUM_ALGORITHMS)}."]})
    try:
        digest = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        raise TusError("Upload-Checksum digest is not base64.", errors={"Upload-Checksum": ["Not base64."]}) from None
    return parts[0].lower(), digest


def http_date(value: datetime) -> str:
    return format_datetime(value, usegmt=True)


def discovery_headers(max_size: int) -> dict[str, str]:
    return {"Tus-Resumable": TUS_VERSION, "Tus-Version": TUS_VERSION, "Tus-Extension": ",".join(EXTENSIONS),
            "Tus-Max-Size": str(max_size), "Tus-Checksum-Algorithm": ",".join(CHECKSUM_ALGORITHMS)}
