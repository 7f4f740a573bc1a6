"""The per-permit timeline: every record of a site as dated events.

Each event is {at, kind, record_type, record_id, summary}. `at` is when the thing happened in the
world where the record says so (an inspection's start, a sample's time, a revocation), otherwise
when the record was made: the device clock for offline records, the server clock for the rest.
Records come through each domain's own visibility helper, so an applicant's timeline holds only
what the applicant may see elsewhere (no draft inspections, no removed findings).
"""
from __future__ import annotations

from datetime import date, datetime, time
from typing import Any, Iterable

from sqlalchemy import select

from ..audit import AuditEntry
from .. import clock
from ..auth.models import User
from ..entry.models import EntryAuthorization
from ..entry.services import visible_entry_authorizations
from ..extensions import db
from ..inspections.findings import open_findings_query
from ..inspections.models import Inspection
from ..inspections.services import visible_inspections
from ..permits.models import Permit, PermitEvent
from ..sampling.models import Sample
from ..sampling.services import visible_samples



def _event(at: datetime, kind: str, record_type: str, record_id: str, summary: str) -> dict[str, Any]:
    return {"at": at, "kind": kind, "record_type": record_type, "record_id": record_id, "summary": summary}


def _words(value: str | None) -> str:
    return (value or "").replace("_", " ")


def _clip(text: str | None, length: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= length else text[: length - 1] + "\u2026"


class _Names:
    """User names, loaded once for all events."""

    def __init__(self, ids: Iterable[str | None]) -> None:
        wanted = {i for i in ids if i}
        rows = db.session.execute(select(User.id, User.name).where(User.id.in_(wanted))) if wanted else []
        self._names = {row.id: row.name for row in rows}

    def by(self, user_id: str | None) -> str:
        name = self._names.get(user_id) if user_id else None
        return f" by {name}" if name else ""


def _permit_events(permit: Permit, names: _Names) -> list[dict[str, Any]]:
    events = []
    rows = db.session.scalars(select(PermitEvent).where(PermitEvent.permit_id == permit.id)
                              .order_by(PermitEvent.at, PermitEvent.id))
    for row in rows:
        if row.from_status is None:
            summary = f"Application created ({_words(row.to_status)}){names.by(row.actor_id)}"
        else:
            summary = f"Status changed from {_words(row.from_status)} to {_words(row.to_status)}{names.by(row.actor_id)}"
        if row.reason:
            summary += f": {_clip(row.reason)}"
        events.append(_event(row.at, "permit.status", "permit", permit.id, summary))
    return events


def _entry_events(auths, names: _Names) -> list[dict[str, Any]]:
    events = []
    for auth in auths:
        scope = ", ".join(auth.scope or [])
        events.append(_event(
            auth.device_created_at or auth.created_at, "entry_authorization.granted", "entry_authorization", auth.id,
            f"Site entry ({_words(auth.basis)}) granted by {auth.granted_by_name} ({auth.granted_by_relation}) for "
            f"{scope}, {auth.valid_from.astimezone(clock.town_zone()):%Y-%m-%d %H:%M} to "
            f"{auth.valid_to.astimezone(clock.town_zone()):%Y-%m-%d %H:%M}{names.by(auth.created_by)}"))
        if auth.revoked_at is not None:
            reason = f": {_clip(auth.revocation_reason)}" if auth.revocation_reason else ""
            events.append(_event(auth.revoked_at, "entry_authorization.revoked", "entry_authorization", auth.id,
                                 f"Site-entry authorization revoked{names.by(auth.revoked_by)}{reason}"))
    return events


def _submissions(inspections) -> dict[str, list[tuple[datetime, str | None]]]:
    """Every submission from the audit log: a returned inspection is submitted again, and the
    record itself keeps only the latest submission time."""
    ids = [record.id for record in inspections]
    found: dict[str, list[tuple[datetime, str | None]]] = {}
    if ids:
        rows = db.session.execute(select(AuditEntry.record_id, AuditEntry.at, AuditEntry.actor_id).where(
            AuditEntry.record_type == "inspection", AuditEntry.action == "inspection.submit",
            AuditEntry.record_id.in_(ids)).order_by(AuditEntry.at))
        for row in rows:
            found.setdefault(row.record_id, []).append((row.at, row.actor_id))
    for record in inspections:
        if record.submitted_at is not None:
            # The latest submission is the record's own time, taken before the findings it raised were
            # made (the audit row is written after them), so "submitted" precedes its findings.
            found[record.id] = found.get(record.id, [])[:-1] + [(record.submitted_at, record.submitted_by)]
    return found


def _inspection_events(inspections, submissions, names: _Names) -> list[dict[str, Any]]:
    events = []
    for record in inspections:
        events.append(_event(record.started_at, "inspection.started", "inspection", record.id,
                             f"{_words(record.kind).capitalize()} inspection{names.by(record.created_by)}"))
        for at, actor_id in submissions.get(record.id, []):
            events.append(_event(at, "inspection.submitted", "inspection", record.id,
                                 f"Inspection submitted for review{names.by(actor_id)}"))
        for review in record.reviews or []:
            comment = f": {_clip(review.get('comment'))}" if review.get("comment") else ""
            events.append(_event(datetime.fromisoformat(review["at"]), f"inspection.{review['decision']}",
                                 "inspection", record.id,
                                 f"Inspection {review['decision']}{names.by(review.get('by'))}{comment}"))
    return events


def _local_midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, clock.town_zone())


