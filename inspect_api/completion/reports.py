"""Final reports of land disturbance permits (R-F2): load, check, change, flush (never commit).

A report is drafted (fields, then documents), submitted once complete, then accepted or returned by a
supervisor (R-F3). A returned report is corrected and submitted again; a submitted or accepted one is not
edited in place.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Iterable

from sqlalchemy import Select, inspect as sa_inspect, select
from sqlalchemy.orm.attributes import set_committed_value

from .. import clock
from .. import audit
from ..auth.permissions import current_device_id
from ..errors import Conflict, NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, page_list, page_query
from ..permits.access import permit_visible
from ..permits.models import Permit
from ..records import check_version, existing_for_create
from . import rules
from .common import (apply_review, as_utc, closeout_permit, require_editable, require_filer,
                     review_view)
from .models import FinalReport, ReportDocument
from .schemas import FinalReportSchema

EDITABLE = ("draft", "returned")
_STAMP_FIELDS = ("name", "license_number", "stamp_date")
_CERT_FIELDS = {"substantial_compliance": "cert_substantial_compliance",
                "permanent_erosion_controls": "cert_permanent_erosion_controls",
                "stormwater_facilities": "cert_stormwater_facilities",
                "statement": "certification_statement", "certified_by": "certified_by"}


def visible_final_reports(user) -> Select:
    return select(FinalReport).where(permit_visible(FinalReport.permit_id, user))


def get_final_report(user, record_id: str) -> FinalReport:
    report = db.session.scalar(visible_final_reports(user).where(FinalReport.id == str(record_id)))
    if report is None:
        raise NotFound("No such final report.")
    return report


def _stamp(record: FinalReport, prefix: str) -> dict[str, Any] | None:
    values = {f: getattr(record, f"{prefix}_{f}") for f in _STAMP_FIELDS}
    return values if any(v is not None for v in values.values()) else None


def _content(record: FinalReport) -> dict[str, Any]:
    return {
        "pls_stamp": _stamp(record, "pls"), "pe_stamp": _stamp(record, "pe"), "pe_applicable": record.pe_applicable,
        "certification": {key: getattr(record, col) for key, col in _CERT_FIELDS.items()},
        "discrepancies": record.discrepancies, "controls": list(record.controls or []),
        "om_statement": record.om_statement,
    }


def _apply(record: FinalReport, data: dict[str, Any]) -> None:
    for prefix in ("pls", "pe"):
        if f"{prefix}_stamp" in data:
            stamp = data[f"{prefix}_stamp"] or {}
            for field in _STAMP_FIELDS:
                setattr(record, f"{prefix}_{field}", stamp.get(field))
    if data.get("pe_applicable") is not None:
        record.pe_applicable = data["pe_applicable"]
    if "certification" in data:
        cert = data["certification"] or {}
        for key, col in _CERT_FIELDS.items():
            if key in cert:
                setattr(record, col, cert[key])
    for key in ("discrepancies", "controls", "om_statement"):
        if key in data:
            setattr(record, key, data[key] if key != "controls" else list(data[key] or []))


def create_final_report(user, data: dict[str, Any]) -> tuple[FinalReport, bool]:
    permit = closeout_permit(user, data["permit_id"], "final_report")
    draft = FinalReport(permit_id=permit.id, pe_applicable=True, controls=[])
    _apply(draft, data)
    wanted = _content(draft)

    def same(existing: FinalReport) -> bool:
        return existing.permit_id == permit.id and _content(existing) == wanted

    existing = existing_for_create(FinalReport, data.get("id") and str(data["id"]), same)
    if existing is not None:
        return existing, False
    other = db.session.scalar(select(FinalReport.id).where(FinalReport.permit_id == permit.id))
    if other is not None:
        raise Conflict("This permit already has a final report; edit that one.", error="report_exists",
                       errors={"existing_id": other})
    draft.id = str(data["id"]) if data.get("id") else None
    draft.status, draft.created_by = "draft", user.id
    draft.device_id, draft.device_created_at = current_device_id(), as_utc(data.get("device_created_at"))
    db.session.add(draft)
    db.session.flush()
    audit.record("final_report.create", "final_report", draft.id, {}, actor=user, permit_id=permit.id)
    return draft, True


def update_final_report(user, record: FinalReport, data: dict[str, Any], expected_version: int | None) -> FinalReport:
    require_filer(user, record.permit_id)
    require_editable(record, "final_report", EDITABLE)
    check_version(record, expected_version, dump_final_report)
    before = _content(record)
    _apply(record, data)
    record.bump_version()
    db.session.flush()
    audit.record("final_report.update", "final_report", record.id, audit.diff(before, _content(record)),
                 actor=user, permit_id=record.permit_id)
    return record


def missing_for_submission(record: FinalReport) -> dict[str, list[str]]:
    return rules.report_problems(_content(record), [d.kind for d in record.documents], clock.today())


def submit_final_report(user, record: FinalReport, expected_version: int | None) -> FinalReport:
    """Hand the completed report to the Stormwater Authority for review (R-F2, R-F3)."""
    require_filer(user, record.permit_id)
    require_editable(record, "final_report", EDITABLE)
    check_version(record, expected_version, dump_final_report)
    problems = missing_for_submission(record)
    if problems:
        raise ValidationFailed("The final report is incomplete (R-F2).", errors=problems)
    record.status, record.submitted_at = "submitted", clock.now()
    record.bump_version()
    db.session.flush()
    audit.record("final_report.submit", "final_report", record.id, {}, actor=user, permit_id=record.permit_id)
    return record


def review_final_report(user, record: FinalReport, decision: str, reasons: str | None) -> FinalReport:
    apply_review(user, record, "final_report", decision, reasons)
    db.session.flush()
    return record


def due_facts(work_completed_on: date | None, submitted_at, today: date) -> dict[str, Any]:
    due_on = rules.final_report_due_on(work_completed_on)
    submitted_on = clock.local_date(submitted_at) if submitted_at else None
    return {"work_completed_on": work_completed_on, "due_on": due_on,
            "overdue": rules.report_overdue(due_on, today, submitted_on),
            "submitted_late": rules.submitted_late(due_on, submitted_on)}


def document_view(doc) -> dict[str, Any]:
    return {"id": doc.id, "kind": doc.kind, "filename": doc.filename, "content_type": doc.content_type,
            "sha256": doc.sha256, "bytes": doc.size, "uploaded_at": doc.uploaded_at, "uploaded_by": doc.uploaded_by,
            "on_paper": doc.storage_key is None,
            "url": f"/api/v1/final-reports/{doc.report_id}/documents/{doc.id}" if doc.storage_key else None}


def list_final_reports(user, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """One page of the final reports `user` may see, as views. Overdue depends on today, so an overdue
    filter is applied to the views before the page is cut."""
    query = visible_final_reports(user)
    for key in ("permit_id", "status"):
        if args.get(key):
            query = query.where(getattr(FinalReport, key) == str(args[key]))
    query = query.order_by(FinalReport.created_at, FinalReport.id)
    if "overdue" not in args:
        found, total = page_query(query, args)
        return report_views(found), total
    views = report_views(db.session.scalars(query))
    return page_list([v for v in views if v["overdue"] == args["overdue"]], args)


def _documents(records: list[FinalReport]) -> None:
    """Fill the documents of every report not holding them yet, in one query for them all; documents
    already loaded (a report just written) are kept as they stand."""
    waiting = [r for r in records if "documents" in sa_inspect(r).unloaded]
    found: dict[str, list[ReportDocument]] = {r.id: [] for r in waiting}
    ids = sorted(found)
    for chunk in chunks(ids):
        for doc in db.session.scalars(select(ReportDocument).where(ReportDocument.report_id.in_(chunk))
                                      .order_by(ReportDocument.uploaded_at)):
            found[doc.report_id].append(doc)
    for record in waiting:
        set_committed_value(record, "documents", found[record.id])


def _work_completed_on(permit_ids: list[str]) -> dict[str, date | None]:
    """R-F2 counts from the day work was completed: that day of each permit, in one query."""
    ids, days = sorted(set(permit_ids)), {}
    for chunk in chunks(ids):
        days.update(db.session.execute(select(Permit.id, Permit.work_completed_on)
                                       .where(Permit.id.in_(chunk))).all())
    return days


def report_views(records: Iterable[FinalReport]) -> list[dict[str, Any]]:
    """The views of `records`: their documents and their permits' completion days are loaded for all
    of them at once, so a page costs what one report costs."""
    records = list(records)
    _documents(records)
    completed = _work_completed_on([r.permit_id for r in records])
    today = clock.today()
    return [{
        "id": record.id, "permit_id": record.permit_id, "status": record.status, **_content(record),
        "documents": [document_view(d) for d in record.documents],
        **due_facts(completed[record.permit_id], record.submitted_at, today),
        "missing": missing_for_submission(record) if record.status in EDITABLE else {},
        "submitted_at": record.submitted_at, "review": review_view(record), "version": record.version,
        "created_at": record.created_at, "updated_at": record.updated_at, "created_by": record.created_by,
        "device_id": record.device_id, "device_created_at": record.device_created_at,
    } for record in records]


def report_view(record: FinalReport) -> dict[str, Any]:
    return report_views([record])[0]


_report_schema = FinalReportSchema()


def dump_final_report(record: FinalReport) -> dict[str, Any]:
    return _report_schema.dump(report_view(record))


def final_reports_due(before: date, user=None) -> list[dict[str, Any]]:
    """Final reports (R-F2) of permits not yet closed, due strictly before `before`, that no submitted or
    accepted report answers yet; overdue ones are flagged. For the supervisors' deadlines view; pass `user`
    to scope to what that user may see. Sorted by due date."""
    # due_on < before implies completion before the same day two years earlier (plus a leap-day margin).
    latest_completion = rules.add_years(before, -rules.FINAL_REPORT_YEARS) + timedelta(days=1)
    query = (select(Permit, FinalReport).outerjoin(FinalReport, FinalReport.permit_id == Permit.id)
             .where(Permit.review_level == rules.PERMIT, Permit.work_completed_on.is_not(None),
                    Permit.work_completed_on <= latest_completion, Permit.status != "closed"))
    if user is not None:
        query = query.where(permit_visible(Permit.id, user))
    today, rows = clock.today(), []
    for permit, report in db.session.execute(query):
        if report is not None and report.status in ("submitted", "accepted"):
            continue
        due_on = rules.final_report_due_on(permit.work_completed_on)
        if due_on >= before:
            continue
        rows.append({"permit_id": permit.id, "permit_number": permit.number, "site_address": permit.site_address,
                     "work_completed_on": permit.work_completed_on, "due_on": due_on,
                     "overdue": rules.report_overdue(due_on, today, None),
                     "final_report_id": report.id if report else None,
                     "final_report_status": report.status if report else None})
    return sorted(rows, key=lambda row: (row["due_on"], row["permit_id"]))
