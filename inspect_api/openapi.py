"""The names the OpenAPI document gives what generated clients call: every operation's `operationId`,
the tag that groups it, and the components whose derived names would collide.

A client generator names its methods after `operationId` and its models after component names, so
both are part of the contract: renaming one breaks every client generated before. They are written
out here, in one table reviewed as a whole, rather than derived from view names that a refactoring may
change. An operation missing from the table stops the app at start-up; tests/contract/
test_operation_ids.py keeps a snapshot of every name and fails when one changes.
"""
from __future__ import annotations

from typing import Any

from apispec import BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask_smorest.spec.plugins import FlaskPlugin

from .records import RecordIdConverter

PREFIX = "/api/v1"

# (method, path under /api/v1) -> operationId: camelCase, a verb then the noun it acts on.
OPERATION_IDS: dict[tuple[str, str], str] = {
    # auth
    ("POST", "/auth/login"): "login",
    ("POST", "/auth/register"): "register",
    ("POST", "/auth/refresh"): "refreshToken",
    ("POST", "/auth/logout"): "logout",
    ("GET", "/me"): "getMe",
    ("POST", "/me/password"): "changeMyPassword",
    ("GET", "/users"): "listUsers",
    ("POST", "/users"): "createUser",
    ("GET", "/users/{user_id}"): "getUser",
    ("PATCH", "/users/{user_id}"): "updateUser",
    ("DELETE", "/users/{user_id}"): "deactivateUser",
    ("GET", "/users/{user_id}/sessions"): "listUserSessions",
    # permits
    ("POST", "/determinations"): "determineReview",
    ("GET", "/permits"): "listPermits",
    ("POST", "/permits"): "createPermit",
    ("GET", "/permits/{permit_id}"): "getPermit",
    ("PATCH", "/permits/{permit_id}"): "updatePermit",
    ("POST", "/permits/{permit_id}/transitions"): "transitionPermit",
    ("GET", "/permits/{permit_id}/events"): "listPermitEvents",
    ("GET", "/permits/{permit_id}/exemptions"): "listExemptions",
    ("POST", "/permits/{permit_id}/exemptions"): "claimExemption",
    ("GET", "/permits/{permit_id}/exemptions/{exemption_id}"): "getExemption",
    ("PATCH", "/permits/{permit_id}/exemptions/{exemption_id}"): "updateExemption",
    ("POST", "/permits/{permit_id}/exemptions/{exemption_id}/decision"): "decideExemption",
    ("GET", "/permits/{permit_id}/conditions"): "listConditions",
    ("POST", "/permits/{permit_id}/conditions"): "createCondition",
    ("GET", "/permits/{permit_id}/conditions/{condition_id}"): "getCondition",
    ("PATCH", "/permits/{permit_id}/conditions/{condition_id}"): "updateCondition",
    ("GET", "/permits/{permit_id}/phases"): "listPhases",
    ("POST", "/permits/{permit_id}/phases"): "createPhase",
    ("GET", "/permits/{permit_id}/phases/{phase_id}"): "getPhase",
    ("PATCH", "/permits/{permit_id}/phases/{phase_id}"): "updatePhase",
    ("POST", "/permits/{permit_id}/phases/{phase_id}/completion"): "completePhase",
    ("GET", "/permits/{permit_id}/documents"): "listPermitDocuments",
    ("POST", "/permits/{permit_id}/documents"): "createPermitDocument",
    ("GET", "/permits/{permit_id}/documents/{document_id}"): "getPermitDocument",
    ("POST", "/permits/{permit_id}/document-files"): "uploadPermitDocument",
    ("GET", "/permits/{permit_id}/documents/{document_id}/file"): "getPermitDocumentFile",
    ("GET", "/permits/{permit_id}/assignments"): "listAssignments",
    ("POST", "/permits/{permit_id}/assignments"): "assignInspector",
    ("DELETE", "/permits/{permit_id}/assignments/{inspector_id}"): "unassignInspector",
    ("GET", "/permits/{permit_id}/parties"): "listParties",
    ("POST", "/permits/{permit_id}/parties"): "createParty",
    ("PATCH", "/permits/{permit_id}/parties/{party_id}"): "updateParty",
    ("POST", "/permits/{permit_id}/project"): "linkPermitProject",
    ("PUT", "/permits/{permit_id}/security-requirement"): "setSecurityRequirement",
    ("GET", "/audit"): "listAuditRows",
    # entry
    ("GET", "/entry-authorizations"): "listEntryAuthorizations",
    ("POST", "/entry-authorizations"): "createEntryAuthorization",
    ("GET", "/entry-authorizations/{record_id}"): "getEntryAuthorization",
    ("PATCH", "/entry-authorizations/{record_id}"): "updateEntryAuthorization",
    ("POST", "/entry-authorizations/{record_id}/revoke"): "revokeEntryAuthorization",
    # checklists
    ("GET", "/checklist-templates"): "listChecklistTemplates",
    ("GET", "/checklist-templates/{key}"): "getChecklistTemplate",
    ("POST", "/checklist-templates/{key}/versions"): "publishChecklistTemplateVersion",
    ("GET", "/checklist-templates/{key}/versions/{version}"): "getChecklistTemplateVersion",
    # inspections
    ("GET", "/inspections"): "listInspections",
    ("POST", "/inspections"): "createInspection",
    ("GET", "/inspections/{record_id}"): "getInspection",
    ("PATCH", "/inspections/{record_id}"): "updateInspection",
    ("DELETE", "/inspections/{record_id}"): "deleteInspection",
    ("POST", "/inspections/{record_id}/submit"): "submitInspection",
    ("POST", "/inspections/{record_id}/review"): "reviewInspection",
    ("GET", "/findings"): "listFindings",
    ("POST", "/findings"): "createFinding",
    ("GET", "/findings/{record_id}"): "getFinding",
    ("PATCH", "/findings/{record_id}"): "updateFinding",
    # sampling
    ("GET", "/samples"): "listSamples",
    ("POST", "/samples"): "createSample",
    ("GET", "/samples/{sample_id}"): "getSample",
    ("PATCH", "/samples/{sample_id}"): "updateSample",
    ("GET", "/permits/{permit_id}/turbidity-weekly"): "getWeeklyTurbidity",
    ("GET", "/action-levels"): "getActionLevels",
    ("PUT", "/action-levels"): "replaceActionLevels",
    # program
    ("GET", "/inspections/due"): "listInspectionsDue",
    ("GET", "/inspections/program-settings"): "getProgramSettings",
    ("GET", "/storm-events"): "listStormEvents",
    ("POST", "/storm-events"): "createStormEvent",
    ("POST", "/storm-events/import"): "importStormEvents",
    ("GET", "/inspection-requests"): "listInspectionRequests",
    ("POST", "/inspection-requests"): "createInspectionRequest",
    ("GET", "/inspection-requests/{request_id}"): "getInspectionRequest",
    # photos and resumable uploads (tus)
    ("GET", "/photos"): "listPhotos",
    ("GET", "/photos/{photo_id}"): "getPhoto",
    ("PUT", "/photos/{photo_id}"): "uploadPhoto",
    ("GET", "/photos/{photo_id}/original"): "getPhotoOriginal",
    ("GET", "/photos/{photo_id}/thumbnail"): "getPhotoThumbnail",
    ("GET", "/photos/{photo_id}/annotations"): "listPhotoAnnotations",
    ("GET", "/photos/{photo_id}/annotated"): "getAnnotatedPhoto",
    ("POST", "/photo-annotations"): "createPhotoAnnotation",
    ("GET", "/photo-annotations/{annotation_id}"): "getPhotoAnnotation",
    ("PATCH", "/photo-annotations/{annotation_id}"): "updatePhotoAnnotation",
    ("DELETE", "/photo-annotations/{annotation_id}"): "deletePhotoAnnotation",
    ("OPTIONS", "/uploads"): "describeUploads",
    ("POST", "/uploads"): "createUpload",
    ("OPTIONS", "/uploads/{upload_id}"): "describeUpload",
    ("HEAD", "/uploads/{upload_id}"): "getUploadOffset",
    ("PATCH", "/uploads/{upload_id}"): "appendUpload",
    ("DELETE", "/uploads/{upload_id}"): "deleteUpload",
    # sync
    ("POST", "/sync/push"): "pushSync",
    ("GET", "/sync/pull"): "pullSync",
    ("GET", "/sync/conflicts"): "listSyncConflicts",
    ("GET", "/sync/conflicts/{conflict_id}"): "getSyncConflict",
    ("POST", "/sync/conflicts/{conflict_id}/resolve"): "resolveSyncConflict",
    ("GET", "/devices"): "listDevices",
    ("GET", "/devices/{device_id}"): "getDevice",
    ("POST", "/devices/{device_id}/revoke"): "revokeDevice",
    # completion
    ("GET", "/completion-notices"): "listCompletionNotices",
    ("POST", "/completion-notices"): "createCompletionNotice",
    ("GET", "/completion-notices/{notice_id}"): "getCompletionNotice",
    ("PATCH", "/completion-notices/{notice_id}"): "updateCompletionNotice",
    ("POST", "/completion-notices/{notice_id}/review"): "reviewCompletionNotice",
    ("GET", "/permits/{permit_id}/certificate"): "getPermitCertificate",
    ("POST", "/permits/{permit_id}/certificate"): "issueCertificate",
    ("GET", "/certificates"): "listCertificates",
    ("GET", "/certificates/{certificate_id}.pdf"): "getCertificatePdf",
    ("GET", "/certificates/{certificate_id}"): "getCertificate",
    ("GET", "/final-reports"): "listFinalReports",
    ("POST", "/final-reports"): "createFinalReport",
    ("GET", "/final-reports/{report_id}"): "getFinalReport",
    ("PATCH", "/final-reports/{report_id}"): "updateFinalReport",
    ("POST", "/final-reports/{report_id}/submit"): "submitFinalReport",
    ("POST", "/final-reports/{report_id}/review"): "reviewFinalReport",
    ("GET", "/final-reports/{report_id}/documents"): "listFinalReportDocuments",
    ("POST", "/final-reports/{report_id}/documents"): "uploadFinalReportDocument",
    ("POST", "/final-reports/{report_id}/paper-documents"): "recordPaperFinalReportDocument",
    ("GET", "/final-reports/{report_id}/documents/{document_id}"): "getFinalReportDocument",
    ("DELETE", "/final-reports/{report_id}/documents/{document_id}"): "deleteFinalReportDocument",
    # bonds
    ("GET", "/bonds"): "listBonds",
    ("POST", "/bonds"): "createBond",
    ("GET", "/bonds/{bond_id}"): "getBond",
    ("PATCH", "/bonds/{bond_id}"): "updateBond",
    ("POST", "/bonds/{bond_id}/releases"): "releaseBond",
    # enforcement
    ("GET", "/orders"): "listOrders",
    ("POST", "/orders"): "createOrder",
    ("GET", "/orders/{order_id}"): "getOrder",
    ("PATCH", "/orders/{order_id}"): "updateOrder",
    ("POST", "/orders/{order_id}/status"): "changeOrderStatus",
    ("POST", "/orders/{order_id}/responses"): "respondToOrder",
    ("GET", "/orders/{order_id}.pdf"): "getOrderPdf",
    ("GET", "/cost-recoveries"): "listCostRecoveries",
    ("POST", "/cost-recoveries"): "createCostRecovery",
    ("GET", "/cost-recoveries/{record_id}"): "getCostRecovery",
    ("PATCH", "/cost-recoveries/{record_id}"): "updateCostRecovery",
    ("POST", "/cost-recoveries/{record_id}/protest"): "protestCostRecovery",
    ("POST", "/cost-recoveries/{record_id}/decision"): "decideCostProtest",
    ("POST", "/cost-recoveries/{record_id}/payments"): "recordCostPayment",
    ("GET", "/cost-recoveries/{record_id}/statement"): "getCostStatement",
    ("GET", "/cost-recoveries/{record_id}/lien-certificate.pdf"): "getLienCertificatePdf",
    ("GET", "/cost-recoveries/{record_id}/lien-certificates/{certificate_id}.pdf"): "getKeptLienCertificatePdf",
    ("GET", "/cost-recoveries/{record_id}/notices/{notice_id}.pdf"): "getCostNoticePdf",
    ("GET", "/violations"): "listViolations",
    ("POST", "/violations"): "createViolation",
    ("GET", "/violations/{violation_id}"): "getViolation",
    ("PATCH", "/violations/{violation_id}"): "updateViolation",
    ("GET", "/permits/{permit_id}/penalty-exposure"): "getPenaltyExposure",
    ("GET", "/fine-schedule"): "getFineSchedule",
    ("PUT", "/fine-schedule"): "replaceFineSchedule",
    ("GET", "/citations"): "listCitations",
    ("POST", "/citations"): "createCitation",
    ("GET", "/citations/{citation_id}"): "getCitation",
    ("PATCH", "/citations/{citation_id}"): "updateCitation",
    ("GET", "/citations/{citation_id}.pdf"): "getCitationPdf",
    # agenda
    ("GET", "/deadlines"): "listDeadlines",
    # public
    ("GET", "/public/audit-seals"): "listPublicAuditSeals",
    ("GET", "/public/permits"): "searchPublicPermits",
    ("GET", "/public/permits/{number}"): "getPublicPermit",
    ("POST", "/public/reports"): "submitPublicReport",
    ("GET", "/public/reports/{reference}"): "getPublicReportStatus",
    ("GET", "/public-reports"): "listPublicReports",
    ("GET", "/public-reports/{report_id}"): "getPublicReport",
    ("GET", "/public-reports/{report_id}/photos/{photo_id}"): "getPublicReportPhoto",
    ("POST", "/public-reports/{report_id}/triage"): "triagePublicReport",
    # notifications
    ("GET", "/notifications"): "listNotifications",
    ("POST", "/notifications/{notification_id}/resend"): "resendNotification",
    ("GET", "/me/notification-preferences"): "getMyNotificationPreferences",
    ("PUT", "/me/notification-preferences"): "setMyNotificationPreferences",
    # the field app's base map
    ("GET", "/map-settings"): "getMapSettings",
    # reports and exports
    ("GET", "/permits/{permit_id}/timeline"): "getPermitTimeline",
    ("GET", "/inspections/{inspection_id}/report.pdf"): "getInspectionReportPdf",
    ("GET", "/samples/{sample_id}/custody.pdf"): "getSampleCustodyPdf",
    ("GET", "/exports/permits.geojson"): "exportPermitsGeojson",
    ("GET", "/exports/findings.geojson"): "exportFindingsGeojson",
    ("GET", "/exports/photos.geojson"): "exportPhotosGeojson",
    ("GET", "/exports/inspections.csv"): "exportInspectionsCsv",
    ("GET", "/exports/findings.csv"): "exportFindingsCsv",
    ("GET", "/exports/ms4-annual-report"): "getMs4AnnualReport",
    ("GET", "/permits/{permit_id}/case-file.zip"): "getCaseFile",
}

