"""Request and response shapes for permits and their sub-resources (shape and format only)."""
from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates, validates_schema

from ..schemas import Boolean, EditSchema, EmailAddress, Integer, Money, Schema
from ..paging import PageArgs
from . import rules
from .geo import LIMIT_OF_WORK_SCHEMA, MAX_POSITIONS, polygon_problem
from .models import PARTY_ROLES, STATUSES, REVIEW_LEVELS

STATUS_LIST = validate.OneOf(STATUSES)
_ONE_STATUS = " *(?:%s) *" % "|".join(STATUSES)
STATUS_FILTER_PATTERN = f"^{_ONE_STATUS}(?:,{_ONE_STATUS})*$"  # what _statuses below accepts, published
TEXT = validate.Length(max=5000)


def _polygon(value):
    if value is not None:
        problem = polygon_problem(value)
        if problem:
            raise ValidationError(problem)


def _plain_filename(value: str) -> None:
    if "/" in value or "\\" in value or value in (".", "..") or any(ord(c) < 32 for c in value):
        raise ValidationError("A bare file name, without folders or control characters.")


class SiteLocationSchema(Schema):
    lat = fields.Float(required=True, validate=validate.Range(min=-90, max=90))
    lon = fields.Float(required=True, validate=validate.Range(min=-180, max=180))


class SiteSchema(Schema):
    address = fields.String(required=True, validate=validate.Length(min=1, max=300))
    parcel_id = fields.String(allow_none=True, validate=validate.Length(max=60))
    location = fields.Nested(SiteLocationSchema, required=True)
    # Raw, not Dict: the published schema is LIMIT_OF_WORK_SCHEMA alone (polygon_problem refuses non-objects).
    limit_of_work = fields.Raw(allow_none=True, validate=_polygon, metadata={
        **LIMIT_OF_WORK_SCHEMA,
        "description": "GeoJSON Polygon or MultiPolygon (RFC 7946) of the limit of work, [lon, lat] positions: "
                       "only `type` and `coordinates`; every ring closed (last position equal to the first) and "
                       f"valid, at most {MAX_POSITIONS:,} positions in all, a non-zero area"})


WITHHELD = ("true: the e-mail, phone and mailing address are null because this viewer may not see them (R-O0: "
            "supervisors, the inspectors assigned to the permit, and an applicant for what they entered)")


class OwnerSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    email = EmailAddress(allow_none=True)
    phone = fields.String(allow_none=True, validate=validate.Length(max=40))
    mailing_address = fields.String(allow_none=True, load_only=True, validate=validate.Length(max=500),
                                    metadata={"description": "Where orders and notices are mailed (owner party)"})
    contact_withheld = Boolean(dump_only=True, metadata={"description": WITHHELD})


class PartyInSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(PARTY_ROLES))
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    mailing_address = fields.String(allow_none=True, validate=validate.Length(max=500))
    email = EmailAddress(allow_none=True)
    phone = fields.String(allow_none=True, validate=validate.Length(max=40))
    user_id = fields.String(allow_none=True, validate=validate.Length(max=36),
                            metadata={"description": "The party's applicant account, when they have one (supervisors)"})


class PartyUpdateSchema(PartyInSchema):
    role = fields.String(validate=validate.OneOf(PARTY_ROLES))
    name = fields.String(validate=validate.Length(min=1, max=200))
    version = Integer()


class PartySchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    role = fields.String(metadata={"enum": list(PARTY_ROLES)})
    name = fields.String()
    mailing_address = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    contact_withheld = Boolean(dump_default=False, metadata={"description": WITHHELD})
    user_id = fields.String(allow_none=True)
    version = Integer()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class ProjectLinkSchema(Schema):
    class Meta:
        # cases.link_project refuses a body with neither (422 on link_to); the document says so.
        json_schema = {
            "description": "Either `link_to`, the other application of the same project, or `separate: true`.",
            "anyOf": [{"required": ["link_to"]},
                      {"required": ["separate"], "properties": {"separate": {"const": True}}}]}

    link_to = fields.String(validate=validate.Length(min=1, max=36),
                            metadata={"description": "An application of the same project (R-A7)"})
    separate = Boolean(metadata={"description": "Confirm it is a separate project (clears the parcel flag)"})


