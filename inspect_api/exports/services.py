"""Exports for GIS (GeoJSON) and spreadsheets (CSV), scoped like every other read by the caller's visibility.

Dates in filters are Fairhaven calendar days: `from` and `to` are inclusive, and a record stamped with a
time falls on its local day.
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import select

from ..auth.models import User
from ..clock import town_zone
from ..extensions import db
from ..inspections.models import Finding, Inspection
from ..permits.access import permit_visible
from ..permits.models import Permit
from ..photos.models import Photo
from ..sampling.models import Sample
from . import rules

INSPECTION_COLUMNS = ("id", "permit_id", "permit_number", "site_address", "kind", "status", "started_at", "ended_at",
                      "inspector_id", "inspector_name", "location_lat", "location_lon", "location_accuracy_m",
                      "phase", "disturbance_observed", "checklist_template", "checklist_template_version",
                      "deficient_items", "findings", "open_findings", "submitted_at", "reviewed_at",
                      "review_comment", "notes", "device_id", "device_created_at", "created_at", "updated_at")
FINDING_COLUMNS = ("id", "permit_id", "permit_number", "site_address", "inspection_id", "sample_id", "item_key",
                   "parameter", "kind", "severity", "description", "required_action", "needs_new_control",
                   "observed_on", "due_on", "status", "verified_fixed_on", "verified_by_inspection_id", "closed_at",
                   "photo_count", "location_lat", "location_lon", "location_source", "created_at", "updated_at")


def utc_bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """[first instant of `start`, first instant after `end`) in Fairhaven, as aware datetimes."""
    zone = town_zone()
    low = datetime.combine(start, time(0), tzinfo=zone) if start else None
    high = datetime.combine(end + timedelta(days=1), time(0), tzinfo=zone) if end else None
    return low, high


def within_days(column, start: date | None, end: date | None):
    low, high = utc_bounds(start, end)
    clauses = []
    if low is not None:
        clauses.append(column >= low)
    if high is not None:
        clauses.append(column < high)
    return sa.and_(sa.true(), *clauses)


def live_clause(model):
    deleted = getattr(model, "deleted_at", None)
    return deleted.is_(None) if deleted is not None else sa.true()


def _permits_by_id(ids) -> dict[str, Permit]:
    ids = list({i for i in ids if i})
    return {p.id: p for p in db.session.scalars(select(Permit).where(Permit.id.in_(ids)))} if ids else {}


# -- GeoJSON -------------------------------------------------------------------------------------------------
def permit_properties(permit: Permit) -> dict[str, Any]:
    return {"permit_id": permit.id, "number": permit.number, "status": permit.status,
            "review_level": permit.review_level, "site_address": permit.site_address, "parcel_id": permit.parcel_id,
            "owner_name": permit.owner_name, "disturbed_area_sqft": permit.disturbed_area_sqft,
            "proposed_use": permit.proposed_use, "luhppl_kind": permit.luhppl_kind,
            "cease_and_desist": permit.cease_and_desist, "work_commenced_on": permit.work_commenced_on,
            "work_completed_on": permit.work_completed_on, "closed_at": permit.closed_at}


def permits_geojson(user, *, layer: str | None = None, status: str | None = None) -> dict[str, Any]:
    query = select(Permit).where(permit_visible(Permit.id, user)).order_by(Permit.created_at, Permit.id)
    if status:
        query = query.where(Permit.status == status)
    layers = (layer,) if layer else rules.PERMIT_LAYERS
    features: list[dict[str, Any]] = []
    for permit in db.session.scalars(query):
        features += rules.permit_features(permit.id, rules.point(permit.site_lon, permit.site_lat),
                                          permit.limit_of_work, permit_properties(permit), layers)
    return rules.collection("permits" if not layer else f"permits_{layer}", features)


def _finding_locations(findings) -> dict[str, tuple[float, float, str]]:
    """Where each finding was seen: its inspection's fix, else its sample's point, else the permit's site."""
    fixes: dict[tuple[str, str], tuple[float, float]] = {}
    for model, kind, attr in ((Inspection, "inspection", "inspection_id"), (Sample, "sample", "sample_id")):
        ids = [getattr(f, attr) for f in findings if getattr(f, attr, None)]
        if not ids:
            continue
        for row in db.session.execute(select(model.id, model.location_lon, model.location_lat)
                                      .where(model.id.in_(ids))):
            if row[1] is not None and row[2] is not None:
                fixes[(kind, row[0])] = (row[1], row[2])
    permits = _permits_by_id(f.permit_id for f in findings)
    out = {}
    for f in findings:
        for kind, attr in (("inspection", "inspection_id"), ("sample", "sample_id")):
            fix = fixes.get((kind, getattr(f, attr, None)))
            if fix:
                out[f.id] = (*fix, kind)
                break
        else:
            permit = permits[f.permit_id]
            out[f.id] = (permit.site_lon, permit.site_lat, "site")
    return out


