"""The office's queue of reports from the public, and their triage (supervisors only).

A supervisor reads a report (its text, place, time, photos with their EXIF position, the resident's
contact until it is erased, and the permits and cases near its point) and triages it once, with an
answer the resident reads:
- link: to a permit or an enforcement case (any on record but a draft or a withdrawn application);
- open_case: opens an enforcement case from it (R-O0, the body of POST /permits without an applicant);
- close: nothing more to do.
Linking and opening a case make a complaint inspection due at that site (R-I1, program/
inspection_requests.request_complaint_inspection). Every triage ends the report's handling as a report
(status linked, case_opened or closed, `closed_at` set, the answer shown to its author); what follows
happens on the permit or case. A triaged report is not triaged again (409 invalid_transition).
"""
from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from typing import Any, Iterable

from sqlalchemy import Select, select

from .. import audit, clock, signals
from ..enforcement.models import Order
from ..errors import Forbidden, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, page_query
from ..permits.access import get_visible_permit, permit_visible
from ..permits.models import Permit
from ..permits.services import create_permit
from ..photos.rules import haversine_m
from ..program import rules as program_rules
from ..program.inspection_requests import annotated, request_complaint_inspection
from ..program.models import InspectionRequest
from ..records import check_version
from . import rules
from .models import PublicReport, PublicReportPhoto

API = "/api/v1"


# --- reading ------------------------------------------------------------------------------------------
def visible_reports(user) -> Select:
    """The reports `user` may read: every one for a supervisor, none for anyone else."""
    if user.role != "supervisor":
        raise Forbidden("Only supervisors read reports from the public.")
    return select(PublicReport)


def list_reports(user, args: dict[str, Any]) -> tuple[list[PublicReport], int]:
    query = visible_reports(user)
    if args.get("status"):
        query = query.where(PublicReport.status == args["status"])
    return page_query(query.order_by(PublicReport.created_at.desc(), PublicReport.id.desc()), args)


def get_report(user, report_id: str, *, for_update: bool = False) -> PublicReport:
    query = visible_reports(user).where(PublicReport.id == str(report_id))
    report = db.session.scalar(query.with_for_update() if for_update else query)
    if report is None:
        raise NotFound("No such report.")
    return report


def get_photo(user, report_id: str, photo_id: str) -> PublicReportPhoto:
    report = get_report(user, report_id)
    photo = db.session.scalar(select(PublicReportPhoto).where(PublicReportPhoto.report_id == report.id,
                                                              PublicReportPhoto.id == str(photo_id)))
    if photo is None:
        raise NotFound("No such photo.")
    return photo


def _photo(photo: PublicReportPhoto) -> dict[str, Any]:
    base = f"{API}/public-reports/{photo.report_id}/photos/{photo.id}"
    return {"id": photo.id, "position": photo.position, "content_type": photo.content_type, "width": photo.width,
            "height": photo.height, "bytes": photo.bytes, "taken_at": photo.taken_at,
            "exif_location": ({"lat": photo.exif_lat, "lon": photo.exif_lon} if photo.exif_lat is not None else None),
            "url": f"{base}?size=original", "display_url": f"{base}?size=display", "small_url": f"{base}?size=small"}


def dump_reports(reports: Iterable[PublicReport], *, nearby_of=None) -> list[dict[str, Any]]:
    """The reports as the queue shows them, their photos and permits loaded for all at once; with
    `nearby_of` (the user), each with the permits near its point."""
    reports = list(reports)
    ids = [r.id for r in reports]
    photos: dict[str, list[PublicReportPhoto]] = defaultdict(list)
    if ids:
        for photo in db.session.scalars(select(PublicReportPhoto).where(PublicReportPhoto.report_id.in_(ids))
                                        .order_by(PublicReportPhoto.position)):
            photos[photo.report_id].append(photo)
    permit_ids = {r.permit_id for r in reports if r.permit_id}
    permits = ({p.id: p for p in db.session.scalars(select(Permit).where(Permit.id.in_(permit_ids)))}
               if permit_ids else {})
    out = []
    for report in reports:
        item = _dump(report, [_photo(p) for p in photos[report.id]], permits.get(report.permit_id))
        if nearby_of is not None:
            item["nearby_permits"] = nearby_permits(nearby_of, report)
        out.append(item)
    return out


def dump_report(user, report: PublicReport) -> dict[str, Any]:
    return dump_reports([report], nearby_of=user)[0]


def _dump(report: PublicReport, photos: list[dict[str, Any]], permit: Permit | None) -> dict[str, Any]:
    contact = {"name": report.contact_name, "email": report.contact_email, "phone": report.contact_phone}
    return {
        "id": report.id, "reference": report.reference, "status": report.status, "language": report.language,
        "description": report.description,
        "location": ({"lat": report.lat, "lon": report.lon, "accuracy_m": report.accuracy_m}
                     if report.lat is not None else None),
        "address": report.address, "observed_at": report.observed_at, "received_at": report.created_at,
        "contact": contact if any(contact.values()) else None, "contact_erased_at": report.contact_erased_at,
        "photos": photos, "answer": report.answer, "note": report.note,
        "permit": {"id": permit.id, "number": permit.number, "status": permit.status} if permit else None,
        "inspection_request_id": report.inspection_request_id, "triaged_by": report.triaged_by,
        "first_response_at": report.first_response_at, "closed_at": report.closed_at, "version": report.version}


