"""Town-performed abatement and cost recovery (R-O2, R-O3): load, check, change, flush (never commit).

Supervisors record the work, its costs, the notice to each recipient (the violator and the owner,
each with method, sent and received dates: R-O3), the SA's decision on a protest, a court decision
and payments. The permit's applicant, or a user who is a party to the case, reads the record and its
statement and may file a protest as a recipient of the notice.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Iterable

from sqlalchemy import Select, inspect as sa_inspect, select
from sqlalchemy.orm.attributes import set_committed_value
from flask import current_app

from .. import audit, clock, renditions, signals
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound, ValidationFailed
from ..db import new_id
from ..extensions import db
from ..permits.access import permit_visible
from ..paging import chunks, load_collections, page_query
from ..records import bump, check_version, existing_for_create
from . import rules
from .models import CostItem, CostNotice, CostPayment, CostRecovery, LienCertificate, Order
from .services import change_status, get_order, require_supervisor
from ..permits.models import Party, Permit
from .notices_pdf import cost_notice_pdf, lien_certificate_pdf
from .schemas import CostRecoverySchema
from ..storage import get_storage

RECIPIENT_FIELDS = ("party_id", "role", "name", "mailing_address", "method", "sent_on", "received_on")
COURT_FIELDS = ("court_decision_on", "court_amount", "court_case_note")
LIEN_KIND, COST_NOTICE_KIND = "lien-certificate", "cost-notice"


def visible_cost_recoveries(user) -> Select:
    return select(CostRecovery).where(permit_visible(CostRecovery.permit_id, user))


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
    return page_query(query.order_by(CostRecovery.abatement_completed_on, CostRecovery.id), args)


def costs_total(record: CostRecovery) -> Decimal:
    return sum((item.amount for item in record.items), rules.ZERO)


def interest_rates() -> tuple:
    """R-O3: the MGL c.59 §57 rates with their effective dates, from configuration."""
    return rules.parse_rates(current_app.config.get("COST_INTEREST_RATES") or "1900-01-01=0.14")


def facts(record: CostRecovery) -> rules.CostFacts:
    return rules.CostFacts(
        costs_total=costs_total(record), rates=interest_rates(),
        notices=tuple(rules.NoticeFacts(n.role, n.sent_on, n.received_on, n.protest_filed_on)
                      for n in record.recipients),
        decision=record.decision, decided_on=record.decided_on, decided_amount=record.decided_amount,
        court_decision_on=record.court_decision_on, court_amount=record.court_amount,
        payments=tuple((p.paid_on, p.amount) for p in record.payments))


def statement(record: CostRecovery, on: date | None = None) -> dict[str, Any]:
    """R-O3: principal, interest, payments, total due, lien date and status on `on` (default today)."""
    on = on or clock.today()
    f = facts(record)
    s = rules.cost_statement(f, on)
    return {
        "cost_recovery_id": record.id, "on": on, "costs_total": s.costs_total, "principal": s.principal,
        "payments": [p for p in record.payments if p.paid_on <= on], "payments_total": s.payments_total,
        "principal_outstanding": s.principal_outstanding, "interest": s.interest,
        "interest_rate": str(rules.rate_on(f.rates, on)), "day_count": f"actual/{rules.DAY_COUNT_BASIS}",
        "interest_rates": [{"effective_from": d.isoformat(), "rate": str(r)} for d, r in f.rates],
        "due_on": s.due_on, "interest_from": s.interest_from, "total_due": s.total_due,
        "notice_due_by": rules.notice_due_by(record.abatement_completed_on),
        "notice_late": _notice_late(record),
        "protest_window_ends": _window_end(record), "lien_on": s.lien_on, "lien_amount": s.lien_amount,
        "status": s.status,
    }


def _window_end(record: CostRecovery) -> date | None:
    """The last recipient's protest window: the one the lien follows (R-O3)."""
    return rules.last_window_ends([rules.NoticeFacts(n.role, n.sent_on, n.received_on) for n in record.recipients])


def _first_sent(record: CostRecovery) -> date | None:
    days = [n.sent_on for n in record.recipients if n.sent_on]
    return min(days) if days else None


def _notice_late(record: CostRecovery) -> bool:
    """Late when any recipient's notice went out after day 30 (each must be notified in time)."""
    return any(rules.notice_late(record.abatement_completed_on, n.sent_on) for n in record.recipients)


