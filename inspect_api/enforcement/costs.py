"""Town-performed abatement and cost recovery (R-O2, R-O3): load, check, change, flush (never commit).

Supervisors record the work, its costs, the notice, the SA's decision on a protest, a court decision
and payments. The permit's applicant reads the record and its statement and may file the protest.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from .. import audit
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..permits.access import visible_permit_ids
from ..paging import page_query
from ..records import bump, check_version, existing_for_create
from .. import clock
from . import rules
from .models import CostItem, CostPayment, CostRecovery
from .services import change_status, get_order, require_supervisor

NOTICE_FIELDS = ("notice_sent_on", "notice_method", "notice_received_on")
COURT_FIELDS = ("court_decision_on", "court_amount", "court_case_note")


def visible_cost_recoveries(user) -> Select:
    return select(CostRecovery).where(CostRecovery.permit_id.in_(visible_permit_ids(user)))


def get_cost_recovery(user, record_id: str) -> CostRecovery:
    record = db.session.scalar(visible_cost_recoveries(user).where(CostRecovery.id == str(record_id)))
    if record is None:
        raise NotFound("No such cost recovery record.")
    return record


def list_cost_recoveries(user, args: dict[str, Any]) -> tuple[list[CostRecovery], int]:
    query = visible_cost_recoveries(user)
    for key in ("permit_id", "order_id"):
        if args.get(key):
            query = query.where(getattr(CostRecovery, key) == str(args[key]))
    query = query.options(selectinload(CostRecovery.items), selectinload(CostRecovery.payments),
                          selectinload(CostRecovery.order))
    return page_query(query.order_by(CostRecovery.abatement_completed_on, CostRecovery.id), args)


def costs_total(record: CostRecovery) -> Decimal:
    return sum((item.amount for item in record.items), rules.ZERO)


def facts(record: CostRecovery) -> rules.CostFacts:
    return rules.CostFacts(
        costs_total=costs_total(record), notice_sent_on=record.notice_sent_on,
        notice_received_on=record.notice_received_on, protest_filed_on=record.protest_filed_on,
        decision=record.decision, decided_on=record.decided_on, decided_amount=record.decided_amount,
        court_decision_on=record.court_decision_on, court_amount=record.court_amount,
        payments=tuple((p.paid_on, p.amount) for p in record.payments))


def statement(record: CostRecovery, on: date | None = None) -> dict[str, Any]:
    """R-O3: principal, interest, payments, total due, lien date and status on `on` (default today)."""
    on = on or clock.today()
    s = rules.cost_statement(facts(record), on)
    return {
        "cost_recovery_id": record.id, "on": on, "costs_total": s.costs_total, "principal": s.principal,
        "payments": [p for p in record.payments if p.paid_on <= on], "payments_total": s.payments_total,
        "principal_outstanding": s.principal_outstanding, "interest": s.interest,
        "interest_rate": str(rules.INTEREST_RATE), "day_count": f"actual/{rules.DAY_COUNT_BASIS}",
        "due_on": s.due_on, "interest_from": s.interest_from, "total_due": s.total_due,
        "notice_due_by": rules.notice_due_by(record.abatement_completed_on),
        "notice_late": rules.notice_late(record.abatement_completed_on, record.notice_sent_on),
        "protest_window_ends": _window_end(record), "lien_on": s.lien_on, "lien_amount": s.lien_amount,
        "status": s.status,
    }


def _window_end(record: CostRecovery) -> date | None:
    return rules.protest_window_ends(record.notice_received_on) if record.notice_received_on else None


def cost_recovery_view(record: CostRecovery) -> dict[str, Any]:
    today = statement(record)
    order = record.order
    protest = None
    if record.protest_filed_on:
        protest = {"filed_on": record.protest_filed_on.isoformat(), "text": record.protest_text,
                   "filed_by": record.protest_by}
    decision = None
    if record.decision:
        decision = {"decision": record.decision, "decided_on": record.decided_on.isoformat(),
                    "amount": str(rules.money(record.decided_amount)) if record.decided_amount is not None else None,
                    "reason": record.decision_reason, "decided_by": record.decided_by}
    fields = ("id", "version", "created_at", "updated_at", "created_by", "device_id", "device_created_at",
              "permit_id", "order_id", "description", "abatement_completed_on", "items", "payments",
              *NOTICE_FIELDS, *COURT_FIELDS)
    return {**{f: getattr(record, f) for f in fields}, "order_number": order.number if order else None,
            "costs_total": today["costs_total"], "notice_due_by": today["notice_due_by"],
            "notice_late": today["notice_late"], "protest_window_ends": today["protest_window_ends"],
            "protest": protest, "decision": decision, "amount_due": today["principal"],
            "lien_on": today["lien_on"], "status": today["status"]}


def _items(data: dict[str, Any]) -> list[CostItem]:
    return [CostItem(position=i, category=item["category"], description=item["description"].strip(),
                     amount=item["amount"]) for i, item in enumerate(data["items"])]


def _same_items(record: CostRecovery, items: list[dict[str, Any]]) -> bool:
    return [(i.category, i.description, i.amount) for i in record.items] == [
        (i["category"], i["description"].strip(), i["amount"]) for i in items]


def create_cost_recovery(user, data: dict[str, Any]) -> tuple[CostRecovery, bool]:
    """R-O2: record abatement the Town performed after the order's deadline passed unmet, with its
    itemised costs; the order becomes town_performed."""
    require_supervisor(user, "record town-performed work and its costs")
    order = get_order(user, str(data["order_id"]))
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(CostRecovery, record_id, lambda rec: (
        rec.order_id == order.id and rec.abatement_completed_on == data["abatement_completed_on"]
        and _same_items(rec, data["items"])))
    if existing is not None:
        return existing, False
    if data["abatement_completed_on"] <= order.deadline:
        raise ValidationFailed(errors={"abatement_completed_on": [
            f"The Town's work can only follow the order's deadline ({order.deadline.isoformat()}) passing unmet."]})
    if data["abatement_completed_on"] > clock.today():
        raise ValidationFailed(errors={"abatement_completed_on": ["Cannot be in the future."]})
    if order.status != "town_performed":
        change_status(user, order, "town_performed", "Town performed the work (cost recovery recorded).")
    record = CostRecovery(id=record_id, permit_id=order.permit_id, order_id=order.id,
                          description=data.get("description"), abatement_completed_on=data["abatement_completed_on"],
                          items=_items(data), created_by=user.id, device_id=current_device_id())
    db.session.add(record)
    db.session.flush()
    audit.record("cost_recovery.create", "cost_recovery", record.id,
                 {"order_id": order.id, "abatement_completed_on": record.abatement_completed_on,
                  "costs_total": costs_total(record)}, actor=user, permit_id=record.permit_id)
    return record, True


def update_cost_recovery(user, record: CostRecovery, data: dict[str, Any],
                         expected_version: int | None) -> CostRecovery:
    """Notice dates, a court decision, notes; the costs themselves only until the notice is sent."""
    require_supervisor(user, "change a cost recovery record")
    check_version(record, expected_version, lambda r: _plain(cost_recovery_view(r)))
    before = _plain(cost_recovery_view(record))
    sent_on = data.get("notice_sent_on", record.notice_sent_on)
    if record.notice_sent_on and ("items" in data or "abatement_completed_on" in data):
        raise Conflict("The costs were notified on " + record.notice_sent_on.isoformat() +
                       "; a changed amount goes through a protest decision or a court.", error="notice_already_sent")
    _check_dates(record, data, sent_on)
    if "items" in data:
        record.items = _items(data)
    for key in ("description", "abatement_completed_on", *NOTICE_FIELDS, *COURT_FIELDS):
        if key in data:
            setattr(record, key, data[key])
    return _save(user, record, before, "cost_recovery.update")


def _check_dates(record: CostRecovery, data: dict[str, Any], sent_on: date | None) -> None:
    completed = data.get("abatement_completed_on", record.abatement_completed_on)
    received = data.get("notice_received_on", record.notice_received_on)
    errors: dict[str, list[str]] = {}
    if sent_on and sent_on < completed:
        errors["notice_sent_on"] = ["The notice follows the completed abatement."]
    if received and not sent_on:
        errors["notice_received_on"] = ["Record when the notice was sent first."]
    elif received and received < sent_on:
        errors["notice_received_on"] = ["Cannot be received before it was sent."]
    court_on = data.get("court_decision_on", record.court_decision_on)
    for key in ("notice_sent_on", "notice_received_on", "court_decision_on"):
        if data.get(key) and data[key] > clock.today():
            errors[key] = ["Cannot be in the future."]
    if data.get("court_amount") is not None and not court_on:
        errors["court_amount"] = ["Give the date of the final court decision."]
    cleared = [k for k in ("notice_sent_on", "notice_received_on")
               if k in data and data[k] is None and getattr(record, k)]
    if record.protest_filed_on and cleared:
        errors[cleared[0]] = ["A protest rests on this notice; its dates cannot be cleared."]
    elif record.protest_filed_on and not rules.protest_timely(received, record.protest_filed_on):
        errors["notice_received_on"] = ["A protest was already accepted as timely on "
                                        f"{record.protest_filed_on.isoformat()}; this receipt date contradicts it."]
    if errors:
        raise ValidationFailed(errors=errors)


def file_protest(user, record: CostRecovery, data: dict[str, Any]) -> CostRecovery:
    """R-O3: a written protest within 30 days of receiving the notice (day 30 is timely, day 31 is not)."""
    if user.role not in ("applicant", "supervisor"):
        raise Forbidden("The owner or violator files a protest (a supervisor may record a paper one).")
    if user.role != "supervisor" and data.get("filed_on"):
        raise Forbidden("A protest is dated the day it is filed; only a supervisor records an earlier paper one.")
    filed_on = data.get("filed_on") or clock.today()
    if record.notice_sent_on is None:
        raise Conflict("No notice of costs has been sent yet.", error="notice_not_sent")
    if not record.notice_sent_on <= filed_on <= clock.today():
        raise ValidationFailed(errors={"filed_on": ["Between the notice and today."]})
    if record.protest_filed_on is not None:
        raise Conflict("A protest was already filed on " + record.protest_filed_on.isoformat() + ".",
                       error="protest_exists")
    if not rules.protest_timely(record.notice_received_on, filed_on):
        raise Conflict(f"The 30 days to protest ended on {_window_end(record).isoformat()}.",
                       error="protest_window_closed")
    before = _plain(cost_recovery_view(record))
    record.protest_filed_on, record.protest_text, record.protest_by = filed_on, data["text"], user.id
    return _save(user, record, before, "cost_recovery.protest")


def decide_protest(user, record: CostRecovery, data: dict[str, Any]) -> CostRecovery:
    """The SA's decision on a protest: affirm, reduce (to a smaller amount) or void the costs."""
    require_supervisor(user, "decide a protest")
    if record.protest_filed_on is None:
        raise InvalidTransition("There is no protest to decide.")
    if record.decision is not None:
        raise InvalidTransition("The protest was already decided; SA decisions are final (a court may review).")
    decided_on = data.get("decided_on") or clock.today()
    amount = data.get("amount")
    if not record.protest_filed_on <= decided_on <= clock.today():
        raise ValidationFailed(errors={"decided_on": ["Between the protest and today."]})
    if data["decision"] == "reduce" and (amount is None or amount >= costs_total(record)):
        raise ValidationFailed(errors={"amount": [f"A reduction is below the costs of {costs_total(record)}."]})
    if data["decision"] != "reduce" and amount is not None:
        raise ValidationFailed(errors={"amount": ["Only a reduction names an amount."]})
    before = _plain(cost_recovery_view(record))
    record.decision, record.decided_on, record.decided_amount = data["decision"], decided_on, amount
    record.decision_reason, record.decided_by = data.get("reason"), user.id
    return _save(user, record, before, "cost_recovery.decision")


def add_payment(user, record: CostRecovery, data: dict[str, Any]) -> CostRecovery:
    require_supervisor(user, "record payments")
    if data["paid_on"] > clock.today():
        raise ValidationFailed(errors={"paid_on": ["Cannot be in the future."]})
    before = _plain(cost_recovery_view(record))
    record.payments.append(CostPayment(paid_on=data["paid_on"], amount=data["amount"],
                                       reference=data.get("reference"), recorded_by=user.id))
    return _save(user, record, before, "cost_recovery.payment")


def _save(user, record: CostRecovery, before: dict, action: str) -> CostRecovery:
    bump(record)
    db.session.flush()
    db.session.refresh(record, ["items", "payments"])
    audit.record(action, "cost_recovery", record.id, audit.diff(before, _plain(cost_recovery_view(record))),
                 actor=user, permit_id=record.permit_id)
    return record


def _plain(view: dict[str, Any]) -> dict[str, Any]:
    from .schemas import CostRecoverySchema
    return CostRecoverySchema().dump(view)