def _finding_events(findings) -> list[dict[str, Any]]:
    events = []
    for finding in findings:
        subject = finding.item_key or finding.parameter or _words(finding.kind)
        events.append(_event(finding.device_created_at or finding.created_at, "finding.opened", "finding", finding.id,
                             f"Finding ({_words(finding.kind)}, {finding.severity}) on {subject}: "
                             f"{_clip(finding.description)} Due {finding.due_on.isoformat()}."))
        if finding.status == "closed":
            at = finding.closed_at or _local_midnight(finding.verified_fixed_on or finding.due_on)
            if finding.verified_fixed_on:
                summary = f"Finding on {subject} verified fixed on {finding.verified_fixed_on.isoformat()}"
                kind = "finding.verified"
            else:
                summary, kind = f"Finding on {subject} closed", "finding.closed"
            events.append(_event(at, kind, "finding", finding.id, summary))
    return events


def _sample_events(samples, names: _Names) -> list[dict[str, Any]]:
    events = []
    for sample in samples:
        results = ", ".join(f"{p['name']} {p['value']} {p['unit']}" if p.get("value") is not None
                            else f"{p['name']} pending" for p in sample.parameters or []) or "no results yet"
        where = f" at {sample.outfall_id}" if sample.outfall_id else ""
        exceeds = sorted({e["parameter"] for e in sample.exceedances or []})
        summary = f"{sample.sample_type.capitalize()} sample{where}{names.by(sample.created_by)}: {results}"
        if exceeds:
            summary += f"; exceeds action level for {', '.join(exceeds)}"
        events.append(_event(sample.sampled_at, "sample.taken", "sample", sample.id, summary))
    return events


def permit_timeline(user, permit: Permit) -> list[dict[str, Any]]:
    """Every visible event of `permit`, oldest first; ties keep the order permit, entry, inspection,
    finding, sample (a status change explains what follows it)."""
    auths = list(db.session.scalars(visible_entry_authorizations(user).where(EntryAuthorization.permit_id == permit.id)))
    inspections = list(db.session.scalars(visible_inspections(user).where(Inspection.permit_id == permit.id)))
    findings = list(db.session.scalars(open_findings_query(user, permit_id=permit.id)))
    samples = list(db.session.scalars(visible_samples(user).where(Sample.permit_id == permit.id)))
    actor_ids = [e.actor_id for e in db.session.scalars(select(PermitEvent).where(PermitEvent.permit_id == permit.id))]
    actor_ids += [a.created_by for a in auths] + [a.revoked_by for a in auths]
    submissions = _submissions(inspections)
    actor_ids += [i.created_by for i in inspections] + [a for subs in submissions.values() for _at, a in subs]
    actor_ids += [r.get("by") for i in inspections for r in i.reviews or []] + [s.created_by for s in samples]
    names = _Names(actor_ids)
    events = (_permit_events(permit, names) + _entry_events(auths, names) + _inspection_events(inspections, submissions, names)
              + _finding_events(findings) + _sample_events(samples, names))
    events.sort(key=lambda event: event["at"])
    return events
