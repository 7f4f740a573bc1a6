from __future__ import annotations

from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import login_required, roles_required
from .. import paging
from ..records import expected_version, versioned
from . import services
from .schemas import (EntryAuthorizationCreateSchema, EntryAuthorizationQuerySchema, EntryAuthorizationSchema,
                      EntryAuthorizationUpdateSchema, EntryRevokeSchema)

blp = Blueprint("entry", __name__, url_prefix="/api/v1",
                description="Site-entry authorizations (R-E): the basis for every inspection and sample")

STAFF = ("inspector", "supervisor")


@blp.route("/entry-authorizations")
class EntryAuthorizations(MethodView):
    @login_required
    @blp.arguments(EntryAuthorizationQuerySchema, location="query")
    @blp.response(200, EntryAuthorizationSchema(many=True), headers=paging.HEADERS)
    def get(self, query):
        """Site-entry authorizations you may see, optionally of one permit"""
        records, total = services.list_entry_authorizations(current_user, query)
        return records, 200, paging.total_header(total)

    @roles_required(*STAFF)
    @blp.arguments(EntryAuthorizationCreateSchema)
    @blp.response(201, EntryAuthorizationSchema)
    @blp.alt_response(200, schema=EntryAuthorizationSchema, description="The same id with the same data was sent before")
    @blp.alt_response(409, description="The id is taken by other data")
    def post(self, body):
        """Record a site-entry authorization (client id allowed, idempotent on it)"""
        record, created = services.create_entry_authorization(current_user, body)
        return record, 201 if created else 200


@blp.route("/entry-authorizations/<record_id>")
class EntryAuthorizationItem(MethodView):
    @login_required
    @blp.response(200, EntryAuthorizationSchema)
    def get(self, record_id):
        """One site-entry authorization"""
        return services.get_entry_authorization(current_user, record_id)

    @roles_required(*STAFF)
    @blp.arguments(EntryAuthorizationUpdateSchema)
    @blp.response(200, EntryAuthorizationSchema)
    @blp.alt_response(409, description="Stale version, revoked, or the change would strand records made under it")
    @versioned(blp, conflict=False)
    def patch(self, body, record_id):
        """Correct a site-entry authorization (If-Match or version required)"""
        record = services.get_entry_authorization(current_user, record_id)
        return services.update_entry_authorization(current_user, record, body, expected_version(body))


@blp.route("/entry-authorizations/<record_id>/revoke")
class EntryAuthorizationRevoke(MethodView):
    @roles_required(*STAFF)
    @blp.arguments(EntryRevokeSchema)
    @blp.response(200, EntryAuthorizationSchema)
    @blp.alt_response(409, description="Already revoked, or revocation time earlier than records made under it")
    @versioned(blp, required=False, conflict=False)
    def post(self, body, record_id):
        """Revoke: the authorization covers nothing from revoked_at on; earlier records stay valid (R-E3)"""
        record = services.get_entry_authorization(current_user, record_id)
        version = expected_version(body, required=False)
        return services.revoke_entry_authorization(current_user, record, body, version)
