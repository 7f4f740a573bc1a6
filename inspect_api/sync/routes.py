from __future__ import annotations

import click
from flask import Response
from flask.views import MethodView

from ..http import Blueprint
from ..records import versioned
from ..auth.permissions import current_device_id, current_user, login_required, roles_required
from ..database import writes
from .. import paging
from ..extensions import db
from ..auth import devices
from ..auth.services import revoke_device
from . import conflicts, pull, purge, services
from .schemas import (ConflictQuerySchema, ConflictSchema, DeviceQuerySchema, DeviceSchema, PullQuerySchema,
                      PullSchema, PushResultSchema, PushSchema, ResolveSchema)

blp = Blueprint("sync", __name__, url_prefix="/api/v1",
                description="Offline sync: idempotent push, cursor pull with tombstones, conflicts")
devices_blp = Blueprint("devices", __name__, url_prefix="/api/v1",
                        description="Devices that sync: last contact, unsent work, revocation")
blueprints = [blp, devices_blp]


@blp.route("/sync/push")
class Push(MethodView):
    @login_required
    @blp.arguments(PushSchema)
    @blp.response(200, PushResultSchema)
    @blp.alt_response(403, description="device_revoked: this device may no longer sync")
    @blp.alt_response(413, description="payload_too_large: more mutations than SYNC_MAX_BATCH")
    @blp.alt_response(503, description="sync_busy: this server is applying other devices' batches; nothing "
                                       "of this one was applied: send it again after `Retry-After` seconds")
    def post(self, body):
        """Send a batch of offline changes; one result per mutation, in the order sent

        Each mutation is applied alone (applied, duplicate, conflict or rejected); one failing
        mutation never undoes or blocks the others. A resent mutation_id answers `duplicate`
        with its first outcome and changes nothing. To retry a rejected change, send it under a
        new mutation_id once its cause is fixed. While the server is applying other devices' batches
        it may answer 503 `sync_busy` with `Retry-After`, having applied nothing: send the same batch
        again then.
        """
        services.take_push_turn()
        return services.push(current_user, body)


@blp.route("/sync/pull")
class Pull(MethodView):
    @writes  # notes the device's last pull (devices list, GET /devices)
    @login_required
    @blp.arguments(PullQuerySchema, location="query")
    @blp.response(200, PullSchema)
    @blp.alt_response(400, description="invalid_cursor: not a cursor this server made")
    @blp.alt_response(410, description="cursor_expired: pull again without a cursor")
    def get(self, args):
        """Changes since the cursor that the caller may see, in commit order, each record once

        Without a cursor: everything the caller may see. Deletes come as tombstones (op delete,
        data null); a record that leaves the caller's scope (an inspector unassigned from a site)
        comes as a delete too.
        """
        devices.touch_device(current_user, current_device_id(), pulled=True)
        return Response(pull.pull_json(current_user, args.get("cursor"), args.get("limit")),
                        mimetype="application/json")


@blp.route("/sync/conflicts")
class Conflicts(MethodView):
    @roles_required("applicant", "inspector", "supervisor")
    @blp.arguments(ConflictQuerySchema, location="query")
    @blp.response(200, ConflictSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """Conflicts from pushes (supervisors: all; others: their own), newest first"""
        views, total = conflicts.list_conflicts(current_user, args)
        return views, 200, paging.total_header(total)


@blp.route("/sync/conflicts/<conflict_id>")
class ConflictItem(MethodView):
    @roles_required("applicant", "inspector", "supervisor")
    @blp.response(200, ConflictSchema)
    def get(self, conflict_id):
        """One conflict with the device's and the server's versions and the fields that differ"""
        return conflicts.conflict_view(conflicts.get_conflict(current_user, conflict_id))


@blp.route("/sync/conflicts/<conflict_id>/resolve")
class ConflictResolve(MethodView):
    @roles_required("applicant", "inspector", "supervisor")
    @blp.arguments(ResolveSchema)
    @blp.response(200, ConflictSchema)
    @blp.alt_response(409, description="version_conflict (the record moved again) or conflict_resolved")
    @versioned(blp, required=False, conflict=False)
    def post(self, body, conflict_id):
        """Resolve a conflict: keep_server, take_device, or merge (with the merged fields in data)"""
        return conflicts.resolve_conflict(current_user, conflicts.get_conflict(current_user, conflict_id), body)


@devices_blp.route("/devices")
class Devices(MethodView):
    @login_required
    @devices_blp.arguments(DeviceQuerySchema, location="query")
    @devices_blp.response(200, DeviceSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """Devices that sync (supervisors and admins: all; others: their own); ?pending=true for unsent work"""
        found, total = devices.list_devices(current_user, args)
        return found, 200, paging.total_header(total)


@devices_blp.route("/devices/<device_id>")
class DeviceItem(MethodView):
    @login_required
    @devices_blp.response(200, DeviceSchema)
    def get(self, device_id):
        """One device"""
        return devices.get_device(current_user, device_id)


@devices_blp.route("/devices/<device_id>/revoke")
class DeviceRevoke(MethodView):
    @roles_required("supervisor", "admin")
    @devices_blp.response(200, DeviceSchema)
    def post(self, device_id):
        """Revoke a device: its sessions end (refresh and access tokens die) and it may no longer sync"""
        return revoke_device(current_user, device_id)


blp.cli.help = "Offline sync maintenance."


@blp.cli.command("purge-tombstones")
@click.option("--days", type=int, default=None, help="Keep tombstones this many days (default TOMBSTONE_RETENTION_DAYS).")
def purge_tombstones_command(days: int | None) -> None:
    """Delete sync tombstones past their retention; older cursors then get 410 cursor_expired."""
    result = purge.purge_tombstones(days)
    db.session.commit()
    click.echo(f"purged {result['tombstones_deleted']} tombstones and {result['outcomes_deleted']} mutation "
               f"outcomes; cursors before {result['purged_through']} now expire")