def recipient_view(notice: CostNotice, abatement_completed_on: date) -> dict[str, Any]:
    protest = None
    if notice.protest_filed_on:
        protest = {"filed_on": notice.protest_filed_on.isoformat(), "text": notice.protest_text,
                   "filed_by": notice.protest_by}
    return {**{f: getattr(notice, f) for f in ("id", *RECIPIENT_FIELDS)},
            "protest_window_ends": rules.protest_window_ends(notice.received_on) if notice.received_on else None,
            "notice_late": rules.notice_late(abatement_completed_on, notice.sent_on), "protest": protest}


def _orders(records: list[CostRecovery]) -> None:
    waiting = [r for r in records if "order" in sa_inspect(r).unloaded]
    ids, orders = sorted({r.order_id for r in waiting}), {}
    for chunk in chunks(ids):
        orders.update({o.id: o for o in db.session.scalars(select(Order).where(Order.id.in_(chunk)))})
    for record in waiting:
        set_committed_value(record, "order", orders.get(record.order_id))


def cost_recovery_views(records: Iterable[CostRecovery]) -> list[dict[str, Any]]:
    """The views of `records`: their items, payments, recipients and orders are loaded for all of them
    at once (one query each), so a page costs what one record costs."""
    records = list(records)
    load_collections(records, CostRecovery.items, CostRecovery.payments, CostRecovery.recipients,
                     CostRecovery.lien_certificates)
    _orders(records)
    return [_view(record) for record in records]


def cost_recovery_view(record: CostRecovery) -> dict[str, Any]:
    return cost_recovery_views([record])[0]


def _view(record: CostRecovery) -> dict[str, Any]:
    today = statement(record)
    order = record.order
    decision = None
    if record.decision:
        decision = {"decision": record.decision, "decided_on": record.decided_on.isoformat(),
                    "amount": str(rules.money(record.decided_amount)) if record.decided_amount is not None else None,
                    "reason": record.decision_reason, "decided_by": record.decided_by}
    fields = ("id", "version", "created_at", "updated_at", "created_by", "device_id", "device_created_at",
              "permit_id", "order_id", "description", "abatement_completed_on", "items", "payments",
              *COURT_FIELDS)
    return {**{f: getattr(record, f) for f in fields}, "order_number": order.number if order else None,
            "costs_total": today["costs_total"], "notice_due_by": today["notice_due_by"],
            "recipients": [recipient_view(n, record.abatement_completed_on) for n in record.recipients],
            "notice_sent_on": _first_sent(record),
            "notice_late": today["notice_late"], "protest_window_ends": today["protest_window_ends"],
            "decision": decision, "amount_due": today["principal"],
            "lien_on": today["lien_on"], "status": today["status"],
            "lien_certificates": [lien_certificate_view(c, today["lien_on"]) for c in record.lien_certificates]}


def superseded(cert: LienCertificate, lien_on: date | None) -> bool:
    """R-O3: a certificate is superseded once the lien date it states is no longer the lien date
    (statements are computed when read, so this is decided when read as well)."""
    return cert.superseded_at is not None or cert.lien_on != lien_on


def lien_certificate_view(cert: LienCertificate, lien_on: date | None) -> dict[str, Any]:
    return {"id": cert.id, "lien_on": cert.lien_on, "lien_amount": cert.lien_amount,
            "produced_on": cert.produced_on, "produced_at": cert.produced_at, "produced_by": cert.produced_by,
            "superseded": superseded(cert, lien_on), "superseded_at": cert.superseded_at,
            "pdf_url": f"/api/v1/cost-recoveries/{cert.cost_recovery_id}/lien-certificates/{cert.id}.pdf"}


def _mark_superseded(record: CostRecovery, lien_on: date | None) -> None:
    """Mark, and keep, every certificate whose lien date has moved (R-O3)."""
    for cert in record.lien_certificates:
        if cert.superseded_at is None and cert.lien_on != lien_on:
            cert.superseded_at = clock.now()
            audit.record("cost_recovery.lien_certificate_superseded", "cost_recovery", record.id,
                         {"certificate_id": cert.id, "lien_on": cert.lien_on, "now_lien_on": lien_on},
                         permit_id=record.permit_id)


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
    first_sent = _first_sent(record)
    if first_sent and ("items" in data or "abatement_completed_on" in data):
        raise Conflict("The costs were notified on " + first_sent.isoformat() +
                       "; a changed amount goes through a protest decision or a court.", error="notice_already_sent")
    _check_dates(record, data)
    sent_before = {n.id: n.sent_on for n in record.recipients}
    if "recipients" in data:
        record.recipients = _recipients(record, data["recipients"])
    if "items" in data:
        record.items = _items(data)
    for key in ("description", "abatement_completed_on", *COURT_FIELDS):
        if key in data:
            setattr(record, key, data[key])
    record = _save(user, record, before, "cost_recovery.update")
    # R-O3: a recipient whose notice is now recorded as sent is sent it by e-mail too, once.
    newly_sent = [n for n in record.recipients if n.sent_on and sent_before.get(n.id) is None]
    for notice in newly_sent:  # each recipient's notice is issued (signed, stored) as it is sent
        issued_cost_notice(record, notice)
    if newly_sent:
        signals.costs_notified.send(record, notices=newly_sent, actor=user)
    return record