class SecurityRequirementSchema(Schema):
    amount = Money(required=True, allow_none=True,
                   metadata={"description": "US dollars required before the start (R-D1); null: none"})


class _LuhpplCheck:
    @validates_schema
    def _luhppl(self, data, **_kw):
        if "luhppl_kind" in data:
            problem = rules.luhppl_problem(data.get("luhppl_kind"), data.get("luhppl_description"))
            if problem:
                field = "luhppl_kind" if data.get("luhppl_kind") not in rules.LUHPPL_KINDS else "luhppl_description"
                raise ValidationError({field: [problem]})


class PermitInputsSchema(_LuhpplCheck, Schema):
    disturbed_area_sqft = fields.Float(required=True, validate=validate.Range(min=0, max=1e10))
    drains_to_ms4 = Boolean(required=True)
    drains_to_waters = Boolean(required=True)
    luhppl_kind = fields.String(allow_none=True, validate=validate.OneOf(rules.LUHPPL_KINDS))
    luhppl_description = fields.String(allow_none=True, validate=validate.Length(max=1000))


class PermitCreateSchema(PermitInputsSchema):
    id = fields.UUID(metadata={"description": "Client-made id; resending the same id and data is idempotent"})
    applicant_id = fields.String(validate=validate.Length(max=64), metadata={
        "description": "Supervisors filing for an applicant name them here; a supervisor naming none opens an "
                       "enforcement case (status `unpermitted`, R-O0)"})
    parties = fields.List(fields.Nested(PartyInSchema), validate=validate.Length(max=20), metadata={
        "description": "Further parties (violators, contractors); a case names at least one violator"})
    case_id = fields.String(validate=validate.Length(max=36),
                            metadata={"description": "Supervisors: the enforcement case this application answers"})
    site = fields.Nested(SiteSchema, required=True)
    owner = fields.Nested(OwnerSchema, required=True)
    proposed_use = fields.String(required=True, validate=validate.Length(min=1, max=300))
    description = fields.String(allow_none=True, validate=TEXT)
    device_created_at = fields.AwareDateTime(allow_none=True)


class SitePatchSchema(SiteSchema):
    address = fields.String(validate=validate.Length(min=1, max=300))
    location = fields.Nested(SiteLocationSchema)


class OwnerPatchSchema(OwnerSchema):
    name = fields.String(validate=validate.Length(min=1, max=200))


class PermitUpdateSchema(_LuhpplCheck, EditSchema):
    version = Integer(metadata={"description": "The version edited (or send If-Match)"})
    site = fields.Nested(SitePatchSchema)
    owner = fields.Nested(OwnerPatchSchema)
    disturbed_area_sqft = fields.Float(validate=validate.Range(min=0, max=1e10))
    drains_to_ms4 = Boolean()
    drains_to_waters = Boolean()
    proposed_use = fields.String(validate=validate.Length(min=1, max=300))
    luhppl_kind = fields.String(allow_none=True, validate=validate.OneOf(rules.LUHPPL_KINDS))
    luhppl_description = fields.String(allow_none=True, validate=validate.Length(max=1000))
    description = fields.String(allow_none=True, validate=TEXT)


class ExemptionClaimInSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(rules.EXEMPTION_KINDS))
    document_valid = Boolean(load_default=False)


class DeterminationRequestSchema(PermitInputsSchema):
    exemptions = fields.List(fields.Nested(ExemptionClaimInSchema), load_default=list,
                             validate=validate.Length(max=20))


