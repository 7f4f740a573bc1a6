"""Shapes of the sync endpoints (API.md "Sync"). Format only; what a mutation means is decided by
the entity's own schemas and services."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..schemas import Boolean, Integer
from ..paging import PageArgs
from .models import CONFLICT_STATUSES, RESOLUTIONS, RESULT_STATUSES


class MutationSchema(Schema):
    mutation_id = fields.UUID(required=True, metadata={
        "description": "Made by the device once per change; resending it is answered `duplicate`."})
    entity = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={
        "description": "entry_authorization, inspection, finding, sample, completion_notice, order, bond, permit, "
                       "inspection_request, photo_annotation"})
    id = fields.UUID(required=True, metadata={"description": "The record's id (made by the device for creates)."})
    op = fields.String(required=True, validate=validate.OneOf(("upsert", "delete")))
    base_version = Integer(allow_none=True, load_default=None, strict=True, validate=validate.Range(min=0),
                                  metadata={"description": "The version the change was made on; null = create."})
    data = fields.Dict(keys=fields.String(), load_default=dict, metadata={
        "description": "The record's fields as its POST (create) or PATCH (edit) takes them. photo_annotation, "
                       "pushed only: create {id?, photo_id, shapes, device_created_at?}, edit {shapes}; a shape is "
                       "{kind: arrow|circle|freehand|text, points: [[x, y], ...] (fractions 0..1 of the image's width "
                       "and height), text? (text labels only), colour: #rrggbb} (GET /photos/{photo_id}/annotations "
                       "answers the same shape)."})


class _EachOnItsOwn(fields.Nested):
    """Documented as the nested schema, but each mutation is validated alone by the push service,
    so one malformed mutation is `rejected` by itself instead of failing the whole batch."""

    def _deserialize(self, value, attr, data, **kwargs):
        return value


class PushSchema(Schema):
    device_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    app_version = fields.String(allow_none=True, validate=validate.Length(max=40))
    pending_count = Integer(allow_none=True, validate=validate.Range(min=0), metadata={
        "description": "How many changes the device still holds unsent (shown to supervisors)."})
    mutations = fields.List(_EachOnItsOwn(MutationSchema), required=True, metadata={
        "description": "At most SYNC_MAX_BATCH (default 500) per request; more is 413 payload_too_large."})


class MutationResultSchema(Schema):
    mutation_id = fields.String(allow_none=True)
    status = fields.String(validate=validate.OneOf(RESULT_STATUSES))
    original_status = fields.String(metadata={"description": "For `duplicate`: the first outcome of this mutation."})
    entity = fields.String(allow_none=True)
    id = fields.String(allow_none=True)
    version = Integer(allow_none=True)
    server_record = fields.Dict(allow_none=True, metadata={"description": "The server's record, on a conflict."})
    conflict_id = fields.String(allow_none=True, metadata={"description": "GET /sync/conflicts/{conflict_id}"})
    error = fields.String(allow_none=True)
    message = fields.String(allow_none=True)
    errors = fields.Dict(allow_none=True)


class PushResultSchema(Schema):
    results = fields.List(fields.Nested(MutationResultSchema), required=True)


class PullQuerySchema(Schema):
    cursor = fields.String(validate=validate.Length(max=2000), metadata={
        "description": "The cursor of the previous page; none for everything the caller may see."})
    limit = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "Changes per page (default 500, at most SYNC_PULL_MAX_LIMIT)."})


class ChangeSchema(Schema):
    entity = fields.String()
    id = fields.String()
    op = fields.String(validate=validate.OneOf(("upsert", "delete")))
    version = Integer()
    data = fields.Dict(allow_none=True, metadata={"description": "The record as its GET answers; null on delete."})


class PullSchema(Schema):
    changes = fields.List(fields.Nested(ChangeSchema))
    cursor = fields.String()
    has_more = Boolean()


class _DeviceVersion(Schema):
    base_version = Integer(allow_none=True)
    data = fields.Dict()


class _ServerVersion(Schema):
    version = Integer(allow_none=True)
    data = fields.Dict(allow_none=True)


class _Ref(Schema):
    id = fields.String()
    name = fields.String(allow_none=True)


class _Difference(Schema):
    field = fields.String()
    server = fields.Raw(allow_none=True, metadata={"description": "The server's current value."})
    device = fields.Raw(allow_none=True, metadata={"description": "The value the device sent."})


class ConflictSchema(Schema):
    id = fields.String()
    entity = fields.String()
    record_id = fields.String()
    permit_id = fields.String(allow_none=True)
    op = fields.String()
    mutation_id = fields.String(allow_none=True)
    device_id = fields.String(allow_none=True)
    user_id = fields.String()
    device_version = fields.Nested(_DeviceVersion)
    server_version = fields.Nested(_ServerVersion)
    fields_ = fields.List(fields.String(), data_key="fields", attribute="fields")
    raised_by = fields.Nested(_Ref, metadata={"description": "The account whose push raised the conflict."})
    device = fields.Nested(_Ref, allow_none=True, metadata={"description": "The device it was pushed from."})
    differences = fields.List(fields.Nested(_Difference), metadata={
        "description": "Each differing field with the server's and the device's value."})
    status = fields.String(validate=validate.OneOf(CONFLICT_STATUSES))
    resolution = fields.String(allow_none=True)
    resolved_by = fields.String(allow_none=True)
    resolved_at = fields.AwareDateTime(allow_none=True)
    resolved_version = Integer(allow_none=True)
    created_at = fields.AwareDateTime()
    record = fields.Dict(allow_none=True, metadata={"description": "The record after resolving (resolve only)."})


class ConflictQuerySchema(PageArgs):
    status = fields.String(validate=validate.OneOf(CONFLICT_STATUSES))
    entity = fields.String(validate=validate.Length(max=40))
    record_id = fields.String(validate=validate.Length(max=64))
    permit_id = fields.String(validate=validate.Length(max=64))


class ResolveSchema(Schema):
    resolution = fields.String(required=True, validate=validate.OneOf(RESOLUTIONS))
    data = fields.Dict(keys=fields.String(), metadata={"description": "merge: the merged fields to apply."})
    version = Integer(strict=True, metadata={
        "description": "The server version the resolution was decided on (default: the one the conflict holds)."})


class DeviceSchema(Schema):
    id = fields.String()
    user_id = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    app_version = fields.String(allow_none=True)
    first_seen = fields.AwareDateTime()
    last_push_at = fields.AwareDateTime(allow_none=True)
    last_pull_at = fields.AwareDateTime(allow_none=True)
    pending_count = Integer(allow_none=True)
    pending_reported_at = fields.AwareDateTime(allow_none=True)
    revoked_at = fields.AwareDateTime(allow_none=True)
    revoked_by = fields.String(allow_none=True)


class DeviceQuerySchema(PageArgs):
    pending = fields.Boolean(metadata={"description": "true: only devices that last reported unsent work."})
    user_id = fields.String(validate=validate.Length(max=64))
    revoked = fields.Boolean()
