"""Reports: gather what a report shows, through each domain's visibility helpers, then render it."""
from __future__ import annotations

import logging
from dataclasses import asdict, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import or_, select

from .. import clock, renditions
from ..auth.models import User
from ..checklists.services import find_template
from ..entry.models import EntryAuthorization
from ..errors import NotFound
from ..extensions import db
from ..inspections.findings import open_findings_query
from ..inspections.models import Finding, Inspection
from ..inspections.services import get_inspection
from ..permits.access import get_visible_permit
from ..permits.models import Permit
from ..photos import annotations as photo_annotations, derivation as photo_derivation, parents as photo_parents
from ..photos.models import Photo, PhotoAnnotation
from ..sampling import exceedances, levels, rules as sampling_rules
from ..sampling.models import Sample
from ..sampling.services import visible_samples
from . import pdf
from .timeline import permit_timeline

log = logging.getLogger(__name__)


def timeline(user, permit_id: str) -> list[dict[str, Any]]:
    return permit_timeline(user, get_visible_permit(user, permit_id))


def _when(at: datetime | None) -> str:
    return at.astimezone(clock.town_zone()).strftime("%Y-%m-%d %H:%M %Z") if at else "\u2013"


def _words(value: str | None) -> str:
    return (value or "").replace("_", " ")


def _name(user_id: str | None) -> str:
    user = db.session.get(User, user_id) if user_id else None
    return user.name if user else "\u2013"


def _site_rows(permit: Permit) -> list[tuple[str, str]]:
    return [("Permit number", permit.number or "not yet numbered (application not submitted)"),
            ("Review", _words(permit.review_level)), ("Permit status", _words(permit.status)),
            ("Site", permit.site_address), ("Parcel", permit.parcel_id or "\u2013"),
            ("Owner", permit.owner_name),
            ("Site point", f"{permit.site_lat:.5f}, {permit.site_lon:.5f}")]


def _weather(weather: dict[str, Any] | None) -> str:
    if not weather:
        return "not recorded"
    parts = [weather.get("conditions") or ""]
    if weather.get("temperature_f") is not None:
        parts.append(f"{weather['temperature_f']:g} \u00b0F")
    if weather.get("rainfall_in_24h") is not None:
        parts.append(f"{weather['rainfall_in_24h']:g} in of rain in the previous 24 h")
    return ", ".join(p for p in parts if p) or "not recorded"


def _inspection_rows(record: Inspection) -> list[tuple[str, str]]:
    rows = [("Kind", _words(record.kind).capitalize()), ("Inspector", _name(record.created_by)),
            ("Started", _when(record.started_at)), ("Ended", _when(record.ended_at)),
            ("Weather", _weather(record.weather)), ("Construction phase", record.phase or "not recorded"),
            ("Areas unsafe to inspect", "; ".join(record.unsafe_areas or []) or "none"),
            ("Status", _words(record.status))]
    if record.location_lat is not None:
        accuracy = f" (\u00b1{record.location_accuracy_m:g} m)" if record.location_accuracy_m is not None else ""
        rows.append(("Location fix", f"{record.location_lat:.5f}, {record.location_lon:.5f}{accuracy}"))
    if record.reviewed_at is not None:
        comment = f": {record.review_comment}" if record.review_comment else ""
        rows.append(("Review", f"{_words(record.status)} by {_name(record.reviewed_by)} on "
                               f"{_when(record.reviewed_at)}{comment}"))
    if record.notes:
        rows.append(("Notes", record.notes))
    return rows


def _checklist(record: Inspection) -> tuple[str, list[tuple[str, str, str, str]], dict[str, str]]:
    """All items of the template version answered, in template order; also item labels by key."""
    template = find_template(record.checklist_template, record.checklist_template_version) \
        if record.checklist_template else None
    answers = {a["key"]: a for a in record.checklist_items or []}
    if template is None:
        return "Checklist", [], {}
    labels = {item["key"]: item["label"] for item in template.items}
    rows = []
    for number, item in enumerate(template.items, start=1):
        answer = answers.get(item["key"]) or {}
        rows.append((str(number), item["label"], answer.get("answer") or "not answered", answer.get("note") or ""))
    return f"Checklist: {template.title} (version {template.version})", rows, labels


