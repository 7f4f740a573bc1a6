"""Records sent back as they were read (API.md "Sync": pull, edit, push round-trips).

A device, or a REST client, may send a record back in exactly the shape GET or pull gave it, read-only
fields and all, with the fields it edits changed. Sync settles such data against the stored record:
for a push and a conflict resolution itself, and for a PATCH through the request parser (install),
before the update schema loads the body.
"""
from __future__ import annotations

import json
from functools import partial
from typing import Any, Callable, Iterable

from flask import request
from flask_jwt_extended import current_user

from ..errors import ValidationFailed
from ..http import settle_patch_body
from .registry import EntityAdapter
from .rules import normalise
from .snapshots import to_json


def editable_keys(schema: Any) -> set[str]:
    """The keys a create or update schema takes: what a client may write."""
    return {key for name, f in schema.fields.items() if not f.dump_only for key in (name, f.data_key or name)}


def stored_form(dump: Callable[[Any], dict], record: Any) -> dict[str, Any]:
    """The record as GET and pull answer it, as plain JSON values."""
    return json.loads(to_json(dump(record)))


def _without(value: Any, inner: list[str]) -> Any:
    """`value` (a dict or a list of dicts) without the keys in `inner`."""
    if isinstance(value, list):
        return [_without(item, inner) for item in value]
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in inner}
    return value


def settle_read_only(data: dict[str, Any], stored: dict[str, Any], schema: Any, *,
                     clock_fields: tuple[str, ...] = (),
                     dropped_if_absent: frozenset[str] | set[str] = frozenset(),
                     drop_unchanged: bool = False) -> dict[str, Any]:
    """`data` without the read-only fields a client sent back unchanged, so a record pushed or PATCHed
    in exactly the shape GET or pull gave it is an edit of its editable fields.

    The read-only fields of a record are those of its answer (`stored`, the dump) that `schema` does not
    take; nothing is listed by hand. One equal to the stored value is ignored; one that differs is 422
    `read_only` naming it. Values computed from the Town's clock (`clock_fields`, `field` or
    `list_field.item_field`) are left out of the comparison: a device's copy may hold them from an
    earlier day. `dropped_if_absent` keys are dropped when the answer does not show them. Any other key
    is an unknown field (422 validation_error). With `drop_unchanged` (data as sent, not yet loaded),
    an editable field equal to the stored value is no edit and is left out too, so a value the answer
    shows in a form the edit would refuse (a null the update does not take) round-trips."""
    editable = editable_keys(schema)
    top = {path for path in clock_fields if "." not in path}
    nested: dict[str, list[str]] = {}
    for path in clock_fields:
        if "." in path:
            outer, inner = path.split(".", 1)
            nested.setdefault(outer, []).append(inner)
    kept: dict[str, Any] = {}
    differ: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    for key, value in data.items():
        if key in editable:
            if not (drop_unchanged and key in stored and normalise(value) == normalise(stored[key])):
                kept[key] = value
        elif key in top:
            continue
        elif key in stored:
            sent, held = value, stored[key]
            if key in nested:
                sent, held = _without(sent, nested[key]), _without(held, nested[key])
            if normalise(sent) != normalise(held):
                differ[key] = ["Read-only: the server sets this field; send the stored value or leave it out."]
        elif key not in dropped_if_absent:
            unknown[key] = ["Unknown field."]
    if differ:
        raise ValidationFailed(f"Read-only fields differ from the stored record: {', '.join(sorted(differ))}.",
                               error="read_only", errors={**differ, **unknown})
    if unknown:
        raise ValidationFailed(errors=unknown)
    return kept


def settle_patch(adapter: EntityAdapter, schema: Any, data: Any) -> Any:
    """REST PATCH of a sync entity: the body as its update schema should load it when the client sent
    back the record as GET gave it. The record is the one the URL names, read as the caller may see
    it (404 otherwise); its read-only fields sent back unchanged are ignored, others refused, and
    editable fields equal to the stored value are no edit (settle_read_only). `version` stays: it is
    the version edited. A create or a sync push (which settles the data itself) is not a PATCH and
    loads as sent."""
    ids = list((request.view_args or {}).values())
    if not isinstance(data, dict) or len(ids) != 1:
        return data
    record = adapter.get(current_user, str(ids[0]))
    version = data.get("version")
    kept = settle_read_only(data, stored_form(adapter.dump, record), schema, clock_fields=adapter.clock_fields,
                            drop_unchanged=True)
    if version is not None:
        kept["version"] = version
    return kept


def install(adapters: Iterable[EntityAdapter]) -> None:
    """Have the request parser settle PATCH bodies of every entity with an update schema (the app
    factory calls this with the loaded declarations)."""
    for adapter in adapters:
        if adapter.update_schema is not None:
            settle_patch_body(type(adapter.update_schema), partial(settle_patch, adapter))
