"""The audit trail's seals as JSON, for anyone (README "Tamper-evident audit trail"): the same seals the
public page lists and AUDIT_SEAL_TO receives, newest first."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from ..audit_seals import recent_seals
from ..http import Blueprint

blp = Blueprint("public_audit_seals", __name__, url_prefix="/api/v1",
                description="The audit trail's daily seals (Merkle root and row count of each finished day, chained "
                            "by the previous seal's hash), for anyone to compare with the copies sent outside")

DEFAULT_LIMIT, MAX_LIMIT = 31, 366


class AuditSealQuerySchema(Schema):
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(min=1, max=MAX_LIMIT),
                           metadata={"description": f"How many seals, newest first (at most {MAX_LIMIT})"})


class AuditSealSchema(Schema):
    number = fields.Integer(required=True, metadata={"description": "1 for the first seal, then one more each day"})
    day = fields.Date(required=True, metadata={"description": "The Town day (America/New_York) the seal closes"})
    first_seq = fields.Integer(required=True, metadata={"description": "The seal covers every audit row numbered "
                                                                       "first_seq to last_seq"})
    last_seq = fields.Integer(required=True)
    row_count = fields.Integer(required=True)
    merkle_root = fields.String(required=True, metadata={"description": "RFC 6962 Merkle tree hash (hex) of the "
                                                                        "rows' hashes in number order"})
    prev_seal_hash = fields.String(required=True, metadata={"description": "The previous seal's hash (64 zeros "
                                                                           "for the first)"})
    seal_hash = fields.String(required=True, metadata={"description": "SHA-256 (hex) of the seal's fields"})
    sealed_at = fields.DateTime(required=True)


@blp.route("/public/audit-seals")
class PublicAuditSeals(MethodView):
    @blp.doc(security=[])
    @blp.arguments(AuditSealQuerySchema, location="query")
    @blp.response(200, AuditSealSchema(many=True))
    def get(self, args):
        """The audit trail's most recent daily seals, newest first"""
        return recent_seals(args["limit"])