def _recipients(record: CostRecovery, wanted: list[dict[str, Any]]) -> list[CostNotice]:
    """R-O3: the notice to each recipient. Entries naming an existing recipient's id update it (its
    protest stays); a party id fills in the name and mailing address from the case's parties."""
    current = {n.id: n for n in record.recipients}
    errors: dict[str, list[str]] = {}
    out: list[CostNotice] = []
    for position, entry in enumerate(wanted):
        notice = current.pop(str(entry["id"]), None) if entry.get("id") else CostNotice()
        if notice is None:
            errors[f"recipients.{position}.id"] = ["No such recipient on this cost recovery."]
            continue
        values = dict(entry)
        values.pop("id", None)
        if values.get("party_id"):
            party = db.session.get(Party, str(values["party_id"]))
            if party is None or party.permit_id != record.permit_id:
                errors[f"recipients.{position}.party_id"] = ["No such party on this permit or case."]
                continue
            values["party_id"] = party.id
            values.setdefault("name", party.name)
            values.setdefault("mailing_address", party.mailing_address)
            values.setdefault("role", party.role if party.role in rules.NOTICE_ROLES else None)
        if not values.get("name", notice.name) or values.get("role", notice.role) not in rules.NOTICE_ROLES:
            errors[f"recipients.{position}"] = ["Name the recipient (or its party_id) and its role: owner or violator."]
            continue
        problem = _notice_dates_problem(record, values.get("sent_on", notice.sent_on),
                                        values.get("received_on", notice.received_on), notice)
        if problem:
            errors[f"recipients.{position}.{problem[0]}"] = [problem[1]]
            continue
        for key in RECIPIENT_FIELDS:
            if key in values:
                setattr(notice, key, values[key])
        notice.position = position
        out.append(notice)
    for left in current.values():
        if left.protest_filed_on:
            errors["recipients"] = [f"{left.name} filed a protest on {left.protest_filed_on.isoformat()}; "
                                    "that recipient's notice stays."]
    keys = [(n.role, n.name) for n in out]
    if len(set(keys)) != len(keys):
        errors["recipients"] = ["Each recipient once."]
    if errors:
        raise ValidationFailed(errors=errors)
    return out


def _notice_dates_problem(record: CostRecovery, sent_on: date | None, received_on: date | None,
                          notice: CostNotice) -> tuple[str, str] | None:
    protest_on = notice.protest_filed_on
    if sent_on and sent_on < record.abatement_completed_on:
        return "sent_on", "The notice follows the completed abatement."
    if received_on and not sent_on:
        return "received_on", "Record when the notice was sent first."
    if received_on and received_on < sent_on:
        return "received_on", "Cannot be received before it was sent."
    for key, day in (("sent_on", sent_on), ("received_on", received_on)):
        if day and day > clock.today():
            return key, "Cannot be in the future."
    if protest_on and not sent_on:
        return "sent_on", "A protest rests on this notice; its dates cannot be cleared."
    if protest_on and notice.received_on and not received_on:
        return "received_on", "A protest rests on this notice; its dates cannot be cleared."
    if protest_on and not rules.protest_timely(received_on, protest_on):
        return "received_on", (f"A protest was already accepted as timely on {protest_on.isoformat()}; this "
                               "receipt date contradicts it.")
    return None


def _check_dates(record: CostRecovery, data: dict[str, Any]) -> None:
    completed = data.get("abatement_completed_on", record.abatement_completed_on)
    errors: dict[str, list[str]] = {}
    first_sent = _first_sent(record)
    if first_sent and first_sent < completed:
        errors["abatement_completed_on"] = ["The notices follow the completed abatement."]
    court_on = data.get("court_decision_on", record.court_decision_on)
    if data.get("court_decision_on") and data["court_decision_on"] > clock.today():
        errors["court_decision_on"] = ["Cannot be in the future."]
    if data.get("court_amount") is not None and not court_on:
        errors["court_amount"] = ["Give the date of the final court decision."]
    if errors:
        raise ValidationFailed(errors=errors)


