"""Shapes of site-entry authorizations (API.md "Record shapes"). Format only; the law is in rules.py."""
from __future__ import annotations

from datetime import timezone

from marshmallow import fields, validate

from ..dumping import fast_formats
from ..schemas import EditSchema, Integer, Schema
from ..paging import PageArgs
from .rules import ACTIVITIES, BASES

_text = validate.Length(min=1, max=200)


def _in_utc(format_function):
    def formatted(value):
        tzinfo = value.tzinfo
        return format_function(value if tzinfo is None or tzinfo is timezone.utc else value.astimezone(timezone.utc))
    return formatted


class UTCInstant(fields.AwareDateTime):
    """Answers every instant in UTC, so a record reads the same before and after it is stored.

    Each of marshmallow's named formats ("iso" by default), applied to the instant in UTC: the field
    keeps marshmallow's own formatting, so the schema base formats it inline like any date-time
    (dumping.py). A strftime pattern has no UTC form here and is refused."""

    SERIALIZATION_FUNCS = {name: _in_utc(function)
                           for name, function in fast_formats(fields.AwareDateTime.SERIALIZATION_FUNCS).items()}

    def _bind_to_schema(self, field_name, parent):
        super()._bind_to_schema(field_name, parent)
        if self.format not in self.SERIALIZATION_FUNCS:
            raise ValueError(f"UTCInstant {field_name!r}: format {self.format!r} is not one of "
                             f"{', '.join(self.SERIALIZATION_FUNCS)}")


class FieldRecordSchema(Schema):
    """What every offline-creatable record answers with (API.md: version, created_at, updated_at, created_by)."""

    id = fields.String(dump_only=True)
    version = Integer(dump_only=True)
    created_at = UTCInstant(dump_only=True)
    updated_at = UTCInstant(dump_only=True)
    created_by = fields.String(dump_only=True, allow_none=True)
    device_id = fields.String(dump_only=True, allow_none=True)
    device_created_at = UTCInstant(dump_only=True, allow_none=True)


class EntryAuthorizationSchema(FieldRecordSchema):
    permit_id = fields.String()
    basis = fields.String()
    granted_by_name = fields.String()
    granted_by_relation = fields.String()
    scope = fields.List(fields.String())
    valid_from = UTCInstant()
    valid_to = UTCInstant()
    signature_photo_id = fields.String(allow_none=True)
    notes = fields.String(allow_none=True)
    revoked_at = UTCInstant(allow_none=True)
    revoked_by = fields.String(allow_none=True)
    revocation_reason = fields.String(allow_none=True)


class EntryAuthorizationCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Client-made UUID; POSTing it again is idempotent."})
    permit_id = fields.UUID(required=True)
    basis = fields.String(required=True, validate=validate.OneOf(BASES))
    granted_by_name = fields.String(required=True, validate=_text)
    granted_by_relation = fields.String(required=True, validate=_text,
                                        metadata={"description": "e.g. owner, tenant, site superintendent, judge"})
    scope = fields.List(fields.String(validate=validate.OneOf(ACTIVITIES)), required=True,
                        validate=validate.Length(min=1, max=3))
    valid_from = fields.AwareDateTime(required=True)
    valid_to = fields.AwareDateTime(required=True)
    signature_photo_id = fields.UUID(allow_none=True, metadata={
        "description": "The owner's signature image; required for owner_consent; may be uploaded later."})
    notes = fields.String(allow_none=True, validate=validate.Length(max=4000))
    device_created_at = fields.AwareDateTime(allow_none=True)


class EntryAuthorizationUpdateSchema(EditSchema):
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})
    basis = fields.String(validate=validate.OneOf(BASES))
    granted_by_name = fields.String(validate=_text)
    granted_by_relation = fields.String(validate=_text)
    scope = fields.List(fields.String(validate=validate.OneOf(ACTIVITIES)), validate=validate.Length(min=1, max=3))
    valid_from = fields.AwareDateTime()
    valid_to = fields.AwareDateTime()
    signature_photo_id = fields.UUID(allow_none=True)
    notes = fields.String(allow_none=True, validate=validate.Length(max=4000))
    revoked_at = fields.AwareDateTime(metadata={"description": "Revokes after the edit, as POST .../revoke does."})
    revocation_reason = fields.String(allow_none=True, validate=validate.Length(max=4000))


class EntryRevokeSchema(Schema):
    version = Integer()
    revoked_at = fields.AwareDateTime(metadata={"description": "When the grantor withdrew; default now."})
    reason = fields.String(allow_none=True, validate=validate.Length(max=4000))


class EntryAuthorizationQuerySchema(PageArgs):
    permit_id = fields.UUID()