def nearby_permits(user, report: PublicReport) -> list[dict[str, Any]]:
    """Permits and cases a report could be linked to whose site point lies within NEARBY_M of its point."""
    if report.lat is None or report.lon is None:
        return []
    south, north, west, east = rules.box_around(report.lat, report.lon, rules.NEARBY_M)
    candidates = db.session.scalars(select(Permit).where(
        permit_visible(Permit.id, user), Permit.status.in_(program_rules.COMPLAINT_SITES),
        Permit.site_lat.between(south, north), Permit.site_lon.between(west, east)))
    found = []
    for permit in candidates:
        distance = haversine_m(report.lat, report.lon, permit.site_lat, permit.site_lon)
        if distance <= rules.NEARBY_M:
            found.append({"id": permit.id, "number": permit.number, "address": permit.site_address,
                          "status": permit.status, "distance_m": round(distance, 1),
                          # Where the office's map draws it beside the report's point.
                          "location": {"lat": permit.site_lat, "lon": permit.site_lon},
                          "limit_of_work": permit.limit_of_work})
    return sorted(found, key=lambda p: (p["distance_m"], p["number"] or "", p["id"]))[:rules.NEARBY_LIMIT]


# --- triage -------------------------------------------------------------------------------------------
def _site_to_link(user, permit_id: str) -> Permit:
    """The permit or case a report is linked to; one that does not exist, or that is no site the Town
    inspects (a draft or a withdrawn application), is a 422 naming `permit_id`."""
    try:
        permit = get_visible_permit(user, permit_id, for_update=True)
    except NotFound:
        raise ValidationFailed(errors={"permit_id": ["No permit or enforcement case has this id."]}) from None
    if permit.status not in program_rules.COMPLAINT_SITES:
        raise ValidationFailed(errors={"permit_id": [
            f"A {permit.status} application is no site the Town inspects; open an enforcement case instead."]})
    return permit


def _open_case(user, case: dict[str, Any]) -> Permit:
    try:
        permit, _created = create_permit(user, case)
    except ValidationFailed as exc:
        raise ValidationFailed(exc.message, errors={"case": exc.errors}) from None
    return permit


def triage(user, report_id: str, body: dict[str, Any], expected: int | None) -> PublicReport:
    """Link, open a case from, or close a report, with the resident's answer (see the module's docstring)."""
    report = get_report(user, report_id, for_update=True)
    check_version(report, expected, lambda r: dump_report(user, r))
    if report.status != "received":
        raise InvalidTransition(f"This report was triaged already (it is {report.status.replace('_', ' ')}); "
                                "what follows happens on its permit or case.")
    action = body["action"]
    permit = (_site_to_link(user, body["permit_id"]) if action == "link"
              else _open_case(user, body["case"]) if action == "open_case" else None)
    if permit is not None:
        wanted = request_complaint_inspection(user, permit, f"Report {rules.report_number(report.reference)}")
        report.permit_id, report.inspection_request_id = permit.id, wanted.id
    now = clock.now()
    report.status, report.answer, report.note = rules.TRIAGE_ACTIONS[action], body["answer"], body.get("note")
    report.triaged_by, report.closed_at = user.id, now
    report.first_response_at = report.first_response_at or now
    report.bump_version()
    db.session.flush()
    audit.record("public_report.triage", "public_report", report.id,
                 {"action": action, "status": report.status, "permit_id": report.permit_id,
                  "inspection_request_id": report.inspection_request_id, "answer": report.answer,
                  "note": report.note}, actor=user, permit_id=report.permit_id)
    signals.public_report_triaged.send(report, actor=user)
    return report


# --- the MS4 annual report ------------------------------------------------------------------------------
def ms4_counts(user, start: date, end: date) -> dict[str, Any]:
    """Of the reports received from `start` to `end` (Town days, both included): how many were triaged,
    led to an inspection (a complaint inspection recorded that met the one the triage made due), led to an
    order (one issued on the linked permit or case on or after the day the report came in), and the median
    days from receipt to the first response."""
    tz = clock.town_zone()
    since = datetime.combine(start, datetime.min.time(), tzinfo=tz)
    until = datetime.combine(end, datetime.max.time(), tzinfo=tz)
    reports = list(db.session.scalars(visible_reports(user).where(PublicReport.created_at >= since,
                                                                  PublicReport.created_at <= until)))
    triaged = [r for r in reports if r.first_response_at is not None]
    request_ids = [r.inspection_request_id for r in reports if r.inspection_request_id]
    met = {r.id for r in annotated(list(db.session.scalars(
        select(InspectionRequest).where(InspectionRequest.id.in_(request_ids))))) if r.status == "done"} \
        if request_ids else set()
    ordered = _orders_by_permit({r.permit_id for r in reports if r.permit_id})
    return {"received": len(reports), "triaged": len(triaged),
            "led_to_inspection": sum(1 for r in reports if r.inspection_request_id in met),
            "led_to_order": sum(1 for r in reports if r.permit_id and any(
                day >= clock.local_date(r.created_at) for day in ordered.get(r.permit_id, ()))),
            "median_days_to_first_response": rules.median_days(r.first_response_at - r.created_at for r in triaged)}


def _orders_by_permit(permit_ids: set[str]) -> dict[str, list[date]]:
    """The days orders were issued on each of these permits or cases."""
    out: dict[str, list[date]] = defaultdict(list)
    ids = sorted(permit_ids)
    for chunk in chunks(ids):
        for permit_id, issued_on in db.session.execute(select(Order.permit_id, Order.issued_on).where(
                Order.permit_id.in_(chunk))):
            out[permit_id].append(issued_on)
    return out


__all__ = ["dump_report", "dump_reports", "get_photo", "get_report", "list_reports", "ms4_counts",
           "nearby_permits", "triage", "visible_reports"]
