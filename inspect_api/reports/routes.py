from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required
from . import custody, services
from .schemas import TimelineEventSchema

blp = Blueprint("reports", __name__, url_prefix="/api/v1", description="Per-permit timeline and inspection reports")


@blp.route("/permits/<permit_id>/timeline")
class PermitTimeline(MethodView):
    @login_required
    @blp.response(200, TimelineEventSchema(many=True))
    def get(self, permit_id):
        """Everything that happened at a site, oldest first: status changes, entries, inspections, findings, samples"""
        return services.timeline(current_user, permit_id)


@blp.route("/inspections/<inspection_id>/report.pdf")
class InspectionReport(MethodView):
    @login_required
    @blp.response(200, content_type="application/pdf", description="The report as a PDF document", headers={
        "ETag": {"description": "Names this rendition: send it back as If-None-Match to be answered 304 while "
                                "nothing the report shows has changed", "schema": {"type": "string"}}})
    @blp.alt_response(304, description="Not modified: nothing the report shows changed since the ETag sent")
    def get(self, inspection_id):
        """The inspection report to hand a contractor (PDF): site, checklist, findings, samples, photos"""
        return services.inspection_report(current_user, inspection_id)


@blp.route("/samples/<sample_id>/custody.pdf")
class SampleCustodyForm(MethodView):
    @login_required
    @blp.response(200, content_type="application/pdf", description="The chain-of-custody form as a PDF document",
                  headers={"ETag": {"description": "Names this rendition: send it back as If-None-Match to be "
                                                   "answered 304 while nothing the form shows has changed",
                                    "schema": {"type": "string"}}})
    @blp.alt_response(304, description="Not modified: nothing the form shows changed since the ETag sent")
    @blp.alt_response(404, description="No such sample, or not one you may see")
    def get(self, sample_id):
        """A sample's chain-of-custody form for the lab (PDF): the sample, each analysis with its container,
        preservative, holding time and analyse-by time, the hand-overs with signatures, and the lab's receipt"""
        return custody.custody_form(current_user, sample_id)
