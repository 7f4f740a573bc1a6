"""Order operations (R-O1): load, check, change, flush (never commit).

Supervisors issue and change orders; where the Town allows it (setting ORDERS_BY_AGENTS), inspectors,
the Authority's agents, may issue orders at the sites they are assigned to. Applicants read the orders
on their own permits and may answer them; inspectors read. A cease-and-desist order in force flags its
permit: commencement is refused and disturbance seen on a visit raises a finding (R-O1a).
"""
from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.orm import joinedload
from flask import current_app

from .. import audit, clock, renditions, signals
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..permits.access import (VIEWER, check_field_work, get_visible_permit, permit_scoped, permit_visible, scope_of,
                              scope_values)
from ..inspections.models import Finding
from ..permits.models import Party, Permit, PermitCondition
from ..permits.services import set_cease_and_desist
from ..paging import named_filters, page_of
from ..records import bump, check_version, existing_for_create
from . import rules
from .models import Order, OrderEvent
from .pdf import order_pdf
from ..numbering import next_number
from .schemas import OrderSchema
from ..auth.models import User

_dump_schema = OrderSchema()
TEXT_FIELDS = ("referral_note", "court_case_note")
DOCUMENT_KIND = "order"
# What the order's document states of the order itself: an amendment to any of these issues it again
# (its next revision) and the earlier one stays. Service, status and notes are recorded on the order,
# not restated on a document already issued.
STATED_FIELDS = ("kinds", "requirements", "finding_ids", "issued_on", "deadline", "issuer_title", "violated",
                 "recipient_party_ids")


def require_supervisor(user, action: str = "do this") -> None:
    if not getattr(user, "is_supervisor", False):
        raise Forbidden(f"Only supervisors may {action}.")


def agents_may_issue() -> bool:
    return bool(current_app.config.get("ORDERS_BY_AGENTS"))


def require_issuer(user, permit: Permit) -> None:
    """R-O1 (§B(1) "the Stormwater Authority or its agents"): supervisors issue orders; inspectors
    only where the Town allows it, and only at sites they are assigned to."""
    if getattr(user, "is_supervisor", False):
        return
    if user.role == "inspector" and agents_may_issue():
        check_field_work(user, permit)
        return
    raise Forbidden("Only supervisors may issue orders." if not agents_may_issue()
                    else "Only supervisors and inspectors assigned to the site may issue orders.")


DEFAULT_TITLES = {"supervisor": "Stormwater Authority", "inspector": "Agent of the Stormwater Authority"}


def visible_orders(user) -> Select:
    return select(Order).where(permit_visible(Order.permit_id, user))


def get_order(user, record_id: str) -> Order:
    order = db.session.scalar(visible_orders(user).where(Order.id == str(record_id)))
    if order is None:
        raise NotFound("No such order.")
    return order


def dump_order(record: Order) -> dict[str, Any]:
    return _dump_schema.dump(record)


def list_orders(user, args: dict[str, Any]) -> tuple[list[Order], int]:
    values = {**scope_values(user), **named_filters(args, ("permit_id",)), "today": clock.today()}
    return page_of(_orders_page, (scope_of(user), "permit_id" in values, args.get("status") or None), values, args)


def _orders_page(scope: str, by_permit: bool, status: str | None) -> Select:
    """The orders list for any caller of `scope` (paging.page_of), by deadline; `status` one of
    rules.ORDER_STATUSES: "overdue" and "open" are open orders past and not past their deadline."""
    query = select(Order).where(permit_scoped(Order.permit_id, scope, bindparam(VIEWER)))
    if by_permit:
        query = query.where(Order.permit_id == bindparam("permit_id"))
    if status == "overdue":
        query = query.where(Order.status == "open", Order.deadline < bindparam("today"))
    elif status == "open":
        query = query.where(Order.status == "open", Order.deadline >= bindparam("today"))
    elif status:
        query = query.where(Order.status == status)
    # The events come in the orders' own statement (a LEFT JOIN on the page): most orders have none,
    # and a second statement for them cost more than the orders' rows (benchmarks/reads.py).
    return query.options(joinedload(Order.events)).order_by(Order.deadline, Order.number)


