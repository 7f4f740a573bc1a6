"""Shapes of enforcement records (R-O, R-P). Format only; the law is in rules.py.

Money travels as a JSON string with exactly two decimals ("1234.50"), never as a float, so no client
loses a cent to binary rounding. Input may be a string or a number with at most two decimals.
"""
from __future__ import annotations

from marshmallow import fields, validate

from ..paging import PageArgs
from .. import clock
from ..schemas import Boolean, EditSchema, Integer, Money, RecordFieldsSchema, Schema
from . import rules

NOTE = validate.Length(max=8000)
SHORT_TEXT = validate.Length(min=1, max=300)


# --- orders --------------------------------------------------------------------------------------
class OrderRequirementSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(rules.ORDER_KINDS))
    text = fields.String(required=True, validate=validate.Length(min=1, max=4000))


class OrderServiceSchema(Schema):
    method = fields.String(required=True, validate=validate.OneOf(rules.SERVICE_METHODS))
    served_at = fields.AwareDateTime(allow_none=True)
    served_to = fields.String(allow_none=True, validate=validate.Length(max=300))


_KINDS_TEXT = ("Any of the four kinds of bylaw Enforcement §B(1)(a)-(d), and `other`: another requirement stated "
               "in words (R-O1), given as a requirement of kind `other`.")
_kinds = fields.List(fields.String(validate=validate.OneOf(rules.ORDER_KINDS)),
                     validate=validate.Length(min=1, max=len(rules.ORDER_KINDS)), metadata={"description": _KINDS_TEXT})


class ViolatedProvisionSchema(Schema):
    provision_kind = fields.String(required=True, validate=validate.OneOf(rules.PROVISION_KINDS))
    condition_id = fields.String(allow_none=True, validate=validate.Length(max=36),
                                 metadata={"description": "The permit condition violated (provision_kind "
                                                          "permit_condition)"})
    provision = fields.String(allow_none=True, validate=validate.Length(max=300),
                              metadata={"description": "e.g. \"§194-21(C)\" or the ESC/O&M plan item"})


_violated = fields.List(fields.Nested(ViolatedProvisionSchema), validate=validate.Length(max=50), metadata={
    "description": "R-O1b: the provisions or permit conditions violated"})
_recipients = fields.List(fields.String(validate=validate.Length(max=36)), validate=validate.Length(max=20), metadata={
    "description": "R-O0: ids of the parties the order is addressed to; default the violators and the owners"})
_issuer_title = fields.String(allow_none=True, validate=validate.Length(max=200), metadata={
    "description": "R-O1b: the issuing officer's title for the signature block (default by role)"})


class OrderCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Client-made UUID; POSTing it again is idempotent."})
    permit_id = fields.UUID(required=True)
    kinds = fields.List(fields.String(validate=validate.OneOf(rules.ORDER_KINDS)), required=True,
                        validate=validate.Length(min=1, max=len(rules.ORDER_KINDS)), metadata={"description": _KINDS_TEXT})
    requirements = fields.List(fields.Nested(OrderRequirementSchema), required=True,
                               validate=validate.Length(min=1, max=50))
    finding_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=200))
    issued_on = fields.Date(metadata={"description": "Defaults to today (America/New_York)."})
    deadline = fields.Date(required=True, metadata={"description": "Required by bylaw Enforcement §B(2)."})
    service = fields.Nested(OrderServiceSchema, allow_none=True)
    referral_note = fields.String(allow_none=True, validate=NOTE)
    court_case_note = fields.String(allow_none=True, validate=NOTE)
    device_created_at = fields.AwareDateTime(allow_none=True)
    violated = _violated
    recipient_party_ids = _recipients
    issuer_title = _issuer_title


class OrderUpdateSchema(EditSchema):
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})
    kinds = _kinds
    requirements = fields.List(fields.Nested(OrderRequirementSchema), validate=validate.Length(min=1, max=50))
    finding_ids = fields.List(fields.UUID(), validate=validate.Length(max=200))
    deadline = fields.Date()
    service = fields.Nested(OrderServiceSchema, allow_none=True)
    referral_note = fields.String(allow_none=True, validate=NOTE)
    court_case_note = fields.String(allow_none=True, validate=NOTE)
    violated = _violated
    recipient_party_ids = _recipients
    issuer_title = _issuer_title


class OrderEventSchema(Schema):
    kind = fields.String()
    from_status = fields.String(allow_none=True)
    to_status = fields.String(allow_none=True)
    note = fields.String(allow_none=True)
    actor_id = fields.String(allow_none=True)
    at = fields.AwareDateTime()