def _day_samples(user, record: Inspection) -> list[Sample]:
    day = record.started_at.astimezone(clock.town_zone()).date()
    start = datetime.combine(day, datetime.min.time(), clock.town_zone())
    end = datetime.combine(day, datetime.max.time(), clock.town_zone())
    return list(db.session.scalars(visible_samples(user).where(
        Sample.permit_id == record.permit_id, Sample.sampled_at >= start, Sample.sampled_at <= end)
        .order_by(Sample.sampled_at, Sample.id)))


def _sample_rows(samples: list[Sample]) -> list[tuple[str, str, str, str]]:
    rows = []
    for sample in samples:
        results = "; ".join(f"{p['name']}: {p['value']} {p['unit']}" if p.get("value") is not None
                            else f"{p['name']}: result pending" for p in sample.parameters or []) or "pending"
        where = sample.outfall_id or (f"{sample.location_lat:.5f}, {sample.location_lon:.5f}"
                                      if sample.location_lat is not None else "site")
        exceeded = "; ".join(f"{e['parameter']} {e['value']:g} {e['unit']} exceeds" for e in sample.exceedances or [])
        rows.append((sample.sampled_at.astimezone(clock.town_zone()).strftime("%H:%M %Z"),
                     f"{where} ({sample.sample_type}, {sample.analysis})", results, exceeded or "within"))
    return rows


ENTRY_BASES = {
    "owner_consent": "consent of the owner or other party in control of the property",
    "permit_condition": "a condition of the permit or approval",
    "court_warrant": "a warrant issued by a court",
    "emergency": "an emergency, to the extent permitted by law",
}


def _entry_rows(record: Inspection) -> list[tuple[str, str]]:
    """R-E1: the authority the entry relied on, as the inspector recorded it."""
    auth = db.session.get(EntryAuthorization, record.entry_authorization_id) if record.entry_authorization_id else None
    if auth is None or auth.permit_id != record.permit_id:
        return [("Basis", "no entry authorization recorded")]
    rows = [("Basis", ENTRY_BASES.get(auth.basis, _words(auth.basis))),
            ("Granted by", f"{auth.granted_by_name} ({auth.granted_by_relation})"),
            ("Scope", ", ".join(auth.scope or []) or "\u2013"),
            ("Valid", f"{_when(auth.valid_from)} to {_when(auth.valid_to)}")]
    if auth.revoked_at is not None:
        rows.append(("Revoked", _when(auth.revoked_at)))
    return rows


def _weekly_notes(samples: list[Sample]) -> list[str]:
    """R-S2: the turbidity benchmark is judged on the weekly average per discharge point, not on one
    sample: say so, and mark each outfall-week of these samples whose average exceeds it."""
    level = levels.weekly_level("turbidity")
    if level is None or not any(p.get("name") == "turbidity" for s in samples for p in s.parameters or []):
        return []
    notes = [f"Turbidity is judged on the weekly average per discharge point ({level.describe()}), not on a "
             "single sample."]
    weeks = sorted({(s.outfall_id, sampling_rules.week_start(s.sampled_at, clock.town_zone())) for s in samples
                    if s.outfall_id and any(p.get("name") == "turbidity" for p in s.parameters or [])})
    for outfall_id, week in weeks:
        row = exceedances.week_row(samples[0].permit_id, outfall_id, week, level)
        if row is None:
            continue
        verdict = "EXCEEDS the benchmark (weekly average)" if row.exceeds else "within the benchmark"
        notes.append(f"Discharge point {outfall_id}, week of {week.isoformat()}: weekly average "
                     f"{row.average.quantize(Decimal('0.01'))} {level.unit} over {row.samples} "
                     f"sample{'s' if row.samples != 1 else ''}: {verdict}.")
    return notes