class DeterminationSchema(Schema):
    review_level = fields.String(required=True, validate=validate.OneOf(REVIEW_LEVELS))
    rules = fields.List(fields.String(), required=True)
    explanation = fields.String(required=True)
    exemption_status = fields.String(allow_none=True, validate=validate.OneOf(("claimed", "accepted")), metadata={
        "description": "An application's exemption (R-B2): `claimed` while no supervisor has accepted a claim that "
                       "stands (shown as claimed, not decided), `accepted` once one is (R-B1), null when not "
                       "exempt. Absent from the stateless calculator's answer."})
    inputs = fields.Dict(metadata={"description": "The inputs the stored determination used (R-A5)"})
    # Stored as JSON with the permit, so these are already YYYY-MM-DD strings.
    as_of = fields.String(allow_none=True, metadata={"format": "date"})
    valid_until = fields.String(allow_none=True, metadata={"format": "date",
                                                           "description": "Last day the exemption it rests on is valid"})


class PermitConditionSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    number = Integer()
    text = fields.String()
    version = Integer()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class ConditionCreateSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(min=1, max=5000))


class ConditionUpdateSchema(ConditionCreateSchema):
    version = Integer()


class PermitPhaseSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    number = Integer()
    name = fields.String()
    description = fields.String(allow_none=True)
    bond_amount = Money(allow_none=True)
    status = fields.String(metadata={"description": "pending | complete"})
    completed_on = fields.Date(allow_none=True)
    completed_in_compliance = Boolean()
    completion_notes = fields.String(allow_none=True)
    version = Integer()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class PhaseCreateSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    description = fields.String(allow_none=True, validate=TEXT)
    bond_amount = Money(allow_none=True)


class PhaseUpdateSchema(PhaseCreateSchema):
    name = fields.String(validate=validate.Length(min=1, max=200))
    version = Integer()


class PhaseCompletionSchema(Schema):
    completed_on = fields.Date(required=True)
    in_compliance = Boolean(required=True)
    notes = fields.String(allow_none=True, validate=TEXT)


DOCUMENT_KINDS = ("esc_plan", "om_plan", "other")


class PermitDocumentSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    kind = fields.String(metadata={"description": "esc_plan | om_plan | other"})
    filename = fields.String()
    title = fields.String(allow_none=True)
    file_id = fields.String(allow_none=True, metadata={"description": "A photo of the sheet (older records)"})
    content_type = fields.String(allow_none=True, metadata={"description": "The uploaded file's type, read from "
                                                                           "its bytes; null: recorded by name"})
    sha256 = fields.String(allow_none=True)
    bytes = Integer(attribute="size", allow_none=True)
    url = fields.Method("_url", metadata={"type": ["string", "null"],
                                          "description": "Where the uploaded file's bytes are read; null without one"})
    created_by = fields.String(allow_none=True)
    version = Integer()
    created_at = fields.DateTime()

    def _url(self, doc):
        return f"/api/v1/permits/{doc.permit_id}/documents/{doc.id}/file" if doc.storage_key else None


class PermitDocumentUploadQuerySchema(Schema):
    id = fields.UUID(metadata={"description": "Client-made id; the same bytes and kind again answer the document"})
    kind = fields.String(required=True, validate=validate.OneOf(DOCUMENT_KINDS))
    filename = fields.String(validate=validate.Length(min=1, max=255),
                             metadata={"description": "The file's name as the user chose it (display only)"})
    title = fields.String(validate=validate.Length(max=300))


class PermitDocumentCreateSchema(Schema):
    id = fields.UUID()
    kind = fields.String(required=True, validate=validate.OneOf(DOCUMENT_KINDS))
    filename = fields.String(required=True, validate=[validate.Length(min=1, max=255), _plain_filename])
    title = fields.String(allow_none=True, validate=validate.Length(max=300))
    file_id = fields.String(allow_none=True, validate=validate.Length(max=64),
                            metadata={"description": "Id of a photo of this permit that you may see, when there is "
                                                     "one (422 otherwise, as for an unknown id)"})


class ExemptionSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    kind = fields.String()
    statement = fields.String(allow_none=True)
    single_family = Boolean(allow_none=True)
    utility_kind = fields.String(allow_none=True)
    document_number = fields.String(allow_none=True)
    issued_on = fields.Date(allow_none=True)
    expires_on = fields.Date(allow_none=True)
    document_photo_id = fields.String(allow_none=True)
    document_id = fields.String(allow_none=True)
    status = fields.String(metadata={"description": "claimed | accepted | rejected"})
    stands = Boolean(metadata={"description": "Counts today (R-B2): not rejected, and for B5/B6 a valid document"})
    decided_by = fields.String(allow_none=True)
    decided_at = fields.DateTime(allow_none=True)
    decision_reason = fields.String(allow_none=True)
    created_by = fields.String(allow_none=True)
    version = Integer()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class ExemptionEvidenceSchema(Schema):
    statement = fields.String(allow_none=True, validate=TEXT)
    single_family = Boolean(allow_none=True)
    utility_kind = fields.String(allow_none=True, validate=validate.Length(max=40))
    document_number = fields.String(allow_none=True, validate=validate.Length(max=80))
    issued_on = fields.Date(allow_none=True)
    expires_on = fields.Date(allow_none=True)
    document_photo_id = fields.String(allow_none=True, validate=validate.Length(max=64))
    document_id = fields.String(allow_none=True, validate=validate.Length(max=36))


class ExemptionCreateSchema(ExemptionEvidenceSchema):
    id = fields.UUID()
    kind = fields.String(required=True, validate=validate.OneOf(rules.EXEMPTION_KINDS))


class ExemptionUpdateSchema(ExemptionEvidenceSchema):
    version = Integer()


class ExemptionDecisionSchema(Schema):
    decision = fields.String(required=True, validate=validate.OneOf(("accepted", "rejected")))
    reason = fields.String(allow_none=True, validate=TEXT)


class PermitAssignmentSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    inspector_id = fields.String()
    assigned_at = fields.DateTime()
    assigned_by = fields.String(allow_none=True)
    removed_at = fields.DateTime(allow_none=True)
    removed_by = fields.String(allow_none=True)


class AssignmentCreateSchema(Schema):
    inspector_id = fields.String(required=True, validate=validate.Length(min=1, max=36))


class AssignmentQuerySchema(Schema):
    include_removed = fields.Boolean(load_default=False)


def _security_posted(permit) -> str | None:
    posted = permit.today.security_posted
    return None if posted is None else f"{posted:.2f}"


