"""The messages that tell someone what happened, beside the order and the cost notice
(enforcement_notices.py). Each is written by a receiver of the domain's signal (receivers.py, signals.py),
sent by the service that makes the change inside its transaction, after the change is flushed: a
refused or rolled-back request writes no message. The daily reminders (reminders.py) write theirs
through `send` too.

Which messages are required by the bylaw, and so sent whatever a user chose, is catalogue.py; the
rest go only to users who have not switched them off (preferences.py). One message per recipient,
with the link into the app that recipient's screens use."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from flask import current_app
from sqlalchemy import select

from ..auth.models import User
from ..completion.certificates import certificate_document
from ..enforcement import rules as enforcement_rules
from ..enforcement.costs import costs_total
from ..enforcement.penalties import citation_document
from ..extensions import db
from ..paging import chunks
from ..inspections.models import Finding
from ..permits.models import Party, Permit, PermitPhase
from ..permits.rules import EXEMPTION_LABELS
from . import catalogue, outbox, preferences
from .models import Notification

# The app's screen for a permit, by the role of whoever opens the link (static/pwa/js/app.js routes).
SCREENS = {"applicant": "#/permit/{id}", "supervisor": "#/application/{id}", "inspector": "#/site/{id}"}
DECISIONS = {"approved": "approved", "issued": "issued", "denied": "denied"}
LEVELS = {"administrative_review": "administrative land disturbance review",
          "land_disturbance_permit": "land disturbance permit",
          "exempt": "review of the exemption you claimed", "not_covered": "review of whether the bylaw applies"}
ROLE_TITLES = {"violator": "violator", "owner": "property owner", "applicant": "applicant",
               "contractor": "contractor"}


def screen(permit_id: str | None, role: str | None = "applicant") -> str | None:
    if not permit_id:
        return None
    return SCREENS.get(role or "applicant", SCREENS["applicant"]).format(id=permit_id)


def _users(ids: Iterable[str | None]) -> list[Any]:
    ids = [i for i in ids if i]
    return list(db.session.scalars(select(User).where(User.id.in_(ids), User.active.is_(True)))) if ids else []


def permit_people(permit: Any, *, owners: bool = True) -> list[outbox.Recipient]:
    """The applicant's account and, where asked, the owner parties of the permit."""
    people = [outbox.Recipient.from_user(u, "applicant") for u in _users([permit.applicant_id])]
    if owners:
        people += [outbox.Recipient.from_party(p) for p in db.session.scalars(
            select(Party).where(Party.permit_id == permit.id, Party.role == "owner").order_by(Party.name, Party.id))]
    return people


def send(event: str, record: Any, recipients: Iterable[outbox.Recipient], context: dict[str, Any], *,
         permit_id: str | None = None, link: Callable[[outbox.Recipient], str | None] | None = None,
         attachments: Sequence[outbox.Attachment] = (), actor: Any = None, dedupe_key: str | None = None,
         record_type: str | None = None, language: str | None = None) -> list[Any]:
    """One message per distinct recipient (one e-mail address is written to once, whatever the
    roles it holds), skipping users who switched an optional message off."""
    spec = catalogue.event(event)
    permit_id = permit_id or getattr(record, "permit_id", None)
    seen: set[str] = set()
    written: list[Any] = []
    for recipient in recipients:
        key = (recipient.email or "").strip().lower() or recipient.key
        if key in seen:
            continue
        seen.add(key)  # a user who switched this off is not sent it as a party of the same address either
        if not preferences.wants(recipient.user_id, event):
            continue
        path = link(recipient) if link else screen(permit_id, recipient.role if recipient.party_id is None
                                                   else "applicant")
        written += outbox.enqueue(event, record, [recipient], {**context, "role_title": ROLE_TITLES.get(
            recipient.role or "", recipient.role or "")}, attachments=attachments, required=spec.required,
            link=path, permit_id=permit_id, actor=actor, dedupe_key=dedupe_key, record_type=record_type,
            language=language)
    return written


