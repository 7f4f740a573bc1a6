"""Schema pieces every record kind shares."""
from __future__ import annotations

from marshmallow import Schema, fields


class RecordFieldsSchema(Schema):
    """What every record answers beside its own fields (DOMAIN.md "Evidence"): who made it, on which
    device, when by the device clock and by the server clock, and its version."""

    id = fields.String(dump_only=True)
    version = fields.Integer(dump_only=True)
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)
    created_by = fields.String(dump_only=True, allow_none=True)
    device_id = fields.String(dump_only=True, allow_none=True)
    device_created_at = fields.AwareDateTime(dump_only=True, allow_none=True)