def _service(order) -> dict | None:
    if not order.service_method:
        return None
    served_at = order.served_at.isoformat() if order.served_at else None
    return {"method": order.service_method, "served_at": served_at, "served_to": order.served_to}


class OrderSchema(RecordFieldsSchema):
    permit_id = fields.String()
    number = fields.String()
    kinds = fields.List(fields.String())
    requirements = fields.List(fields.Nested(OrderRequirementSchema))
    finding_ids = fields.List(fields.String())
    issued_on = fields.Date()
    deadline = fields.Date()
    issued_by = fields.String(allow_none=True)
    issuer_title = fields.String(allow_none=True)
    violated = fields.List(fields.Nested(ViolatedProvisionSchema))
    recipient_party_ids = fields.List(fields.String())
    service = fields.Function(_service, metadata={"type": ["object", "null"]})
    status = fields.Function(lambda o: rules.order_status(o.status, o.deadline, clock.today()),
                             metadata={"type": "string", "enum": list(rules.ORDER_STATUSES),
                                       "description": "overdue: open after its deadline (America/New_York)."})
    overdue = fields.Function(lambda o: rules.order_status(o.status, o.deadline, clock.today()) == "overdue",
                              metadata={"type": "boolean"})
    status_changed_at = fields.AwareDateTime(allow_none=True)
    referral_note = fields.String(allow_none=True)
    court_case_note = fields.String(allow_none=True)
    events = fields.List(fields.Nested(OrderEventSchema))


class OrderListArgs(PageArgs):
    permit_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(rules.ORDER_STATUSES))


class OrderStatusSchema(Schema):
    to = fields.String(required=True, validate=validate.OneOf(rules.ORDER_STATUSES))
    note = fields.String(allow_none=True, validate=NOTE)
    version = Integer()


ORDER_RESPONSE_MAX_CHARS = 4000  # one written answer; the number per order is ORDER_RESPONSES_MAX


class OrderResponseSchema(Schema):
    note = fields.String(required=True, validate=validate.Length(min=1, max=ORDER_RESPONSE_MAX_CHARS), metadata={
        "description": "The written answer. An order takes ORDER_RESPONSES_MAX answers (20 unless the Town "
                       "sets another number); one more is 409 too_many_responses."})


# --- cost recovery (R-O2, R-O3) ------------------------------------------------------------------
class CostItemSchema(Schema):
    category = fields.String(required=True, validate=validate.OneOf(rules.COST_CATEGORIES))
    description = fields.String(required=True, validate=validate.Length(min=1, max=500))
    amount = Money(required=True, minimum="0.01")


class CostPaymentSchema(Schema):
    id = fields.String(dump_only=True)
    paid_on = fields.Date(required=True)
    amount = Money(required=True, minimum="0.01")
    reference = fields.String(allow_none=True, validate=validate.Length(max=200))


class CostRecoveryCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Optional client-made UUID; POSTing it again is idempotent."})
    order_id = fields.UUID(required=True)
    abatement_completed_on = fields.Date(required=True)
    description = fields.String(allow_none=True, validate=NOTE)
    items = fields.List(fields.Nested(CostItemSchema), required=True, validate=validate.Length(min=1, max=200))


class CostRecoveryUpdateSchema(Schema):
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})
    description = fields.String(allow_none=True, validate=NOTE)
    abatement_completed_on = fields.Date()
    items = fields.List(fields.Nested(CostItemSchema), validate=validate.Length(min=1, max=200))
    recipients = fields.List(fields.Nested(lambda: CostNoticeInSchema()), validate=validate.Length(max=20), metadata={
        "description": "R-O3: the notice of costs to each recipient (the violator and the owner). The whole "
                       "list: an entry with an `id` updates that recipient (a protest stays with it)."})
    court_decision_on = fields.Date(allow_none=True, metadata={"description": "A final court decision (R-O3)."})
    court_amount = Money(allow_none=True, metadata={"description": "The amount the court decided, if any."})
    court_case_note = fields.String(allow_none=True, validate=NOTE)


class CostNoticeInSchema(Schema):
    id = fields.String(validate=validate.Length(max=36), metadata={"description": "An existing recipient's id"})
    party_id = fields.String(allow_none=True, validate=validate.Length(max=36),
                             metadata={"description": "The party notified; fills in name, address and role"})
    role = fields.String(validate=validate.OneOf(rules.NOTICE_ROLES))
    name = fields.String(validate=validate.Length(min=1, max=200))
    mailing_address = fields.String(allow_none=True, validate=validate.Length(max=500))
    method = fields.String(allow_none=True, validate=validate.OneOf(rules.SERVICE_METHODS))
    sent_on = fields.Date(allow_none=True)
    received_on = fields.Date(allow_none=True)