def _protest_recipient(user, record: CostRecovery, recipient_id: str | None) -> CostNotice:
    """Whose protest: the recipient named; for an applicant, one of the recipients they may speak
    for (the only recipient, or the one linked to their party)."""
    if recipient_id:
        notice = next((n for n in record.recipients if n.id == str(recipient_id)), None)
        if notice is None:
            raise ValidationFailed(errors={"recipient_id": ["No such recipient on this cost recovery."]})
        return notice
    if len(record.recipients) == 1:
        return record.recipients[0]
    if not record.recipients:
        raise Conflict("No notice of costs has been sent yet.", error="notice_not_sent")
    raise ValidationFailed(errors={"recipient_id": ["Name the recipient whose protest this is."]})


def _speaks_for(user, record: CostRecovery, notice: CostNotice) -> bool:
    """An applicant protests a notice addressed to a party that is their account, or the owner's
    notice on their own application (the applicant answers for the owner they filed for)."""
    if notice.party_id:
        party = db.session.get(Party, notice.party_id)
        if party is not None and party.user_id == user.id:
            return True
    permit = db.session.get(Permit, record.permit_id)
    return notice.role == "owner" and permit is not None and permit.applicant_id == user.id


def file_protest(user, record: CostRecovery, data: dict[str, Any]) -> CostRecovery:
    """R-O3: a written protest by a recipient within 30 days of their own receipt of the notice
    (day 30 is timely, day 31 is not)."""
    if user.role not in ("applicant", "supervisor"):
        raise Forbidden("The owner or violator files a protest (a supervisor may record a paper one).")
    if user.role != "supervisor" and data.get("filed_on"):
        raise Forbidden("A protest is dated the day it is filed; only a supervisor records an earlier paper one.")
    notice = _protest_recipient(user, record, data.get("recipient_id"))
    if user.role == "applicant" and not _speaks_for(user, record, notice):
        raise Forbidden(f"You may protest only a notice sent to you; this one was sent to {notice.name}.")
    filed_on = data.get("filed_on") or clock.today()
    if notice.sent_on is None:
        raise Conflict(f"No notice of costs has been sent to {notice.name} yet.", error="notice_not_sent")
    if not notice.sent_on <= filed_on <= clock.today():
        raise ValidationFailed(errors={"filed_on": ["Between the notice and today."]})
    if notice.protest_filed_on is not None:
        raise Conflict(f"{notice.name} already filed a protest on {notice.protest_filed_on.isoformat()}.",
                       error="protest_exists")
    if record.decision is not None:
        raise Conflict("The SA already decided on the costs; further relief is to a court (§E).",
                       error="protest_exists")
    if not rules.protest_timely(notice.received_on, filed_on):
        ends = rules.protest_window_ends(notice.received_on)
        raise Conflict(f"The 30 days for {notice.name} to protest ended on {ends.isoformat()}.",
                       error="protest_window_closed")
    before = _plain(cost_recovery_view(record))
    notice.protest_filed_on, notice.protest_text, notice.protest_by = filed_on, data["text"], user.id
    return _save(user, record, before, "cost_recovery.protest")


def decide_protest(user, record: CostRecovery, data: dict[str, Any]) -> CostRecovery:
    """The SA's decision on a protest: affirm, reduce (to a smaller amount) or void the costs."""
    require_supervisor(user, "decide a protest")
    protests = [n.protest_filed_on for n in record.recipients if n.protest_filed_on]
    if not protests:
        raise InvalidTransition("There is no protest to decide.")
    if record.decision is not None:
        raise InvalidTransition("The protest was already decided; SA decisions are final (a court may review).")
    decided_on = data.get("decided_on") or clock.today()
    amount = data.get("amount")
    if not max(protests) <= decided_on <= clock.today():
        raise ValidationFailed(errors={"decided_on": ["Between the protest and today."]})
    if data["decision"] == "reduce" and (amount is None or amount >= costs_total(record)):
        raise ValidationFailed(errors={"amount": [f"A reduction is below the costs of {costs_total(record)}."]})
    if data["decision"] != "reduce" and amount is not None:
        raise ValidationFailed(errors={"amount": ["Only a reduction names an amount."]})
    before = _plain(cost_recovery_view(record))
    record.decision, record.decided_on, record.decided_amount = data["decision"], decided_on, amount
    record.decision_reason, record.decided_by = data.get("reason"), user.id
    record = _save(user, record, before, "cost_recovery.decision")
    signals.protest_decided.send(record, actor=user)  # R-O3: each protester is told the decision
    return record


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
    db.session.refresh(record, ["items", "payments", "recipients"])
    _mark_superseded(record, statement(record)["lien_on"])
    audit.record(action, "cost_recovery", record.id, audit.diff(before, _plain(cost_recovery_view(record))),
                 actor=user, permit_id=record.permit_id)
    return record