# --- applications (R-C2) and exemption claims (R-B1) ----------------------------------------------
def permit_moved(permit: Any, to: str, reason: str | None, actor: Any) -> list[Any]:
    """Submitted: the applicant is told it was received. Approved, issued or denied: the decision,
    with the reason."""
    context = {"permit": permit, "level": LEVELS.get(permit.review_level, "review"), "reason": reason}
    if to == "submitted":
        return send("application_received", permit, permit_people(permit, owners=False), context,
                    permit_id=permit.id, actor=actor, record_type="permit")
    if to in DECISIONS:
        return send("application_decided", permit, permit_people(permit, owners=False),
                    {**context, "decision": DECISIONS[to]}, permit_id=permit.id, actor=actor, record_type="permit")
    return []


def exemption_decided(permit: Any, claim: Any, actor: Any) -> list[Any]:
    return send("exemption_decided", claim, permit_people(permit, owners=False),
                {"permit": permit, "claim": claim, "label": EXEMPTION_LABELS.get(claim.kind, claim.kind)},
                permit_id=permit.id, actor=actor, record_type="exemption")


# --- inspections and findings (R-I4, R-I5) -------------------------------------------------------
def photo_links(photo_ids: Iterable[str]) -> list[str]:
    """Absolute links to each photo in the app (#/photo/<id>: it fetches the photo with the reader's
    sign-in; a bare API address would answer a browser 401); none without PUBLIC_BASE_URL."""
    return [link for link in (outbox.app_link(f"#/photo/{pid}") for pid in photo_ids or []) if link]


def _finding_view(finding: Any) -> dict[str, Any]:
    return {"finding": finding, "photos": photo_links(finding.photo_ids)}


def inspection_approved(record: Any, actor: Any) -> list[Any]:
    """R-I5: once a supervisor approves an inspection, its open findings go to the applicant and
    the owner, each with its corrective action, due date (R-I4) and photos. No findings, no message."""
    findings = list(db.session.scalars(select(Finding).where(
        Finding.inspection_id == record.id, Finding.status == "open", Finding.deleted_at.is_(None))
        .order_by(Finding.due_on, Finding.id)))
    if not findings:
        return []
    permit = db.session.get(Permit, record.permit_id)
    return send("inspection_approved", record, permit_people(permit),
                {"permit": permit, "inspection": record, "findings": [_finding_view(f) for f in findings]},
                permit_id=permit.id, actor=actor, record_type="inspection")


def finding_overdue(finding: Any, permit: Any) -> list[Any]:
    """Written by the daily pass (reminders.py) once per finding, ever: its key has no day."""
    return send("finding_overdue", finding, permit_people(permit), {"permit": permit, **_finding_view(finding)},
                permit_id=permit.id, dedupe_key=f"finding_overdue:{finding.id}", record_type="finding")


# --- enforcement: protests (R-O3) and citations (R-P2) ---------------------------------------------
def protest_decided(record: Any, actor: Any) -> list[Any]:
    """To each recipient who protested: the SA's decision and, unless the costs were voided, the
    day unpaid costs become a lien (30 days after the decision, R-O3)."""
    permit = db.session.get(Permit, record.permit_id)
    due = enforcement_rules.amount_due(costs_total(record), record.decision, record.decided_amount, None)
    protested = [n.protest_filed_on for n in record.recipients if n.protest_filed_on]
    lien = enforcement_rules.lien_on(None, min(protested), record.decision, record.decided_on, None) if protested else None
    people = []
    for notice in record.recipients:
        if not notice.protest_filed_on:
            continue
        party = db.session.get(Party, notice.party_id) if notice.party_id else None
        people.append(outbox.Recipient(name=notice.name, email=getattr(party, "email", None), role=notice.role,
                                       party_id=notice.party_id, user_id=getattr(party, "user_id", None)))
    return send("protest_decided", record, people,
                {"permit": permit, "record": record, "order": record.order, "amount_due": due, "lien_on": lien},
                permit_id=permit.id, actor=actor, record_type="cost_recovery")


def citation_written(record: Any, actor: Any) -> list[Any]:
    """R-P2: to the cited person, the citation attached. The citation names a person, not a party:
    the permit's violator party of the same name gives the address; without one the message is
    recorded as failed ("serve the notice another way") rather than not written."""
    permit = db.session.get(Permit, record.permit_id)
    party = next((p for p in db.session.scalars(select(Party).where(Party.permit_id == record.permit_id)
                                                .order_by(Party.role != "violator", Party.id))
                  if enforcement_rules.normal_key(p.name) == record.violator_key), None)
    person = outbox.Recipient.from_party(party) if party else outbox.Recipient(record.violator_name, None, "violator")
    document = outbox.Attachment(f"citation-{record.number}.pdf", "application/pdf", citation_document(record))
    return send("citation_written", record, [person],
                {"permit": permit, "citation": record, "respond_by": enforcement_rules.citation_respond_by(record.delivered_on)},
                permit_id=permit.id, attachments=[document], actor=actor, record_type="citation")


