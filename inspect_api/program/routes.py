"""The inspection program: due inspections, storm events and applicants' inspection requests (R-I1, R-I4)."""
from __future__ import annotations

from flask import current_app, request
from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import login_required, roles_required
from ..errors import UnsupportedMediaType, ValidationFailed
from . import inspection_requests as requests_service
from . import services, storm_events
from .schemas import (DueItemSchema, DueQuerySchema, InspectionRequestCreateSchema, InspectionRequestSchema,
                      ProgramSettingsSchema, RequestListQuerySchema, StormEventCreateSchema, StormEventSchema,
                      StormImportQuerySchema, StormImportSchema, StormListQuerySchema)

blp = Blueprint("program", __name__, url_prefix="/api/v1",
                description="The inspection program: what is due where and by when, storm events, requests (R-I1)")
LIST_HEADERS = {"X-Total-Count": {"description": "Items matching the filters", "schema": {"type": "integer"}}}
CSV_BODY = {"required": True, "description": "A NOAA Climate Data Online daily CSV (STATION, NAME, DATE, PRCP in "
                                             "the `units` given) as the body (text/csv), or as the form field `file`.",
            "content": {"text/csv": {"schema": {"type": "string"}},
                        "multipart/form-data": {"schema": {"type": "object",
                                                           "properties": {"file": {"type": "string",
                                                                                   "format": "binary"}}}}}}


@blp.route("/inspections/due")
@login_required
@blp.arguments(DueQuerySchema, location="query")
@blp.response(200, DueItemSchema(many=True), headers=LIST_HEADERS)
def due_inspections(args):
    """Inspections due and not yet done at the sites you may see, soonest first (overdue ones stay listed)"""
    items, total = services.list_due(current_user, args)
    return items, 200, {"X-Total-Count": str(total)}


@blp.route("/inspections/program-settings")
@login_required
@blp.response(200, ProgramSettingsSchema)
def program_settings():
    """The Town's program settings: routine interval, storm threshold and window, response days"""
    return services.settings_dump()


@blp.route("/storm-events")
class StormEvents(MethodView):
    @login_required
    @blp.arguments(StormListQuerySchema, location="query")
    @blp.response(200, StormEventSchema(many=True), headers=LIST_HEADERS)
    def get(self, args):
        """Storm events, newest first"""
        events, total = storm_events.list_storm_events(current_user, args)
        return events, 200, {"X-Total-Count": str(total)}

    @roles_required("supervisor")
    @blp.arguments(StormEventCreateSchema)
    @blp.response(201, StormEventSchema)
    @blp.alt_response(200, schema=StormEventSchema, description="The same id and data were sent before")
    def post(self, body):
        """Record a storm: when it ended, how many inches fell, where the figure comes from (supervisor)"""
        event, created = storm_events.record_storm_event(current_user, body)
        return event, 201 if created else 200


def _csv_text() -> tuple[str, str | None]:
    request.max_content_length = current_app.config["MAX_JSON_BYTES"]
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("file")
        if upload is None:
            raise ValidationFailed("Send the CSV as the form field `file`.", errors={"file": ["Missing."]})
        raw, filename = upload.read(), upload.filename
    elif request.mimetype in ("text/csv", "text/plain", "application/csv"):
        raw, filename = request.get_data(cache=False), None
    else:
        raise UnsupportedMediaType("Send the CSV as text/csv, or as the form field `file` of multipart/form-data.")
    try:
        return raw.decode("utf-8-sig"), filename
    except UnicodeDecodeError:
        raise ValidationFailed("The file is not UTF-8 text.", errors={"file": ["Not UTF-8 text."]}) from None


@blp.route("/storm-events/import", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(StormImportQuerySchema, location="query")
@blp.doc(requestBody=CSV_BODY)
@blp.response(200, StormImportSchema)
def import_storm_events(args):
    """Import daily rainfall (NOAA CDO CSV): one storm per day at or over the threshold; re-import changes nothing.
    A file with a day after today, a day over the Massachusetts 24-hour record (18.15 in) or more than
    STORM_IMPORT_MAX_ROWS rows imports nothing (422, naming the lines)."""
    text, filename = _csv_text()
    return storm_events.import_daily_csv(current_user, text, filename, units=args["units"])


@blp.route("/inspection-requests")
class InspectionRequests(MethodView):
    @login_required
    @blp.arguments(RequestListQuerySchema, location="query")
    @blp.response(200, InspectionRequestSchema(many=True), headers=LIST_HEADERS)
    def get(self, args):
        """Inspection requests on the permits you may see, newest first, each with when it was done"""
        records, total = requests_service.list_inspection_requests(current_user, args)
        return requests_service.annotated(records), 200, {"X-Total-Count": str(total)}

    @login_required
    @blp.arguments(InspectionRequestCreateSchema)
    @blp.response(201, InspectionRequestSchema)
    @blp.alt_response(200, schema=InspectionRequestSchema, description="The same id and data were sent before")
    def post(self, body):
        """Ask for a post-installation, final or re-inspection, with preferred days and a note (applicant)"""
        record, created = requests_service.create_inspection_request(current_user, body)
        return requests_service.annotated([record])[0], 201 if created else 200


@blp.route("/inspection-requests/<request_id>")
@login_required
@blp.response(200, InspectionRequestSchema)
def inspection_request(request_id):
    """One inspection request, with its due time and when it was done"""
    return requests_service.annotated([requests_service.get_inspection_request(current_user, request_id)])[0]
