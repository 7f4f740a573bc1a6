"""The office's queue of reports from the public (supervisors): list, read, photos, triage."""
from __future__ import annotations

from flask_jwt_extended import current_user

from .. import paging
from ..auth.permissions import roles_required
from ..documents import stored_response
from ..http import Blueprint
from ..records import expected_version, versioned
from . import triage
from .report_schemas import (PublicReportDetailSchema, PublicReportQuerySchema, PublicReportSchema,
                             PublicReportTriageSchema, ReportPhotoQuerySchema)

DESCRIPTION = """The office's queue of reports from the public (supervisors only; every other role 403).

Each report with its place, time, photos (EXIF time and position of each original), the resident's contact
until it is erased, and the permits and cases near its point. Triage, once per report, with the answer the
resident reads: link it to a permit or case, open an enforcement case from it, or close it. Linking and
opening a case make a complaint inspection due at the site (GET /inspections/due), met by a complaint
inspection recorded after it. The resident, if they left an e-mail, is told in their language."""

blp = Blueprint("public_report_queue", __name__, url_prefix="/api/v1", description=DESCRIPTION)
_BINARY = {"schema": {"type": "string", "format": "binary"}}
IMAGE_DOC = {"responses": {"200": {"description": "The image", "content": {"image/*": _BINARY}},
                           "302": {"description": "Redirect to a short-lived signed URL (S3 storage)"},
                           "404": {"description": "No such report or photo"}}}
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic"}


@blp.route("/public-reports")
@roles_required("supervisor")
@blp.arguments(PublicReportQuerySchema, location="query")
@blp.response(200, PublicReportSchema(many=True), headers=paging.HEADERS)
@blp.alt_response(403, description="Not a supervisor")
def list_public_reports(args):
    """Reports from the public, newest first, by status"""
    found, total = triage.list_reports(current_user, args)
    return triage.dump_reports(found), 200, paging.total_header(total)


@blp.route("/public-reports/<record:report_id>")
@roles_required("supervisor")
@blp.response(200, PublicReportDetailSchema)
@blp.alt_response(403, description="Not a supervisor")
@blp.alt_response(404, description="No such report")
def get_public_report(report_id):
    """One report from the public, with its photos and the permits near its point"""
    return triage.dump_report(current_user, triage.get_report(current_user, report_id))


@blp.route("/public-reports/<record:report_id>/photos/<record:photo_id>")
@roles_required("supervisor")
@blp.arguments(ReportPhotoQuerySchema, location="query")
@blp.doc(**IMAGE_DOC)
def get_public_report_photo(args, report_id, photo_id):
    """A report's photo: the original as sent (EXIF and all), or an upright JPEG without metadata"""
    photo, size = triage.get_photo(current_user, report_id, photo_id), args["size"]
    if size == "original":
        return stored_response(photo.original_key, content_type=photo.content_type, etag=photo.sha256,
                               filename=f"report-photo-{photo.position}.{EXTENSIONS.get(photo.content_type, 'bin')}")
    return stored_response(getattr(photo, f"{size}_key"), content_type="image/jpeg", etag=f"{photo.sha256}-{size}",
                           filename=f"report-photo-{photo.position}-{size}.jpg")


@blp.route("/public-reports/<record:report_id>/triage", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(PublicReportTriageSchema)
@versioned(blp, conflict=False)
@blp.response(200, PublicReportDetailSchema)
@blp.alt_response(403, description="Not a supervisor")
@blp.alt_response(404, description="No such report")
@blp.alt_response(409, description="invalid_transition: the report was triaged already; version_conflict: it "
                                   "changed since you loaded it (errors.current holds it)")
@blp.alt_response(422, description="validation_error: no answer; link without an existing permit or case "
                                   "(`permit_id`), or to a draft or withdrawn application; open_case without a "
                                   "valid `case`")
def triage_public_report(body, report_id):
    """Triage a report: link it to a permit or case, open an enforcement case from it, or close it, with the
    answer the resident reads"""
    report = triage.triage(current_user, report_id, body, expected_version(body))
    return triage.dump_report(current_user, report)


blueprints = [blp]