def _findings(user, start: date | None, end: date | None, status: str | None = None) -> list:
    query = select(Finding).where(permit_visible(Finding.permit_id, user), live_clause(Finding))
    if start:
        query = query.where(Finding.observed_on >= start)
    if end:
        query = query.where(Finding.observed_on <= end)
    if status:
        query = query.where(Finding.status == status)
    return list(db.session.scalars(query.order_by(Finding.observed_on, Finding.id)))


def finding_row(f, permit: Permit, location: tuple[float, float, str]) -> dict[str, Any]:
    row = {c: getattr(f, c, None) for c in FINDING_COLUMNS if hasattr(f, c)}
    row.update(permit_number=permit.number, site_address=permit.site_address,
               photo_count=len(f.photo_ids or []), location_lon=location[0], location_lat=location[1],
               location_source=location[2])
    return row


def findings_geojson(user, *, start=None, end=None, status=None) -> dict[str, Any]:
    findings = _findings(user, start, end, status)
    where, permits = _finding_locations(findings), _permits_by_id(f.permit_id for f in findings)
    features = []
    for f in findings:
        row = finding_row(f, permits[f.permit_id], where[f.id])
        row["photo_ids"] = list(f.photo_ids or [])
        properties = {k: v for k, v in row.items() if k not in ("id", "location_lat", "location_lon")}
        features.append(rules.feature(f.id, rules.point(where[f.id][0], where[f.id][1]), properties))
    return rules.collection("findings", features)


def _uploader(user_id: str | None) -> dict[str, Any] | None:
    """Who uploaded a photo, as every photo list says it."""
    if user_id is None:
        return None
    account = db.session.get(User, user_id)
    return {"id": user_id, "name": account.name if account is not None else None}


def photos_geojson(user, *, start=None, end=None, permit_id: str | None = None) -> dict[str, Any]:
    """Photos with a location (from EXIF or the device); photos without one have nothing to map and are left out."""
    query = select(Photo).where(permit_visible(Photo.permit_id, user), live_clause(Photo),
                                Photo.location_lat.is_not(None), Photo.location_lon.is_not(None),
                                within_days(sa.func.coalesce(Photo.taken_at, Photo.created_at), start, end))
    if permit_id:
        query = query.where(Photo.permit_id == permit_id)
    photos = list(db.session.scalars(query.order_by(Photo.created_at, Photo.id)))
    permits = _permits_by_id(p.permit_id for p in photos)
    features = [rules.feature(p.id, rules.point(p.location_lon, p.location_lat), {
        "photo_id": p.id, "permit_id": p.permit_id, "permit_number": permits[p.permit_id].number,
        "parent_type": p.parent_type, "parent_id": p.parent_id, "taken_at": p.taken_at,
        "location_source": p.location_source, "distance_to_site_m": p.distance_to_site_m,
        "within_site": p.within_site, "sha256": p.sha256, "content_type": p.content_type, "width": p.width,
        "height": p.height, "url": f"/api/v1/photos/{p.id}", "thumbnail_url": f"/api/v1/photos/{p.id}/thumbnail",
        "uploaded_by": _uploader(p.created_by),
    }) for p in photos]
    return rules.collection("photos", features)


# -- CSV -----------------------------------------------------------------------------------------------------
def findings_csv(user, *, start=None, end=None, status=None) -> str:
    findings = _findings(user, start, end, status)
    where, permits = _finding_locations(findings), _permits_by_id(f.permit_id for f in findings)
    return rules.csv_text(FINDING_COLUMNS, (finding_row(f, permits[f.permit_id], where[f.id]) for f in findings))


def inspections_csv(user, *, start=None, end=None) -> str:
    query = (select(Inspection).where(permit_visible(Inspection.permit_id, user), live_clause(Inspection),
                                      within_days(Inspection.started_at, start, end))
             .order_by(Inspection.started_at, Inspection.id))
    inspections = list(db.session.scalars(query))
    permits = _permits_by_id(i.permit_id for i in inspections)
    author_ids = {i.created_by for i in inspections if i.created_by}
    names = dict(db.session.execute(select(User.id, User.name).where(User.id.in_(author_ids))).tuples().all()) \
        if author_ids else {}
    rows = []
    for i in inspections:
        row = {c: getattr(i, c, None) for c in INSPECTION_COLUMNS if hasattr(i, c)}
        findings = list(getattr(i, "findings", []) or [])
        row.update(permit_number=permits[i.permit_id].number, site_address=permits[i.permit_id].site_address,
                   inspector_id=i.created_by, inspector_name=names.get(i.created_by),
                   deficient_items=sum(1 for item in (getattr(i, "checklist_items", None) or [])
                                       if isinstance(item, dict) and item.get("answer") == "deficient"),
                   findings=len(findings), open_findings=sum(1 for f in findings if f.status == "open"))
        rows.append(row)
    return rules.csv_text(INSPECTION_COLUMNS, rows)
