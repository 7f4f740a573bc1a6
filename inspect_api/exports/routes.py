"""Exports for GIS and reporting (supervisors)."""
from __future__ import annotations

import json
import tempfile

from flask import Response, send_file
from marshmallow import Schema, fields

from .. import audit
from ..extensions import db
from ..http import Blueprint
from ..auth.permissions import current_user, roles_required
from ..permits.services import get_permit
from . import case_file, services
from .ms4 import ms4_annual_report
from .schemas import (ExportRangeSchema, FindingExportQuerySchema, Ms4QuerySchema, Ms4ReportSchema,
                      PermitExportQuerySchema, PhotoExportQuerySchema)

blp = Blueprint("exports", __name__, url_prefix="/api/v1", description=(
    "Exports for supervisors. GeoJSON files are RFC 7946 FeatureCollections (WGS 84, [longitude, latitude]) "
    "served as application/geo+json; each Feature has one simple geometry, so QGIS, ArcGIS and GDAL open them "
    "directly. CSV files are RFC 4180 (UTF-8, comma, CRLF, a header row, fields quoted where needed); text "
    "starting with = + - @ (also full-width, or behind spaces, line breaks, zero-width or other invisible "
    "characters, or a pipe) is prefixed with an apostrophe so no spreadsheet runs it as a formula."))

GEOJSON = {"200": {"description": "A GeoJSON FeatureCollection",
                   "content": {"application/geo+json": {"schema": {"type": "object"}}}}}
CSV = {"200": {"description": "CSV with a header row", "content": {"text/csv": {"schema": {"type": "string"}}}}}


def _geojson(collection: dict) -> Response:
    return Response(json.dumps(collection, ensure_ascii=False, separators=(",", ":")),
                    mimetype="application/geo+json")


def _csv(text: str, name: str) -> Response:
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{name}"', "X-Content-Type-Options": "nosniff"})


@blp.route("/exports/permits.geojson")
@roles_required("supervisor")
@blp.arguments(PermitExportQuerySchema, location="query")
@blp.doc(responses=GEOJSON)
def permits_geojson(args):
    """Permits for GIS: a Point feature per site (`feature: "site"`, id = permit id) and, where drawn, a Polygon
    feature per limit of work (`feature: "limit_of_work"`, id = "<permit id>/limit_of_work")"""
    return _geojson(services.permits_geojson(current_user, layer=args.get("layer"), status=args.get("status")))


@blp.route("/exports/findings.geojson")
@roles_required("supervisor")
@blp.arguments(FindingExportQuerySchema, location="query")
@blp.doc(responses=GEOJSON)
def findings_geojson(args):
    """Findings as Points: the inspection's location fix, else the sample's point, else the site
    (`location_source` says which); `from`/`to` filter on the day observed"""
    return _geojson(services.findings_geojson(current_user, start=args.get("start"), end=args.get("end"),
                                              status=args.get("status")))


@blp.route("/exports/photos.geojson")
@roles_required("supervisor")
@blp.arguments(PhotoExportQuerySchema, location="query")
@blp.doc(responses=GEOJSON)
def photos_geojson(args):
    """Photos with a location (EXIF, else the device fix) as Points; photos without one are left out"""
    return _geojson(services.photos_geojson(current_user, start=args.get("start"), end=args.get("end"),
                                            permit_id=args.get("permit_id")))


@blp.route("/exports/inspections.csv")
@roles_required("supervisor")
@blp.arguments(ExportRangeSchema, location="query")
@blp.doc(responses=CSV)
def inspections_csv(args):
    """Inspections as CSV, one row each; `from`/`to` filter on the day started"""
    return _csv(services.inspections_csv(current_user, start=args.get("start"), end=args.get("end")),
                "inspections.csv")


@blp.route("/exports/findings.csv")
@roles_required("supervisor")
@blp.arguments(FindingExportQuerySchema, location="query")
@blp.doc(responses=CSV)
def findings_csv(args):
    """Findings as CSV, one row each; `from`/`to` filter on the day observed"""
    return _csv(services.findings_csv(current_user, start=args.get("start"), end=args.get("end"),
                                      status=args.get("status")), "findings.csv")


@blp.route("/exports/ms4-annual-report")
@roles_required("supervisor")
@blp.arguments(Ms4QuerySchema, location="query")
@blp.response(200, Ms4ReportSchema)
def ms4_report(args):
    """Counts for the MS4 general permit annual report: site plan reviews, inspections by kind, enforcement
    actions by kind, findings opened and closed, certificates issued, for `from`..`to` inclusive"""
    return ms4_annual_report(current_user, args["start"], args["end"])


class CaseFileQuerySchema(Schema):
    public = fields.Boolean(load_default=False, metadata={
        "description": "The public records variant: what the public lookup leaves out (contact details, internal "
                       "notes, audit rows' device and network address) is withheld, and manifest.json `withheld` "
                       "says what and under which exemption (MGL c.66 §10)"})


ZIP = {"200": {"description": "The case file: a ZIP of every record as JSON, photo originals, documents, the audit rows "
                              "with their seals, manifest.json and index.pdf",
               "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}}


@blp.route("/permits/<permit_id>/case-file.zip")
@roles_required("supervisor")
@blp.arguments(CaseFileQuerySchema, location="query")
@blp.doc(responses=ZIP)
@blp.alt_response(403, description="forbidden: supervisors only")
@blp.alt_response(404, description="not_found: no such permit or case")
def case_file_zip(args, permit_id):
    """The permit's or case's whole file for a court or a records request, checkable offline with
    `inspect-api case-file verify` (README "Case files"); ?public=true for the public records variant"""
    permit = get_permit(current_user, permit_id)
    # Written to an unnamed temporary file (a photo original can be 20 MB), then streamed from it; the
    # transaction ends before the first byte is sent, so a slow client holds no database snapshot.
    spool = tempfile.TemporaryFile(prefix="case-file-")
    try:
        manifest = case_file.build(permit, spool, user=current_user, viewer=None if args["public"] else current_user,
                                   public=args["public"])
        audit.record("case_file.exported", "permit", permit.id,
                     {"public": args["public"], "files": len(manifest["files"]),
                      "audit_rows": manifest["audit"]["rows"]}, permit_id=permit.id)
        db.session.commit()
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    name = f"case-file-{permit.number or permit.id}{'-public' if args['public'] else ''}.zip"
    response = send_file(spool, mimetype="application/zip", as_attachment=True, download_name=name,
                         conditional=False, etag=False)
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