# --- content checks ------------------------------------------------------------------------------
def _requirements(data: dict[str, Any]) -> list[dict[str, str]]:
    return [{"kind": r["kind"], "text": r["text"].strip()} for r in data["requirements"]]


def _check_content(permit: Permit, values: dict[str, Any]) -> None:
    errors: dict[str, list[str]] = {}
    kinds = values["kinds"]
    if len(set(kinds)) != len(kinds):
        errors["kinds"] = ["Each kind at most once."]
    stray = sorted({r["kind"] for r in values["requirements"]} - set(kinds))
    if stray:
        errors["requirements"] = [f"Requirement of kind {', '.join(stray)} is not among the order's kinds."]
    worded = rules.requirement_problems(kinds, values["requirements"])
    if worded:
        errors.setdefault("requirements", []).extend(worded)
    problem = rules.deadline_problem(values["issued_on"], values["deadline"])
    if problem:
        errors["deadline"] = [problem]
    missing = missing_findings(permit.id, values["finding_ids"])
    if missing:
        errors["finding_ids"] = [f"No finding {fid} on this permit." for fid in missing]
    party_ids = {p.id for p in permit.parties}
    stray = [pid for pid in values.get("recipient_party_ids") or [] if pid not in party_ids]
    if stray:
        errors["recipient_party_ids"] = [f"No party {pid} on this permit or case." for pid in stray]
    condition_ids = {c.id for c in permit.conditions}
    for i, item in enumerate(values.get("violated") or []):
        if item["provision_kind"] == "permit_condition" and item.get("condition_id") not in condition_ids:
            errors[f"violated.{i}.condition_id"] = ["Name a condition of this permit."]
        elif item["provision_kind"] != "permit_condition" and not item.get("provision"):
            errors[f"violated.{i}.provision"] = ["Name the provision violated."]
    if errors:
        raise ValidationFailed(errors=errors)


def missing_findings(permit_id: str, finding_ids: list[str]) -> list[str]:
    if not finding_ids:
        return []
    found = set(db.session.scalars(select(Finding.id).where(
        Finding.id.in_(finding_ids), Finding.permit_id == permit_id, Finding.deleted_at.is_(None))))
    return [fid for fid in finding_ids if fid not in found]


def _service_values(service: dict[str, Any] | None) -> dict[str, Any]:
    service = service or {}
    return {"service_method": service.get("method"), "served_at": service.get("served_at"),
            "served_to": service.get("served_to")}