# --- completion (R-F3) and bonds (R-D2, R-D3) --------------------------------------------------------
def certificate_issued(cert: Any, permit: Any, actor: Any) -> list[Any]:
    document = outbox.Attachment(f"certificate-{cert.number}.pdf", "application/pdf", certificate_document(cert))
    return send("certificate_issued", cert, permit_people(permit), {"permit": permit, "certificate": cert},
                permit_id=permit.id, attachments=[document], actor=actor, record_type="certificate")


def bond_released(bond: Any, release: Any, actor: Any) -> list[Any]:
    permit = db.session.get(Permit, bond.permit_id)
    phase = db.session.get(PermitPhase, release.phase_id) if release.phase_id else None
    remaining = bond.amount - bond.released_amount
    return send("bond_released", bond, permit_people(permit, owners=False),
                {"permit": permit, "bond": bond, "release": release, "phase": phase, "remaining": remaining},
                permit_id=permit.id, actor=actor, record_type="bond")


# --- devices ---------------------------------------------------------------------------------------
def device_revoked(device: Any, actor: Any) -> list[Any]:
    """A security notice to the device's user: sent whatever their preferences. The message is
    about the user's account (a device id is the client's own, up to 64 characters, not a record id)."""
    written = []
    for user in _users([device.user_id]):
        written += send("device_revoked", user, [outbox.Recipient.from_user(user)], {"device": device},
                        link=lambda _r: "#/account", actor=actor, record_type="user")
    return written


# --- reports from the public ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _ReportRef:
    """A report as its messages name it: by id alone, so a message is never filed on the permit or case
    the report was linked to (a resident's address is no part of a permit's delivery evidence)."""

    id: str


def _resident(report: Any) -> list[outbox.Recipient]:
    """The resident, when they left an e-mail; their name is kept off the message (it greets no one)."""
    if not report.contact_email:
        return []
    return [outbox.Recipient(name=report.contact_name or "", email=report.contact_email, role="resident")]


def _to_resident(event: str, report: Any, context: dict[str, Any], actor: Any = None) -> list[Any]:
    context = {"reference": report.reference, "contact_days": current_app.config["PUBLIC_REPORT_CONTACT_DAYS"],
               **context}
    return send(event, _ReportRef(report.id), _resident(report), context, link=lambda _r: None, actor=actor,
                record_type="public_report", language=report.language)


def public_report_received(report: Any) -> list[Any]:
    """To the resident, in their language: the reference, and that the office will look at it."""
    return _to_resident("public_report_received", report, {"received_at": report.created_at})


def public_report_triaged(report: Any, actor: Any) -> list[Any]:
    """To the resident, in their language: what the Town did (linked, case opened, closed) and its answer."""
    return _to_resident("public_report_triaged", report, {"action": report.status, "answer": report.answer},
                        actor=actor)


ERASED_NAME = "(erased)"


def public_report_contacts_erased(report_ids: Iterable[str]) -> int:
    """The outbox's copies of the residents' addresses go with the reports' contact details: each message
    to them keeps its event, subject, body and delivery evidence, never whom it went to. A message still
    queued then has nowhere to go and is recorded as failed."""
    ids = [str(i) for i in report_ids]
    erased = 0
    for chunk in chunks(ids):
        for message in db.session.scalars(select(Notification).where(
                Notification.record_type == "public_report", Notification.record_id.in_(chunk))):
            message.recipient_name, message.recipient_email = ERASED_NAME, None
            if message.status == "queued":
                message.status, message.next_attempt_at = "failed", None
                message.failure_reason = "The resident's contact details were erased before it was sent."
            erased += 1
    db.session.flush()
    return erased


__all__ = ["bond_released", "certificate_issued", "citation_written", "device_revoked", "exemption_decided",
           "finding_overdue", "inspection_approved", "permit_moved", "permit_people", "photo_links",
           "protest_decided", "public_report_contacts_erased", "public_report_received", "public_report_triaged",
           "screen", "send"]
