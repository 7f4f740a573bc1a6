"""The Deadlines view's shapes (GET /deadlines, `inspect-api deadlines --format json`). Format only."""
from __future__ import annotations

from marshmallow import fields

from ..schemas import Boolean, Schema
from . import rules


class DeadlineArgs(Schema):
    before = fields.Date(metadata={"description": "Items due strictly before this day; default today + 7 days."})


class DeadlineSchema(Schema):
    due_on = fields.Date()
    kind = fields.String(metadata={"enum": list(rules.DEADLINE_KINDS)})
    permit_id = fields.String(allow_none=True)
    permit_number = fields.String(allow_none=True, metadata={"description": "null before the permit is numbered"})
    site_address = fields.String(allow_none=True, metadata={"description": "The site's address, for reading the list"})
    record_type = fields.String()
    record_id = fields.String()
    summary = fields.String()
    overdue = Boolean()
