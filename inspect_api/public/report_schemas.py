"""Shapes of reports from residents, as the public sends and reads them and as the office's queue shows
them (shape and format only: the clock, the records and the law are the services')."""
from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from ..paging import PageArgs
from ..permits.schemas import PermitCreateSchema
from ..schemas import EmailAddress, Integer
from . import rules
from .models import LANGUAGES, STATUSES


def _no_nul(value: str) -> None:
    # A JSON body with NUL is refused whole (http.py); a form field is read here, so each text says it.
    if "\x00" in value:
        raise ValidationError("May not contain NUL characters.")


def _not_blank(value: str) -> None:
    if not value.strip():
        raise ValidationError("Say what you saw.")


class ReportLocationSchema(Schema):
    """A point in WGS 84: where the resident saw it (from their phone, or picked on the map)."""

    lat = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-90, max=90))
    lon = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-180, max=180))
    accuracy_m = fields.Float(allow_none=True, allow_nan=False, validate=validate.Range(min=0, max=100_000),
                              metadata={"description": "Metres, as the phone reported"})


class ReportContactSchema(Schema):
    name = fields.String(allow_none=True, validate=[validate.Length(max=200), _no_nul])
    email = EmailAddress(allow_none=True, metadata={"description": "Where the Town tells you it received the "
                                                                   "report, and later what it did"})
    phone = fields.String(allow_none=True, validate=validate.Regexp(rules.PHONE_PATTERN, error="Not a telephone "
                                                                                               "number."))


HONEYPOT = ("Leave this out. The HTML form hides it from people; robots fill it in. A report with it filled is "
            "answered like any other (201 with a reference) and kept nowhere.")


class PublicReportCreateSchema(Schema):
    class Meta:
        # _somewhere below refuses a report with neither; the document says so.
        json_schema = {
            "description": "Where: a `location`, or an `address`, or both.",
            "anyOf": [{"required": ["location"], "properties": {"location": {"not": {"type": "null"}}}},
                      {"required": ["address"], "properties": {"address": {"type": "string", "pattern": "\\S"}}}]}

    description = fields.String(required=True, validate=[validate.Length(min=1, max=rules.DESCRIPTION_MAX),
                                                         _not_blank, _no_nul],
                                metadata={"description": "What you saw"})
    location = fields.Nested(ReportLocationSchema, allow_none=True, load_default=None,
                             metadata={"description": "Where: a point (or give an address)"})
    address = fields.String(allow_none=True, load_default=None, validate=[validate.Length(min=1, max=200), _no_nul],
                            metadata={"description": "Where: an address or a description of the place (or give a "
                                                     "location)"})
    observed_at = fields.AwareDateTime(allow_none=True, load_default=None,
                                       metadata={"description": "When you saw it (not in the future)"})
    contact = fields.Nested(ReportContactSchema, allow_none=True, load_default=None,
                            metadata={"description": "How to reach you, if you wish; erased "
                                                     "PUBLIC_REPORT_CONTACT_DAYS after the report is closed"})
    language = fields.String(allow_none=True, load_default=None, validate=validate.OneOf(LANGUAGES),
                             metadata={"description": "The language the Town writes to you in; without it, the first "
                                                      "of Accept-Language that it writes in (English otherwise)"})
    website = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=500),
                            metadata={"description": HONEYPOT})

    # Said with the other mistakes, not after they are corrected: a resident fixes everything at once.
    # A place sent but refused on its own (lat 91, an address too long) is that field's mistake only.
    @validates_schema(skip_on_field_errors=False, pass_original=True)
    def _somewhere(self, data, original_data=None, **_kw):
        sent = original_data if isinstance(original_data, dict) else {}
        if sent.get("location") is None and not str(sent.get("address") or "").strip() \
                and data.get("location") is None and not (data.get("address") or "").strip():
            message = "Give the place: a location (lat and lon) or an address."
            raise ValidationError({"location": [message], "address": [message]})


class PublicReportReceiptSchema(Schema):
    reference = fields.String(metadata={"description": "Quote it to look the report up (GET /public/reports/"
                                                       "{reference}); keep it private: it is the only key"})
    status = fields.String(metadata={"enum": ["received"]})


class PublicReportLookupSchema(Schema):
    reference = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES), "description": "received; then linked (to a permit or "
                                     "case: an inspector will visit), case_opened, or closed"})
    received_at = fields.AwareDateTime()
    answer = fields.String(metadata={"description": "The Town's answer, once it gave one"})


# -- the office's queue ------------------------------------------------------------------------------------
class PublicReportQuerySchema(PageArgs):
    status = fields.String(validate=validate.OneOf(STATUSES))