# Operations are grouped by domain, one tag each: a generated client has a module per tag
# (openapi-python-client: api/<tag>/<operationId>.py), so a tag is as much part of the contract as an
# operationId. A domain's tag gathers the operations of the blueprints listed, and its description is
# theirs, in this order.
TAGS: dict[str, tuple[str, ...]] = {
    "auth": ("auth",),
    "permits": ("permits", "permit-parts", "permit-cases"),
    "audit": ("audit",),
    "entry": ("entry",),
    "checklists": ("checklists",),
    "inspections": ("inspections", "findings"),
    "sampling": ("sampling",),
    "program": ("program",),
    "photos": ("photos", "uploads"),
    "sync": ("sync", "devices"),
    "closeout": ("completion", "final_reports"),
    "bonds": ("bonds",),
    "enforcement": ("orders", "cost_recovery", "penalties"),
    "agenda": ("agenda",),
    "public": ("public_permits", "public_reports", "public_report_queue", "public_audit_seals"),
    "notifications": ("notifications", "notification_preferences"),
    "reports": ("reports",),
    "exports": ("exports",),
    "map": ("map",),
}
TAG_OF = {blueprint: tag for tag, blueprints in TAGS.items() for blueprint in blueprints}

# Schema classes published under another name than their own (the class name less "Schema"), because
# a generator derives that name for an inline property: openapi-python-client calls the enum of
# `Order.status` "OrderStatus" and the object of `Citation.violator` "CitationViolator", and drops a
# model whose derived name is taken. tests/contract/test_component_names.py finds every such clash.
COMPONENT_NAMES: dict[str, str] = {
    "inspect_api.enforcement.schemas.OrderStatusSchema": "OrderStatusChange",
    "inspect_api.enforcement.schemas.OrderServiceSchema": "OrderServiceInput",
    "inspect_api.enforcement.schemas_penalties.CitationViolatorSchema": "CitationViolatorInput",
    "inspect_api.enforcement.schemas_penalties.CitationDeliverySchema": "CitationDeliveryInput",
}