def _values(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if "kinds" in data:
        values["kinds"] = list(data["kinds"])
    if "requirements" in data:
        values["requirements"] = _requirements(data)
    if "finding_ids" in data:
        values["finding_ids"] = [str(f) for f in data["finding_ids"]]
    for key in ("issued_on", "deadline", "issuer_title", *TEXT_FIELDS):
        if key in data:
            values[key] = data[key]
    if "violated" in data:
        values["violated"] = [{k: v for k, v in item.items() if v is not None} for item in data["violated"]]
    if "recipient_party_ids" in data:
        values["recipient_party_ids"] = [str(p) for p in data["recipient_party_ids"]]
    if "service" in data:
        values.update(_service_values(data["service"]))
    return values


# --- create / update -----------------------------------------------------------------------------
def create_order(user, data: dict[str, Any]) -> tuple[Order, bool]:
    """Issue an order (R-O1); idempotent on the client id."""
    if user.role not in ("supervisor", "inspector"):
        raise Forbidden("Only supervisors may issue orders.")
    permit = get_visible_permit(user, str(data["permit_id"]), for_update=True)
    require_issuer(user, permit)
    values = _values(data)
    values.setdefault("issuer_title", DEFAULT_TITLES.get(user.role))
    values.setdefault("recipient_party_ids", _default_recipients(permit))
    values.setdefault("issued_on", clock.today())
    record_id = str(data["id"]) if data.get("id") else None
    # A resend without issued_on may arrive on a later day: compare it only when the client sent it.
    same_keys = ("kinds", "requirements", "finding_ids", "deadline") + (("issued_on",) if "issued_on" in data else ())
    existing = existing_for_create(Order, record_id, lambda rec: rec.permit_id == permit.id and all(
        getattr(rec, k) == values[k] for k in same_keys))
    if existing is not None:
        return existing, False
    _check_content(permit, values)
    order = Order(id=record_id, permit_id=permit.id, number=next_number("ORD", values["issued_on"].year),
                  status="open", issued_by=user.id, created_by=user.id, device_id=current_device_id(),
                  device_created_at=data.get("device_created_at"), **values)
    db.session.add(order)
    db.session.flush()
    audit.record("order.create", "order", order.id, {"number": order.number, **values}, actor=user,
                 permit_id=permit.id)
    issued_order(order)  # signed and stored now: what every download and the e-mailed copy serve
    sync_cease_and_desist(permit, user)
    signals.order_issued.send(order, actor=user, only=None)  # §B(3): to the violator and the owner
    return order, True


def _default_recipients(permit: Permit) -> list[str]:
    """§B(3) "the violator and the property owner": an order goes to every violator and owner named."""
    return [p.id for p in permit.parties if p.role in ("violator", "owner")]


def update_order(user, record: Order, data: dict[str, Any], expected_version: int | None) -> Order:
    """Amend an order (deadline extension, service, notes); a closed order is kept as it was."""
    require_supervisor(user, "change orders")
    check_version(record, expected_version, dump_order)
    if record.status == "closed":
        raise Conflict("A closed order is kept as it was; issue a new order.", error="record_locked")
    permit = db.session.get(Permit, record.permit_id, with_for_update=True)
    before = dump_order(record)
    changes = _values(data)
    current = {k: getattr(record, k) for k in ("kinds", "requirements", "finding_ids", "issued_on", "deadline",
                                               "violated", "recipient_party_ids")}
    _check_content(permit, {**current, **changes})
    added = [pid for pid in changes.get("recipient_party_ids") or [] if pid not in current["recipient_party_ids"]]
    restated = any(changes[key] != getattr(record, key) for key in changes if key in STATED_FIELDS)
    for key, value in changes.items():
        setattr(record, key, value)
    _save(user, record, before, "order.update")
    if restated:  # the amended order is issued again; the one issued before stays
        renditions.reissue(DOCUMENT_KIND, record.id, _order_render(record), permit_id=record.permit_id)
    sync_cease_and_desist(permit, user)
    if added:  # a party the order is now also addressed to is sent it, as issued to the others
        signals.order_issued.send(record, actor=user, only=added)
    return record


def change_status(user, record: Order, to: str, note: str | None, expected_version: int | None = None) -> Order:
    """Move an order along open -> complied | town_performed | closed (R-O1, R-O2), recorded as an event."""
    require_supervisor(user, "change an order's status")
    check_version(record, expected_version, dump_order)
    problem = rules.order_transition_problem(record.status, to, record.deadline, clock.today())
    if problem:
        raise InvalidTransition(problem)
    before = dump_order(record)
    record.events.append(OrderEvent(kind="status", from_status=rules.order_status(record.status, record.deadline,
                                                                                   clock.today()),
                                    to_status=to, note=note, actor_id=user.id, at=clock.now()))
    record.status, record.status_changed_at = to, clock.now()
    _save(user, record, before, "order.status")
    sync_cease_and_desist(db.session.get(Permit, record.permit_id, with_for_update=True), user)
    return record


def add_response(user, record: Order, note: str) -> Order:
    """The permit holder's written answer to an order (or a supervisor recording one received on paper)."""
    if user.role not in ("applicant", "supervisor"):
        raise Forbidden("Only the permit's applicant (or a supervisor recording it) may answer an order.")
    # Every device that holds the order pulls it with all its events: the answers one order takes are
    # bounded (ORDER_RESPONSES_MAX), counted under the order's row lock so two at once cannot pass it.
    limit = int(current_app.config["ORDER_RESPONSES_MAX"])
    db.session.execute(select(Order.id).where(Order.id == record.id).with_for_update())
    given = db.session.scalar(select(func.count()).select_from(OrderEvent).where(
        OrderEvent.order_id == record.id, OrderEvent.kind == "response"))
    if given >= limit:
        raise Conflict(f"This order already holds {limit} written answers, the most one order takes; send "
                       "anything further to the Stormwater Authority another way.", error="too_many_responses")
    before = dump_order(record)
    record.events.append(OrderEvent(kind="response", note=note, actor_id=user.id, at=clock.now()))
    _save(user, record, before, "order.response")
    return record


def _save(user, record: Order, before: dict, action: str) -> None:
    bump(record)
    db.session.flush()
    audit.record(action, "order", record.id, audit.diff(before, dump_order(record)), actor=user,
                 permit_id=record.permit_id)


def sync_cease_and_desist(permit: Permit, user=None) -> None:
    """R-O1(a): the permit's flag is set while any open cease-and-desist order stands, cleared when none
    does. Overdue orders are open orders, so they keep the flag."""
    db.session.flush()
    open_kinds = db.session.scalars(select(Order.kinds).where(Order.permit_id == permit.id, Order.status == "open"))
    flag = any("cease_and_desist" in (kinds or []) for kinds in open_kinds)
    set_cease_and_desist(permit, flag, user)


def order_context(record: Order) -> dict[str, Any]:
    """What the order PDF prints besides the order itself: the permit and the findings cited."""
    permit = db.session.get(Permit, record.permit_id)
    findings = []
    if record.finding_ids:
        findings = list(db.session.scalars(select(Finding).where(Finding.id.in_(record.finding_ids))
                                           .order_by(Finding.observed_on, Finding.id)))
    parties = {p.id: p for p in db.session.scalars(select(Party).where(Party.permit_id == record.permit_id))}
    recipients = [parties[pid] for pid in record.recipient_party_ids or [] if pid in parties]
    conditions = {c.id: c for c in db.session.scalars(
        select(PermitCondition).where(PermitCondition.permit_id == record.permit_id))}
    issuer = db.session.get(User, record.issued_by) if record.issued_by else None
    return {"permit": permit, "findings": findings, "recipients": recipients, "conditions": conditions,
            "owners": [p for p in parties.values() if p.role == "owner"], "issuer": issuer}


def _order_render(record: Order):
    context = order_context(record)
    return lambda note: order_pdf(record, **context, note=note)


def issued_order(record: Order) -> renditions.IssuedDocument:
    """The order's document as issued (its latest revision); an order issued before documents were
    stored here is issued on first request."""
    return renditions.issued(DOCUMENT_KIND, record.id, _order_render(record), permit_id=record.permit_id)


def order_document(record: Order) -> bytes:
    """The bytes of the order as issued: what the download and every e-mailed copy serve."""
    return renditions.issued_bytes(issued_order(record))


def cease_and_desist_open(permit_id: str, day: date) -> list[str]:
    """R-O1a: numbers of the cease-and-desist orders open on the site on `day`
    (inspections.workflow.CEASE_AND_DESIST_OPEN)."""
    orders = db.session.scalars(select(Order).where(Order.permit_id == permit_id, Order.status == "open",
                                                    Order.issued_on <= day).order_by(Order.number))
    return [o.number for o in orders if "cease_and_desist" in (o.kinds or [])]