def _plain(view: dict[str, Any]) -> dict[str, Any]:
    return CostRecoverySchema().dump(view)


def lien_certificate(user, record: CostRecovery, on: date | None = None) -> LienCertificate:
    """R-O3: the lien certificate, produced only once the lien has attached (the end of the lien day
    passed with the amount unpaid). One produced for the lien date that stands is answered again as it
    was; one whose lien date moved is kept, marked superseded, and a new one is produced."""
    on = on or clock.today()
    today = statement(record, on)
    _mark_superseded(record, today["lien_on"])
    if today["status"] != "lien":
        raise Conflict("The costs have not become a lien: " + {
            "not_noticed": "no notice of costs has been sent.", "protest_pending": "a protest awaits decision.",
            "paid": "they are paid.", "void": "they were voided.",
            "due": "a recipient may still protest, or the 30 days after a decision have not ended."}[today["status"]],
            error="no_lien")
    current = next((c for c in record.lien_certificates if not superseded(c, today["lien_on"])), None)
    if current is not None:
        return current
    permit = db.session.get(Permit, record.permit_id)
    owners = list(db.session.scalars(select(Party).where(Party.permit_id == record.permit_id, Party.role == "owner")
                                     .order_by(Party.created_at)))
    cert_id = new_id()
    doc = renditions.issued(LIEN_KIND, cert_id, lambda note: lien_certificate_pdf(
        record, permit, record.order, owners, today, on, note=note), permit_id=record.permit_id)
    sha256 = doc.sha256
    cert = LienCertificate(id=cert_id, cost_recovery_id=record.id, lien_on=today["lien_on"],
                           lien_amount=today["lien_amount"], produced_on=on, produced_by=user.id, sha256=sha256,
                           storage_key=doc.blob_name)
    record.lien_certificates.append(cert)
    db.session.flush()
    audit.record("cost_recovery.lien_certificate", "cost_recovery", record.id,
                 {"certificate_id": cert.id, "lien_on": cert.lien_on, "lien_amount": cert.lien_amount,
                  "sha256": sha256}, actor=user, permit_id=record.permit_id)
    return cert


def get_lien_certificate(record: CostRecovery, certificate_id: str) -> LienCertificate:
    cert = next((c for c in record.lien_certificates if c.id == str(certificate_id)), None)
    if cert is None:
        raise NotFound("No such lien certificate.")
    return cert


def issued_lien_certificate(record: CostRecovery, cert: LienCertificate) -> renditions.IssuedDocument:
    """The certificate's document as issued. One produced before documents were recorded as issued is
    recorded now, its stored bytes unchanged (unsigned): they are what was handed to the Collector."""
    doc = renditions.latest_issued(LIEN_KIND, cert.id)
    if doc is not None:
        return doc
    with get_storage().open(cert.storage_key) as handle:
        data = handle.read()
    return renditions.adopt(LIEN_KIND, cert.id, cert.storage_key, data, permit_id=record.permit_id)


def lien_certificate_bytes(record: CostRecovery, cert: LienCertificate) -> bytes:
    """The certificate's PDF as it was produced."""
    return renditions.issued_bytes(issued_lien_certificate(record, cert))


def get_cost_notice(record: CostRecovery, notice_id: str) -> CostNotice:
    notice = next((n for n in record.recipients if n.id == str(notice_id)), None)
    if notice is None:
        raise NotFound("No such recipient on this cost recovery.")
    return notice


def issued_cost_notice(record: CostRecovery, notice: CostNotice) -> renditions.IssuedDocument:
    """R-O3: the notice of costs to one recipient as issued when it was recorded as sent (signed when the
    Town has a key); one sent before documents were stored here is issued on first request."""
    if notice.sent_on is None:
        raise Conflict(f"No notice of costs has been sent to {notice.name} yet.", error="notice_not_sent")

    def render(note: str) -> bytes:
        permit = db.session.get(Permit, record.permit_id)
        return cost_notice_pdf(record, notice, permit, record.order, list(record.items), costs_total(record),
                               note=note)
    return renditions.issued(COST_NOTICE_KIND, notice.id, render, permit_id=record.permit_id)


def cost_notice_document(record: CostRecovery, notice: CostNotice) -> bytes:
    """The bytes of the recipient's notice of costs as issued: the download and the e-mailed copy."""
    return renditions.issued_bytes(issued_cost_notice(record, notice))