class ReportPhotoSchema(Schema):
    id = fields.String()
    position = Integer(metadata={"description": "1 to 3, as sent"})
    content_type = fields.String()
    width = Integer()
    height = Integer()
    bytes = Integer()
    taken_at = fields.AwareDateTime(allow_none=True, metadata={"description": "EXIF time of the original"})
    exif_location = fields.Nested(ReportLocationSchema, allow_none=True,
                                  metadata={"description": "EXIF GPS of the original (staff only)"})
    url = fields.String(metadata={"description": "The original as sent, EXIF and all (supervisors only)"})
    display_url = fields.String(metadata={"description": "Upright JPEG, 1280 px, without metadata"})
    small_url = fields.String(metadata={"description": "Upright JPEG, 320 px, without metadata"})


class ReportContactOutSchema(Schema):
    name = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)


class ReportPermitSchema(Schema):
    id = fields.String()
    number = fields.String(allow_none=True)
    status = fields.String()


class NearbyPointSchema(Schema):
    lat = fields.Float()
    lon = fields.Float()


class NearbyPermitSchema(ReportPermitSchema):
    address = fields.String()
    distance_m = fields.Float(metadata={"description": "From the report's point to the site point"})
    location = fields.Nested(NearbyPointSchema, metadata={"description": "The site point"})
    limit_of_work = fields.Dict(allow_none=True, metadata={"description": "The site's limit of work (GeoJSON "
                                                                         "Polygon or MultiPolygon), if drawn"})


class PublicReportSchema(Schema):
    id = fields.String()
    reference = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    language = fields.String(metadata={"enum": list(LANGUAGES)})
    description = fields.String()
    location = fields.Nested(ReportLocationSchema, allow_none=True)
    address = fields.String(allow_none=True)
    observed_at = fields.AwareDateTime(allow_none=True)
    received_at = fields.AwareDateTime()
    contact = fields.Nested(ReportContactOutSchema, allow_none=True,
                            metadata={"description": "null when none was left, or once erased"})
    contact_erased_at = fields.AwareDateTime(allow_none=True)
    photos = fields.List(fields.Nested(ReportPhotoSchema))
    answer = fields.String(allow_none=True, metadata={"description": "The public answer the resident reads"})
    note = fields.String(allow_none=True, metadata={"description": "The office's own note (never public)"})
    permit = fields.Nested(ReportPermitSchema, allow_none=True,
                           metadata={"description": "The permit or enforcement case it was linked to"})
    inspection_request_id = fields.String(allow_none=True,
                                          metadata={"description": "The complaint inspection made due"})
    triaged_by = fields.String(allow_none=True)
    first_response_at = fields.AwareDateTime(allow_none=True)
    closed_at = fields.AwareDateTime(allow_none=True)
    version = Integer()


class PublicReportDetailSchema(PublicReportSchema):
    nearby_permits = fields.List(fields.Nested(NearbyPermitSchema), metadata={
        "description": f"Permits and cases whose site point is within {rules.NEARBY_M} m of the report's point, "
                       f"nearest first (at most {rules.NEARBY_LIMIT}; none without a point)"})


class ReportPhotoQuerySchema(Schema):
    size = fields.String(load_default="display", validate=validate.OneOf(("display", "small", "original")),
                         metadata={"description": "display (1280 px) or small (320 px) JPEG without metadata, or "
                                                  "the original as sent"})


class CaseFromReportSchema(PermitCreateSchema):
    """An enforcement case opened from a report: the body a supervisor sends to POST /permits, naming no
    applicant (R-O0)."""

    class Meta:
        exclude = ("applicant_id", "case_id")


class PublicReportTriageSchema(Schema):
    action = fields.String(required=True, validate=validate.OneOf(tuple(rules.TRIAGE_ACTIONS)), metadata={
        "description": "link: to the permit or enforcement case `permit_id`; open_case: open the enforcement "
                       "case `case` from it; close: nothing more to do. link and open_case make a complaint "
                       "inspection due at the site"})
    permit_id = fields.String(allow_none=True, validate=validate.Length(max=36),
                              metadata={"description": "With link: the permit or case"})
    case = fields.Nested(CaseFromReportSchema, allow_none=True, metadata={"description": "With open_case"})
    answer = fields.String(required=True, validate=[validate.Length(min=1, max=rules.ANSWER_MAX), _no_nul],
                           metadata={"description": "What the resident is told (public)"})
    note = fields.String(allow_none=True, validate=[validate.Length(max=rules.ANSWER_MAX), _no_nul],
                         metadata={"description": "The office's own note (never public)"})
    version = Integer(metadata={"description": "The version you triaged (or send If-Match)"})

    @validates_schema
    def _what_goes_with_the_action(self, data, **_kw):
        action = data.get("action")
        errors = {}
        if action == "link" and not data.get("permit_id"):
            errors["permit_id"] = ["Name the permit or enforcement case to link the report to."]
        if action != "link" and data.get("permit_id"):
            errors["permit_id"] = ["Only with the action link."]
        if action == "open_case" and data.get("case") is None:
            errors["case"] = ["Describe the enforcement case to open (as for POST /permits)."]
        if action != "open_case" and data.get("case") is not None:
            errors["case"] = ["Only with the action open_case."]
        if errors:
            raise ValidationError(errors)
