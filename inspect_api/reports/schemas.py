"""Shapes of reports (format only)."""
from __future__ import annotations

from marshmallow import Schema, fields

EVENT_KINDS = ("permit.status", "entry_authorization.granted", "entry_authorization.revoked", "inspection.started",
               "inspection.submitted", "inspection.approved", "inspection.returned", "finding.opened",
               "finding.verified", "finding.closed", "sample.taken")


class TimelineEventSchema(Schema):
    at = fields.AwareDateTime(metadata={"description": "When it happened (RFC 3339)"})
    kind = fields.String(metadata={"enum": list(EVENT_KINDS)})
    record_type = fields.String(metadata={
        "enum": ["permit", "entry_authorization", "inspection", "finding", "sample"]})
    record_id = fields.String()
    summary = fields.String(metadata={"description": "One plain-English line"})