def _findings(user, record: Inspection, samples: list[Sample]) -> list[Finding]:
    conditions = [Finding.inspection_id == record.id]
    if samples:
        conditions.append(Finding.sample_id.in_([s.id for s in samples]))
    if record.verifies_finding_ids:
        conditions.append(Finding.id.in_([str(i) for i in record.verifies_finding_ids]))
    return list(db.session.scalars(open_findings_query(user, permit_id=record.permit_id).where(or_(*conditions))))


def _finding_rows(findings: list[Finding], labels: dict[str, str]) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for finding in findings:
        subject = labels.get(finding.item_key or "") or finding.item_key or finding.parameter or _words(finding.kind)
        text = finding.description + (f"\nRequired: {finding.required_action}" if finding.required_action else "")
        status = finding.status
        if finding.verified_fixed_on:
            status = f"verified fixed {finding.verified_fixed_on.isoformat()}"
        rows.append((subject, text, finding.severity, finding.due_on.isoformat(), status))
    return rows


def _photo_refs(record: Inspection, findings: list[Finding], labels: dict[str, str]) -> list[tuple[str, str]]:
    refs: dict[str, str] = {}
    for answer in record.checklist_items or []:
        for photo_id in answer.get("photo_ids") or []:
            refs.setdefault(str(photo_id), labels.get(answer["key"], answer["key"]))
    for finding in findings:
        for photo_id in finding.photo_ids or []:
            refs.setdefault(str(photo_id), f"finding: {finding.item_key or finding.parameter or finding.kind}")
    return list(refs.items())


def _photos(record: Inspection, findings: list[Finding], labels: dict[str, str]) -> list[tuple[str, str, Photo | None]]:
    """The photos the inspection and its findings reference, plus photos uploaded with the inspection
    as parent, as (id, caption, photo or None while it has not arrived); only photos of this permit,
    so an id cannot pull in another site's, and only photos that count for their parent
    (photos.parents.attached): one still waiting for its parent, or from an account that had no
    right to add it, is in no report. Each caption says who uploaded the photo."""
    refs = _photo_refs(record, findings, labels)
    parents = [("inspection", record.id)] + [("finding", f.id) for f in findings]
    counted = select(Photo).where(Photo.permit_id == record.permit_id, photo_parents.attached())
    attached = db.session.scalars(counted.where(
        or_(*[(Photo.parent_type == kind) & (Photo.parent_id == pid) for kind, pid in parents]))
        .order_by(Photo.created_at, Photo.id))
    known = {pid for pid, _ in refs}
    refs += [(p.id, "inspection photo") for p in attached if p.id not in known]
    photos = {p.id: p for p in db.session.scalars(counted.where(
        Photo.id.in_([pid for pid, _ in refs])))} if refs else {}
    entries = []
    for photo_id, caption in refs:
        photo = photos.get(photo_id)
        if photo is not None:
            taken = photo.taken_at or photo.device_created_at
            caption = f"{caption} \u2013 {_when(taken)}" if taken else caption
            caption = f"{caption} \u2013 uploaded by {_name(photo.created_by)}"
        entries.append((photo_id, caption, photo))
    return entries


# A marked-up photo is printed from the display rendition with its markup drawn on, at this size.
MARKED_UP_SIDE = 900


def _markup_note(photo: Photo, records: list[PhotoAnnotation]) -> str:
    """Who marked the photo up, and that the original (by its full SHA-256, in groups that wrap) stands."""
    names = list(dict.fromkeys(_name(r.created_by) for r in records))
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    digest = " ".join(photo.sha256[i:i + 16] for i in range(0, len(photo.sha256), 16))
    return (f"Marked up by {who}; the markup is drawn on a copy. The original (SHA-256 {digest}) is kept "
            "unaltered.")