class PermitSchema(Schema):
    id = fields.String()
    number = fields.String(allow_none=True, metadata={"description": "ALDR-YYYY-NNNN or LDP-YYYY-NNNN, given on submission"})
    former_numbers = fields.List(fields.String())
    status = fields.String(validate=STATUS_LIST)
    # As they stand today: a read never stores them (R-A5, R-B1)
    review_level = fields.String(attribute="today.review_level")
    determination = fields.Nested(DeterminationSchema, attribute="today.determination")
    version = Integer()
    applicant_id = fields.String(allow_none=True, metadata={"description": "null for a permit a supervisor opened for an enforcement case"})
    created_by = fields.String(allow_none=True)
    site = fields.Nested(SiteSchema)
    owner = fields.Nested(OwnerSchema, attribute="today.owner")
    disturbed_area_sqft = fields.Float()
    drains_to_ms4 = Boolean()
    drains_to_waters = Boolean()
    proposed_use = fields.String()
    luhppl_kind = fields.String(allow_none=True)
    luhppl_description = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    conditions = fields.List(fields.Nested(PermitConditionSchema))
    phases = fields.List(fields.Nested(PermitPhaseSchema))
    documents = fields.List(fields.Nested(PermitDocumentSchema))
    exemptions = fields.List(fields.Nested(ExemptionSchema))
    assigned_inspector_ids = fields.List(fields.String())
    cease_and_desist = Boolean()
    parties = fields.List(fields.Nested(PartySchema), attribute="today.parties", metadata={
        "description": "Contact details as this viewer may see them (R-O0; see contact_withheld)"})
    case_id = fields.String(attribute="today.case_id", allow_none=True, metadata={
        "description": "The enforcement case this application is linked to (R-O0); null to a viewer who may not "
                       "see that case (an applicant not named on it as a party)"})
    project_id = fields.String(allow_none=True, metadata={"description": "Linked applications of one project (R-A7)"})
    # Computed for today and loaded up front (views.shown_all): each field reads, none queries.
    parcel_flag = fields.Function(lambda permit: permit.today.parcel_flag, metadata={
        "description": "Other open applications on this parcel, until a supervisor links or separates them (R-A7): "
                       "the ids the viewer may see, and one entry \"other\" when there are any the viewer may not "
                       "see (staff see every id)"})
    security_required_amount = Money(allow_none=True)
    security_posted = fields.Function(_security_posted, metadata={"description": "Security received and held (R-D1)"})
    approval_lapsed = fields.Function(lambda permit: permit.today.approval_lapsed,
                                      metadata={"description": "The exemption under this approval lapsed (R-A6)"})
    commencement_blocked = fields.Function(lambda permit: permit.today.commencement_blocked, metadata={
        "description": "Why work may not be recorded as commenced: {error, message}, or null"})
    submitted_at = fields.DateTime(allow_none=True)
    decided_at = fields.DateTime(allow_none=True)
    work_commenced_on = fields.Date(allow_none=True)
    work_completed_on = fields.Date(allow_none=True)
    closed_at = fields.DateTime(allow_none=True)
    device_created_at = fields.DateTime(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class PermitListQuerySchema(PageArgs):
    status = fields.String(validate=validate.Length(max=300), metadata={
        "description": "One status or several separated by commas", "pattern": STATUS_FILTER_PATTERN})
    review_level = fields.String(validate=validate.OneOf(REVIEW_LEVELS))
    assigned_to = fields.String(validate=validate.OneOf(("me",)), metadata={"description": "`me`: my assigned sites"})
    q = fields.String(validate=validate.Length(max=200), metadata={"description": "Search number, address, parcel, owner, use"})

    @validates("status")
    def _statuses(self, value, **_kw):
        bad = [s for s in value.split(",") if s.strip() not in STATUSES]
        if bad:
            raise ValidationError(f"Unknown status {', '.join(bad)}; use {', '.join(STATUSES)}.")


class TransitionSchema(Schema):
    to = fields.String(required=True, validate=STATUS_LIST)
    reason = fields.String(allow_none=True, validate=TEXT)
    on = fields.Date(allow_none=True, metadata={"description": "Day work commenced or completed (default today)"})
    version = Integer(metadata={"description": "Optional: refuse the move if the permit changed (or If-Match)"})


class PermitEventSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    from_status = fields.String(allow_none=True)
    to_status = fields.String()
    actor_id = fields.String(allow_none=True)
    at = fields.DateTime()
    reason = fields.String(allow_none=True)


class AuditQuerySchema(PageArgs):
    record_id = fields.String(validate=validate.Length(min=1, max=64))
    permit_id = fields.String(validate=validate.Length(min=1, max=36))

    @validates_schema
    def _one_filter(self, data, **_kw):
        if not data.get("record_id") and not data.get("permit_id"):
            raise ValidationError({"record_id": ["Name the record (record_id) or the permit (permit_id)."]})


class AuditEntrySchema(Schema):
    id = fields.String()
    at = fields.DateTime()
    actor_id = fields.String(allow_none=True)
    device_id = fields.String(allow_none=True)
    ip_address = fields.String(allow_none=True)
    action = fields.String()
    record_type = fields.String()
    record_id = fields.String()
    permit_id = fields.String(allow_none=True)
    changes = fields.Dict()
