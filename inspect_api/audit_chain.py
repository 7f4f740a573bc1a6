"""The audit log's evidence, as pure functions anyone can run offline (no database, no Flask).

- A row's hash: `row_hash_of(values)` is the hex SHA-256 of the canonical JSON of the row's content
  (ROW_FIELDS, its `id` and commit-order number `seq` included): keys sorted, no spaces, ASCII only,
  `at` as UTC "YYYY-MM-DDTHH:MM:SS.ffffffZ". Change any field and the hash changes.
- A seal's tree: `merkle_root(leaf_hashes)` is the RFC 6962 (Certificate Transparency) Merkle tree
  hash over the rows' hashes in `seq` order: a leaf is SHA-256(0x00 || the row hash's 32 bytes), an
  inner node SHA-256(0x01 || left || right), the tree split at the largest power of two below its
  size; the empty tree's hash is SHA-256 of nothing. `inclusion_proof` and `verify_inclusion` show
  that one row belongs to a sealed day without handing over the day's other rows (RFC 9162 2.1.3).
- A seal's own hash: `seal_hash_of(seal_fields)` over SEAL_FIELDS; each seal names the one before it
  (`prev_seal_hash`; the first names GENESIS), so the seals form one chain and no earlier day can be
  rewritten without changing every later seal's hash, the ones sent to the Town Clerk included.
"""
from __future__ import annotations

import hashlib
import json
from datetime import date, datetime, timezone
from typing import Any, Mapping, Sequence

ROW_FIELDS = ("id", "seq", "at", "actor_id", "device_id", "ip_address", "action", "record_type", "record_id",
              "permit_id", "changes")
SEAL_FIELDS = ("number", "day", "first_seq", "last_seq", "row_count", "merkle_root", "prev_seal_hash")
GENESIS = "0" * 64  # the prev_seal_hash of the first seal


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def instant(value: datetime | str) -> str:
    """An instant as the hashes spell it: UTC, microseconds, a trailing Z."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("an audit row's time must carry its zone")
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def row_hash_of(values: Mapping[str, Any]) -> str:
    """The hex SHA-256 of one audit row's content (every name in ROW_FIELDS must be present;
    `at` a timezone-aware datetime or an ISO 8601 string with its offset)."""
    missing = [name for name in ROW_FIELDS if name not in values]
    if missing:
        raise ValueError(f"an audit row needs {', '.join(missing)} to be hashed")
    content = {name: values[name] for name in ROW_FIELDS}
    content["at"] = instant(values["at"])
    content["seq"] = int(values["seq"])
    content["changes"] = values["changes"] if values["changes"] is not None else {}
    return hashlib.sha256(_canonical(content)).hexdigest()


def _leaf(row_hash: str) -> bytes:
    return hashlib.sha256(b"\x00" + bytes.fromhex(row_hash)).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two smaller than size (size > 1)."""
    k = 1
    while k << 1 < size:
        k <<= 1
    return k


def _tree(leaves: Sequence[bytes]) -> bytes:
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return _node(_tree(leaves[:k]), _tree(leaves[k:]))


def merkle_root(leaf_hashes: Sequence[str]) -> str:
    """RFC 6962 Merkle tree hash (hex) over row hashes (hex) in order."""
    return _tree([_leaf(h) for h in leaf_hashes]).hex()


def inclusion_proof(leaf_hashes: Sequence[str], index: int) -> list[str]:
    """The audit path (hex, leaf to root) showing leaf `index` is in the tree over `leaf_hashes`."""
    if not 0 <= index < len(leaf_hashes):
        raise IndexError(f"no leaf {index} in a tree of {len(leaf_hashes)}")

    def path(m: int, leaves: list[bytes]) -> list[bytes]:
        if len(leaves) == 1:
            return []
        k = _split(len(leaves))
        if m < k:
            return path(m, leaves[:k]) + [_tree(leaves[k:])]
        return path(m - k, leaves[k:]) + [_tree(leaves[:k])]

    return [p.hex() for p in path(index, [_leaf(h) for h in leaf_hashes])]


def verify_inclusion(leaf_hash: str, index: int, size: int, proof: Sequence[str], root: str) -> bool:
    """Does `proof` show the row hash `leaf_hash` at `index` of a tree of `size` leaves with `root`?
    (RFC 9162 2.1.3.2.)"""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    r = _leaf(leaf_hash)
    for p_hex in proof:
        p = bytes.fromhex(p_hex)
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _node(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r.hex() == root


def seal_hash_of(seal_fields: Mapping[str, Any]) -> str:
    """The hex SHA-256 of a seal's canonical JSON over SEAL_FIELDS (`day` a date or "YYYY-MM-DD")."""
    missing = [name for name in SEAL_FIELDS if name not in seal_fields]
    if missing:
        raise ValueError(f"a seal needs {', '.join(missing)} to be hashed")
    content = {name: seal_fields[name] for name in SEAL_FIELDS}
    day = content["day"]
    content["day"] = day.isoformat() if isinstance(day, date) else str(day)
    for name in ("number", "first_seq", "last_seq", "row_count"):
        content[name] = int(content[name])
    return hashlib.sha256(_canonical(content)).hexdigest()


__all__ = ["GENESIS", "ROW_FIELDS", "SEAL_FIELDS", "inclusion_proof", "instant", "merkle_root", "row_hash_of",
           "seal_hash_of", "verify_inclusion"]