class CostRecipientSchema(Schema):
    id = fields.String()
    party_id = fields.String(allow_none=True)
    role = fields.String()
    name = fields.String()
    mailing_address = fields.String(allow_none=True)
    method = fields.String(allow_none=True)
    sent_on = fields.Date(allow_none=True)
    received_on = fields.Date(allow_none=True)
    notice_late = Boolean(metadata={"description": "Sent after day 30 from the completed abatement"})
    protest_window_ends = fields.Date(allow_none=True, metadata={"description": "Received on + 30 days"})
    protest = fields.Dict(allow_none=True)


class CostProtestSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(min=1, max=8000))
    recipient_id = fields.String(validate=validate.Length(max=36),
                                 metadata={"description": "Whose protest (needed when several were notified)"})
    filed_on = fields.Date(metadata={"description": "Supervisors recording a paper protest only; otherwise today."})


class ProtestDecisionSchema(Schema):
    decision = fields.String(required=True, validate=validate.OneOf(rules.PROTEST_DECISIONS))
    amount = Money(minimum="0.01", metadata={"description": "The reduced amount (decision `reduce` only)."})
    decided_on = fields.Date(metadata={"description": "Defaults to today."})
    reason = fields.String(allow_none=True, validate=NOTE)


class CostRecoveryListArgs(PageArgs):
    permit_id = fields.UUID()
    order_id = fields.UUID()


class CostStatementArgs(Schema):
    on = fields.Date(metadata={"description": "The day of the statement; default today (America/New_York)."})


class LienCertificateSchema(Schema):
    id = fields.String()
    lien_on = fields.Date(metadata={"description": "The lien date it states (the lien attached at its end)"})
    lien_amount = Money()
    produced_on = fields.Date()
    produced_at = fields.DateTime()
    produced_by = fields.String(allow_none=True)
    superseded = Boolean(metadata={"description": "The lien date has moved since it was produced"})
    superseded_at = fields.DateTime(allow_none=True)
    pdf_url = fields.String()


class CostRecoverySchema(RecordFieldsSchema):
    permit_id = fields.String()
    order_id = fields.String()
    order_number = fields.String()
    description = fields.String(allow_none=True)
    abatement_completed_on = fields.Date()
    items = fields.List(fields.Nested(CostItemSchema))
    costs_total = Money()
    notice_due_by = fields.Date()
    recipients = fields.List(fields.Nested(CostRecipientSchema))
    notice_sent_on = fields.Date(allow_none=True, metadata={"description": "The first notice sent"})
    notice_late = Boolean()
    protest_window_ends = fields.Date(allow_none=True, metadata={"description": "The last recipient's (the lien follows it: R-O3)"})
    decision = fields.Dict(allow_none=True)
    court_decision_on = fields.Date(allow_none=True)
    court_amount = Money(allow_none=True)
    court_case_note = fields.String(allow_none=True)
    payments = fields.List(fields.Nested(CostPaymentSchema))
    amount_due = Money()
    lien_on = fields.Date(allow_none=True)
    status = fields.String(metadata={"enum": ["not_noticed", "due", "protest_pending", "lien", "paid", "void"]})
    lien_certificates = fields.List(fields.Nested(LienCertificateSchema), metadata={
        "description": "R-O3: every lien certificate produced, kept; `superseded` once its lien date moved"})


class CostStatementSchema(Schema):
    cost_recovery_id = fields.String()
    on = fields.Date()
    costs_total = Money()
    principal = Money(metadata={"description": "Costs owed after any SA or court decision."})
    payments = fields.List(fields.Nested(CostPaymentSchema))
    payments_total = Money()
    principal_outstanding = Money()
    interest = Money()
    interest_rate = fields.String(metadata={"example": "0.14", "description": "The rate in force on `on`"})
    interest_rates = fields.List(fields.Dict(), metadata={
        "description": "MGL c.59 §57 rates with the day each takes effect (configuration COST_INTEREST_RATES)"})
    day_count = fields.String(metadata={"example": "actual/365"})
    due_on = fields.Date(allow_none=True, metadata={"description": "Day the costs first became due (notice received)."})
    interest_from = fields.Date(allow_none=True, metadata={"description": "First day of interest: day 31."})
    total_due = Money()
    notice_due_by = fields.Date()
    notice_late = Boolean()
    protest_window_ends = fields.Date(allow_none=True)
    lien_on = fields.Date(allow_none=True)
    lien_amount = Money(allow_none=True)
    status = fields.String()
