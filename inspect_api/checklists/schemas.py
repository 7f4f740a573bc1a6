"""Shapes of checklist templates (R-I3). Format only."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..schemas import Boolean, Integer
from ..entry.schemas import UTCInstant

KEY = validate.Regexp(r"^[a-z][a-z0-9_]{0,59}$", error="Lower-case letters, digits and underscores, up to 60.")


class ChecklistItemSchema(Schema):
    key = fields.String(required=True, validate=KEY)
    label = fields.String(required=True, validate=validate.Length(min=1, max=200))
    help_text = fields.String(load_default="", validate=validate.Length(max=4000))
    control = fields.String(required=True, validate=validate.Length(min=1, max=200),
                            metadata={"description": "The erosion or sediment control the item concerns."})
    photo_expected_when_deficient = Boolean(load_default=True)
    needs_new_control_default = Boolean(
        load_default=False, metadata={"description": "A deficiency usually needs a new or replaced control "
                                                     "(7 calendar days) rather than maintenance (next business day)."})


class ChecklistTemplateSchema(Schema):
    key = fields.String(dump_only=True)
    version = Integer(dump_only=True)
    title = fields.String(dump_only=True)
    description = fields.String(dump_only=True, allow_none=True)
    items = fields.List(fields.Nested(ChecklistItemSchema), dump_only=True)
    published_at = UTCInstant(dump_only=True)
    published_by = fields.String(dump_only=True, allow_none=True)
    current = Boolean(dump_only=True, metadata={"description": "The newest version of this template."})


class PublishVersionSchema(Schema):
    title = fields.String(required=True, validate=validate.Length(min=1, max=200))
    description = fields.String(allow_none=True, validate=validate.Length(max=4000))
    items = fields.List(fields.Nested(ChecklistItemSchema), required=True, validate=validate.Length(min=1, max=200))
    based_on_version = Integer(
        allow_none=True, metadata={"description": "The version edited; 409 if another was published since."})


class TemplateListQuerySchema(Schema):
    all = fields.Boolean(load_default=False, metadata={"description": "Every version, not only the current ones."})
