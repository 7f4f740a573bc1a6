"""Rendering a pull page as JSON text.

An upsert's data is its snapshot (sync_snapshots) when the snapshot was taken at the same feed
number, spliced in as stored; otherwise the record is loaded (one query per entity for the page)
and dumped live. Entities whose dump depends on the Town's clock (adapter.clock_fields) are always
dumped live, so pull and GET agree on every flag computed from today. Either way the domain's own visible_<plural> decides first whether the caller may
see it; one it may not see (an applicant and a draft inspection) goes as a delete. A delete carries no data.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from sqlalchemy import select

from ..extensions import db
from ..paging import chunks
from . import registry
from .models import SyncSnapshot
from .snapshots import to_json

S = SyncSnapshot


def _visible_snapshots(user, adapter: registry.EntityAdapter, ids: list[str]) -> dict[str, tuple[int, str]]:
    """Snapshots of the records among `ids` the caller may see (the domain's visible_<plural>
    decides, as a subquery), one query per chunk of ids."""
    found = {}
    for chunk in chunks(ids, registry.IN_CHUNK):
        visible = adapter.visible(user).with_only_columns(adapter.model.id).where(adapter.model.id.in_(chunk))
        query = select(S.record_id, S.seq, S.data).where(S.entity == adapter.entity, S.record_id.in_(visible))
        found.update({row.record_id: (row.seq, row.data) for row in db.session.execute(query)})
    return found


def _data(user, entity: str, wanted: dict[str, tuple[int, int]]) -> dict[str, tuple[int, str]]:
    """record id -> (version, data as JSON text) for the records of `entity` the caller may see."""
    adapter = registry.get(entity)
    out, live = {}, []
    if adapter.clock_fields:
        # Its dump holds values computed from the Town's clock (an order overdue since its deadline
        # passed): a snapshot taken at an earlier commit would serve them stale, so pull dumps it now,
        # exactly as GET does.
        live = list(wanted)
        for record_id, record in adapter.load_visible(user, live).items():
            out[record_id] = (record.version, to_json(adapter.dump(record)))
        return out
    snaps = _visible_snapshots(user, adapter, list(wanted))
    for record_id, (version, seq) in wanted.items():
        snap = snaps.get(record_id)
        if snap is not None and snap[0] == seq:
            out[record_id] = (version, snap[1])
        else:  # no snapshot for this number, or one the caller may not see: the domain decides again
            live.append(record_id)
    for record_id, record in adapter.load_visible(user, live).items():
        out[record_id] = (record.version, to_json(adapter.dump(record)))
    return out


def render_parts(user, entries: Iterable[tuple], fresh_through: int | None = None) -> list[str | None]:
    """Each entry's JSON text, in page order. An upsert the caller may not (or no longer) see goes as
    a delete, so a device never keeps what it may no longer read; during a first sync (up to
    `fresh_through`, where the device holds nothing) it is left out (None)."""
    entries = list(entries)
    wanted: dict[str, dict[str, Any]] = {}
    for entity, record_id, op, version, seq in entries:
        if op == "upsert":
            wanted.setdefault(entity, {})[record_id] = (version, seq)
    data = {entity: _data(user, entity, ids) for entity, ids in wanted.items()}
    parts: list[str | None] = []
    for entity, record_id, op, version, seq in entries:
        head = f'{{"entity":{json.dumps(entity)},"id":{json.dumps(record_id)},"op":"{op}","version":'
        if op == "delete":
            parts.append(f'{head}{int(version)},"data":null}}')
            continue
        found = data[entity].get(record_id)
        if found is not None:
            parts.append(f'{head}{int(found[0])},"data":{found[1]}}}')
        elif fresh_through is not None and seq <= fresh_through:
            parts.append(None)
        else:
            # Not (or no longer) for this caller, though the feed row is in their scope: a record on
            # a permit they see that they may not read now (an inspection returned to its inspector).
            # A device that held it drops it; one that never did deletes nothing.
            head = head.replace('"op":"upsert"', '"op":"delete"')
            parts.append(f'{head}{int(version)},"data":null}}')
    return parts


def fitting(parts: list[str | None], max_bytes: int) -> int:
    """How many leading entries fit in `max_bytes` of page text (at least one, so a single record
    larger than the cap still goes, alone)."""
    used = 0
    for count, part in enumerate(parts):
        size = len(part.encode("utf-8")) + 1 if part is not None else 0
        if count and used + size > max_bytes:
            return count
        used += size
    return len(parts)


def assemble(parts: Iterable[str | None], cursor: str, has_more: bool) -> str:
    return (f'{{"changes":[{",".join(p for p in parts if p is not None)}],"cursor":{json.dumps(cursor)},'
            f'"has_more":{"true" if has_more else "false"}}}')
