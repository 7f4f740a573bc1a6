"""The sync contract as pure functions (API.md "Sync"): cursors, outcomes, differing fields.

No database and no Flask here; the services feed these plain values.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

# 2: parties' contact details are withheld from inspectors not assigned to the permit (R-O0). A
# device that synced under format 1 holds them for every permit, so its cursor is answered "pull
# again without a cursor" (CursorOutdated), and the full pull that follows holds them withheld.
CURSOR_FORMAT = 2
# Fields every record carries that say nothing about what the user changed.
BOOKKEEPING = frozenset({"id", "version", "created_at", "updated_at", "created_by", "device_id"})
# A create may carry the device clock; an edit may not rewrite it.
CREATE_ONLY = frozenset({"device_created_at"})


class CursorInvalid(ValueError):
    """Not a cursor this server made (garbage, tampered, or from an unknown format)."""


class CursorOutdated(Exception):
    """A cursor this server signed in an earlier format: what it says the device holds may differ from
    what the device may hold today, so the device starts again from scratch."""


@dataclass(frozen=True)
class Cursor:
    """Where a device stands in the change sequence.

    `seq`: every change up to this number has been sent. `fresh_through`: set during a first sync
    (no cursor): deletions up to this number are skipped, since a new device holds nothing to
    delete. `expand_at`/`expand_after`: a scope change (an assignment) at sequence `expand_at`
    whose records were sent up to the record at sequence `expand_after`; the next page resumes it.
    The user and role bind the cursor to the scope it was computed for.
    """

    seq: int
    user_id: str
    role: str
    fresh_through: int | None = None
    expand_at: int | None = None
    expand_after: int | None = None

    def advanced(self, seq: int, *, expand: tuple[int, int] | None = None) -> "Cursor":
        fresh = self.fresh_through if self.fresh_through is not None and seq < self.fresh_through else None
        at, after = expand if expand else (None, None)
        return replace(self, seq=seq, fresh_through=fresh, expand_at=at, expand_after=after)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(payload: str, key: bytes) -> str:
    return _b64(hmac.new(key, b"sync-cursor:" + payload.encode("ascii"), hashlib.sha256).digest()[:18])


def encode_cursor(cursor: Cursor, key: bytes) -> str:
    body = {"v": CURSOR_FORMAT, "s": cursor.seq, "u": cursor.user_id, "r": cursor.role}
    if cursor.fresh_through is not None:
        body["f"] = cursor.fresh_through
    if cursor.expand_at is not None:
        body["x"] = [cursor.expand_at, cursor.expand_after]
    payload = _b64(json.dumps(body, separators=(",", ":")).encode("utf-8"))
    return f"{payload}.{_signature(payload, key)}"


def decode_cursor(token: str, key: bytes) -> Cursor:
    """The cursor inside `token`; CursorInvalid unless this server signed it."""
    try:
        payload, signature = token.split(".")
        if not hmac.compare_digest(signature, _signature(payload, key)):
            raise CursorInvalid("signature")
        body = json.loads(_unb64(payload))
        if isinstance(body.get("v"), int) and 1 <= body["v"] < CURSOR_FORMAT:
            raise CursorOutdated(str(body["v"]))
        if body.get("v") != CURSOR_FORMAT:
            raise CursorInvalid("format")
        expand = body.get("x") or (None, None)
        cursor = Cursor(seq=int(body["s"]), user_id=str(body["u"]), role=str(body["r"]),
                        fresh_through=None if body.get("f") is None else int(body["f"]),
                        expand_at=None if expand[0] is None else int(expand[0]),
                        expand_after=None if expand[1] is None else int(expand[1]))
    except (ValueError, KeyError, TypeError, IndexError, UnicodeError) as exc:
        raise CursorInvalid(str(exc)) from None
    if cursor.seq < 0:
        raise CursorInvalid("negative")
    return cursor


def cursor_expired(cursor: Cursor, purged_through: int) -> bool:
    """True when tombstones this cursor still needs may have been purged (410 cursor_expired).

    A first sync needs no deletions up to its starting point, so purging those never expires it."""
    needed_from = cursor.seq
    if cursor.fresh_through is not None:
        needed_from = max(needed_from, cursor.fresh_through)
    return purged_through > needed_from


def clamp_limit(requested: int | None, default: int, maximum: int) -> int:
    if requested is None:
        return min(default, maximum)
    return max(1, min(int(requested), maximum))


# --- pushed data ---------------------------------------------------------------------------------

def create_payload(record_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """What the create schema loads: the device's fields plus the record id it made."""
    payload = {k: v for k, v in data.items() if k not in BOOKKEEPING}
    payload["id"] = record_id
    return payload


def update_payload(data: dict[str, Any]) -> dict[str, Any]:
    """What the update schema loads: the changed fields only (the version travels as base_version)."""
    return {k: v for k, v in data.items() if k not in BOOKKEEPING and k not in CREATE_ONLY}


def id_mismatch(record_id: str, data: dict[str, Any]) -> bool:
    return "id" in data and data["id"] is not None and str(data["id"]).lower() != str(record_id).lower()


def _as_time(text: str) -> datetime | None:
    if len(text) < 19 or text[4] != "-" or text[10] not in "Tt ":
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    return value.astimezone(timezone.utc) if value.tzinfo else None


def normalise(value: Any) -> Any:
    """One spelling per value, so `...Z` equals `...+00:00` and 5 equals 5.0 when comparing."""
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, str):
        moment = _as_time(value)
        return moment.isoformat() if moment else value
    return str(value)


def differing_fields(device_data: dict[str, Any], server_record: dict[str, Any] | None) -> list[str]:
    """The fields the device sent whose value differs from the server's current one. Fields the
    server does not show (write-only or unknown) count as differing only if it has none at all."""
    if not server_record:
        return sorted(k for k in device_data if k not in BOOKKEEPING)
    return sorted(key for key, value in device_data.items()
                  if key not in BOOKKEEPING and key in server_record
                  and normalise(value) != normalise(server_record[key]))


def take_device_changes(device_data: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """take_device applies the device's values of the fields that differ, and only those."""
    return {key: device_data[key] for key in fields if key in device_data}