def _thumbnails(photos: list[tuple[str, str, Photo | None]],
                markup: dict[str, list[PhotoAnnotation]]) -> tuple[list[pdf.PhotoEntry], bool]:
    """The photo entries with their thumbnails read from the store (and the annotated image of a photo
    with markup), and whether every photo that arrived could be read (a report missing one is
    answered, and not kept as the report)."""
    entries, complete = [], True
    for photo_id, caption, photo in photos:
        data = annotated = note = None
        if photo is not None:
            try:
                # Before the worker made the thumbnail it is made here from the original, and the
                # report is answered but not kept (made again once the stored thumbnail exists).
                data, stored = photo_derivation.thumbnail_bytes(photo.sha256, photo.original_key, "small",
                                                                photo.small_key)
                complete = complete and stored
                if photo.id in markup:
                    note = _markup_note(photo, markup[photo.id])
                    drawn = photo_annotations.render_annotated(photo, markup[photo.id], max_side=MARKED_UP_SIDE)
                    annotated, complete = drawn.data, complete and drawn.keep
            except Exception:  # the record arrived but its bytes did not (yet): shown as pending
                log.warning("thumbnail %s of photo %s unreadable", photo.small_key, photo_id, exc_info=True)
                complete = False
        entries.append(pdf.PhotoEntry(photo_id, caption, data, annotated, note))
    return entries, complete


REPORT_KIND = "inspection-report"


def _audience(user) -> str:
    """Whom a rendition is for: applicants are shown less than staff (nothing recorded on a draft),
    so their renditions are kept apart; every staff role is shown the same report."""
    return "applicant" if user.role == "applicant" else "staff"


def _row(kind: str, record: Any) -> list[Any]:
    return [kind, record.id, record.version]


def inspection_report(user, inspection_id: str):
    """The PDF answer for one inspection (visibility as for the inspection itself): a stored rendition
    keyed on every record the report shows, their versions, the text it prints and the audience, so
    a report is rendered once per change and a second request renders nothing (renditions)."""
    record = get_inspection(user, inspection_id)
    permit = db.session.get(Permit, record.permit_id)
    if permit is None:
        raise NotFound("No such inspection.")
    title_checklist, checklist_rows, labels = _checklist(record)
    samples = _day_samples(user, record)
    findings = _findings(user, record, samples)
    photos = _photos(record, findings, labels)
    markup = photo_annotations.markup_of([photo.id for _, _, photo in photos if photo is not None])
    data = pdf.ReportData(
        title=f"Inspection report \u2013 {permit.number or permit.site_address}",
        site_rows=_site_rows(permit), inspection_rows=_inspection_rows(record),
        checklist_title=title_checklist, checklist_rows=checklist_rows,
        finding_rows=_finding_rows(findings, labels), sample_rows=_sample_rows(samples),
        entry_rows=_entry_rows(record), sample_notes=_weekly_notes(samples),
        footer=f"Inspection {record.id} \u00b7 version {record.version}",
    )
    # The records by version, and the text as gathered: names, levels and templates have no version
    # here, and a viewer is never served text gathered for another.
    inputs = {
        "records": [_row("inspection", record), _row("permit", permit)]
                   + [_row("finding", f) for f in findings] + [_row("sample", s) for s in samples]
                   + [_row("photo", photo) + [photo.small_key] for _, _, photo in photos if photo is not None],
        "content": asdict(data),
        "photos": [[photo_id, caption, photo.small_key if photo else None] for photo_id, caption, photo in photos],
        # Each marked-up photo's markup by version and the note printed beside it.
        "markup": [[photo_annotations.annotated_inputs(photo, markup[photo.id]), _markup_note(photo, markup[photo.id])]
                   for _, _, photo in photos if photo is not None and photo.id in markup],
    }

    def render() -> renditions.Rendered:
        entries, complete = _thumbnails(photos, markup)
        # "generated": when this rendition was made; a kept one says so for as long as it is answered.
        page = replace(data, photos=entries, footer=f"{data.footer} \u00b7 generated {_when(clock.now())}")
        return renditions.Rendered(pdf.render(page), keep=complete)

    day = record.started_at.astimezone(clock.town_zone()).date().isoformat()
    return renditions.respond(REPORT_KIND, _audience(user), inputs, render,
                              filename=f"inspection-{permit.number or 'draft'}-{day}.pdf")
