"""Delivery evidence as the API shows it: shape only."""
from __future__ import annotations

from marshmallow import fields, validate

from ..schemas import Boolean, Integer, Schema
from ..paging import PageArgs
from .catalogue import EVENTS
from .models import STATUSES


class NotificationListArgs(PageArgs):
    record_id = fields.UUID(metadata={"description": "Messages about this record (an order, a cost recovery ...)"})
    permit_id = fields.UUID(metadata={"description": "Messages about any record of this permit or case"})
    event = fields.String(validate=validate.OneOf(sorted(EVENTS)), metadata={"description": "e.g. order_issued"})
    status = fields.String(validate=validate.OneOf(STATUSES))


class RecipientSchema(Schema):
    name = fields.String(required=True)
    email = fields.String(allow_none=True, metadata={"description": "null: none on file (the message failed)"})
    role = fields.String(allow_none=True, metadata={"description": "violator, owner, applicant ... or the user's role"})
    user_id = fields.UUID(allow_none=True)
    party_id = fields.UUID(allow_none=True)


class AttachmentSchema(Schema):
    name = fields.String(required=True)
    content_type = fields.String(required=True)
    sha256 = fields.String(required=True, metadata={"description": "SHA-256 of the bytes sent, hex"})
    bytes = Integer(required=True)


class NotificationSchema(Schema):
    id = fields.UUID(required=True)
    event = fields.String(required=True)
    record_type = fields.String(required=True)
    record_id = fields.UUID(required=True)
    permit_id = fields.UUID(allow_none=True)
    required = Boolean(required=True, metadata={"description": "A notice the bylaw requires: always sent"})
    recipient = fields.Nested(RecipientSchema, required=True)
    subject = fields.String(required=True)
    link = fields.String(allow_none=True)
    attachments = fields.List(fields.Nested(AttachmentSchema), required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    attempts = Integer(required=True)
    created_at = fields.DateTime(required=True)
    last_attempt_at = fields.DateTime(allow_none=True)
    next_attempt_at = fields.DateTime(allow_none=True, metadata={"description": "When a queued message is tried next"})
    sent_at = fields.DateTime(allow_none=True)
    smtp_reply = fields.String(allow_none=True, metadata={"description": "The mail server's last answer"})
    failure_reason = fields.String(allow_none=True, metadata={"description": "Why a message failed, in plain words"})
    message_id = fields.String(allow_none=True, metadata={"description": "The Message-ID header it was sent with"})
    resent_from = fields.UUID(allow_none=True, metadata={"description": "The failed message this one sends again"})