class UnnamedOperation(RuntimeError):
    pass


class OperationIds(BasePlugin):
    """Gives each operation its operationId from OPERATION_IDS, and its domain's tag (TAGS) for its
    blueprint's, as the blueprint registers it."""

    def operation_helper(self, path: str | None = None, operations: dict | None = None, **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            key = (method.upper(), path[len(PREFIX):] if path and path.startswith(PREFIX) else path)
            if key not in OPERATION_IDS:
                raise UnnamedOperation(f"{key[0]} {path} has no operationId: add it to OPERATION_IDS in "
                                       "inspect_api/openapi.py and to the snapshot of the contract tests")
            operation["operationId"] = OPERATION_IDS[key]
            unknown = [tag for tag in operation.get("tags", []) if tag not in TAG_OF]
            if unknown:
                raise UnnamedOperation(f"{key[0]} {path}: blueprint {unknown} is in no tag of TAGS in "
                                       "inspect_api/openapi.py")
            operation["tags"] = list(dict.fromkeys(TAG_OF[tag] for tag in operation.get("tags", [])))


def group_tags(spec) -> None:
    """Replace the document's tags, one per blueprint as flask-smorest declares them, by the domains'
    tags of TAGS, each described by its blueprints' descriptions."""
    described = {tag["name"]: tag.get("description") for tag in spec._tags}
    spec._tags[:] = [{"name": tag, "description": "\n\n".join(described[b] for b in blueprints if described.get(b))}
                     for tag, blueprints in TAGS.items() if any(b in described for b in blueprints)]


def component_name(schema) -> str:
    """The component name of a marshmallow schema: COMPONENT_NAMES, else the class name less "Schema"."""
    cls = resolve_schema_cls(schema)
    cls = cls[0] if isinstance(cls, list) else cls
    name = COMPONENT_NAMES.get(f"{cls.__module__}.{cls.__qualname__}")
    if name:
        return name
    name = cls.__name__
    return (name[:-6] or name) if name.endswith("Schema") else name


# A string without NUL: every JSON body and query value with one is refused (http.register_http_policies).
NO_NUL_PATTERN = "^[^\\u0000]*$"


def text_without_nul(self, field, ret: dict, **kwargs: Any) -> dict:
    """An apispec attribute function: a string that says nothing else of its characters (no pattern,
    enum or format, each of which already excludes NUL) is published with NO_NUL_PATTERN, so the
    document refuses what the server refuses."""
    types = ret.get("type")
    if "string" in (types if isinstance(types, list) else [types]) and not {"pattern", "enum", "format"} & set(ret):
        return {"pattern": NO_NUL_PATTERN}
    return {}


class _Converter(OpenAPIConverter):
    """Publishes what a schema's `Meta.json_schema` says of the body as a whole (an either-or of
    required properties), which no one field can say, so the document refuses what the server refuses
    for that reason."""

    def schema2jsonschema(self, schema) -> dict:
        jsonschema = super().schema2jsonschema(schema)
        jsonschema.update(getattr(getattr(schema, "Meta", None), "json_schema", {}))
        return jsonschema


class _MarshmallowPlugin(MarshmallowPlugin):
    Converter = _Converter

    def init_spec(self, spec) -> None:
        super().init_spec(spec)
        self.converter.add_attribute_function(text_without_nul)


def spec_kwargs() -> dict[str, Any]:
    """The apispec plugins of one app's document (fresh for each app: plugins hold their spec)."""
    flask_plugin = FlaskPlugin()
    flask_plugin.register_converter(RecordIdConverter,
                                    lambda _: {"type": "string", "pattern": RecordIdConverter.PATTERN})
    return {"flask_plugin": flask_plugin,
            "marshmallow_plugin": _MarshmallowPlugin(schema_name_resolver=component_name),
            "extra_plugins": [OperationIds()]}
