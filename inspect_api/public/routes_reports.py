"""POST /api/v1/public/reports and GET /api/v1/public/reports/{reference}: reports from residents, no sign-in."""
from __future__ import annotations

from ..http import Blueprint
from . import reports
from .report_schemas import PublicReportCreateSchema, PublicReportLookupSchema, PublicReportReceiptSchema
from .rules import DESCRIPTION_MAX, MAX_PHOTOS

DESCRIPTION = """Reports from residents (MS4 permit, 40 CFR 122.34(b)(4)(ii)): anyone may tell the Town what
they saw at a site, with no account. A report is never public: its author reads back its status and the
Town's answer by its reference, and nothing else.

- A JSON body, or multipart/form-data as the public report form sends it, with up to 3 photos as
  `photos` files (each verified and re-encoded like any upload: JPEG, PNG, WebP or HEIC; MAX_UPLOAD_BYTES,
  MAX_IMAGE_PIXELS; their GPS is kept for staff and stripped from everything else). A hostile or broken
  photo refuses the whole report (422 image_invalid or image_too_large) and nothing is kept.
- Rate-limited per client address (PUBLIC_REPORT_RATE_LIMIT, behind TRUSTED_PROXIES as they name the
  client), shared with the HTML form: a report received, or any body with photos, counts; one refused only
  for its fields does not. Over the limit: 429 with Retry-After.
- The resident's contact details are erased PUBLIC_REPORT_CONTACT_DAYS after the report is closed."""

blp = Blueprint("public_reports", __name__, url_prefix="/api/v1/public", description=DESCRIPTION)

_TEXT = {"type": "string"}
FORM = {"type": "object", "required": ["description"], "properties": {
    "description": {"type": "string", "maxLength": DESCRIPTION_MAX, "description": "What you saw"},
    "lat": {**_TEXT, "description": "With lon: where (a number, degrees)"},
    "lon": {**_TEXT, "description": "With lat"},
    "accuracy_m": {**_TEXT, "description": "Metres"},
    "address": {"type": "string", "maxLength": 200, "description": "Or where, in words"},
    "observed_at": {**_TEXT, "description": "When, as YYYY-MM-DDTHH:MM in Town time (an offset may be added)"},
    "name": {"type": "string", "maxLength": 200}, "email": _TEXT, "phone": _TEXT,
    "language": {"type": "string", "enum": ["en", "pt"]},
    "website": {**_TEXT, "description": "Leave out (the form's hidden field for robots)"},
    "photos": {"type": "array", "maxItems": MAX_PHOTOS, "items": {"type": "string", "format": "binary"}}}}
REPORT_BODY = {"required": True, "content": {"application/json": {"schema": PublicReportCreateSchema},
                                             "multipart/form-data": {"schema": FORM}}}


@blp.route("/reports", methods=["POST"])
@reports.public_report_limit
@blp.doc(security=[], requestBody=REPORT_BODY)
@blp.response(201, PublicReportReceiptSchema)
@blp.alt_response(400, description="A multipart body that cannot be read, or malformed JSON")
@blp.alt_response(408, description="The body arrived too slowly (UPLOAD_MIN_BYTES_PER_SECOND, UPLOAD_MAX_SECONDS)")
@blp.alt_response(413, description="Over the size of 3 photos of MAX_UPLOAD_BYTES and the text, or a photo over "
                                   "MAX_UPLOAD_BYTES, or a JSON body over MAX_JSON_BYTES")
@blp.alt_response(415, description="Neither application/json nor multipart/form-data")
@blp.alt_response(422, description="validation_error naming the fields (the description; a location or an "
                                   "address; observed_at in the future; more than 3 photos), or image_invalid / "
                                   "image_too_large for a photo; nothing is kept")
@blp.alt_response(429, description="This client sent too many reports; wait `Retry-After` seconds")
@blp.alt_response(503, description="image_busy: the server is reading other images; send it again shortly")
def submit_report():
    """Report a problem at a site, without an account: what, where, when, up to 3 photos, how to reach you"""
    return reports.receipt(reports.receive_request()), 201


@blp.route("/reports/<reference>")
@blp.doc(security=[])
@blp.response(200, PublicReportLookupSchema)
@blp.alt_response(404, description="No report has this reference")
def report_status(reference):
    """A report's status and the Town's answer, by its reference (any case)"""
    return reports.report_status(reference)


blueprints = [blp]
