"""Reports from residents (API.md "Public"; MS4 permit, 40 CFR 122.34(b)(4)(ii)): what anyone may send
without an account, and the little they may read back.

What the public pages (pages.py) share with the API, so that a report from the HTML form and one from
POST /api/v1/public/reports are one thing, received, checked, limited and stored alike:

- `receive_form() -> (fields, photos)`: the current request's multipart/form-data body, spooled to disk
  first at the pace every body must keep (uploads.receive_to_tempfile and Pace), bounded by MAX_PHOTOS
  photos of MAX_UPLOAD_BYTES and the text, with no database transaction open before or during the
  read; then its text fields (`dict[str, str]`, raw) and up to MAX_PHOTOS `photos` files
  (`uploads.Received`, which the caller discards). More photos: ValidationFailed naming `photos`.
- `form_to_data(fields) -> dict`: the form's fields (`description, lat, lon, accuracy_m, address,
  observed_at` as datetime-local in Town time, `name, email, phone, website` the hidden honeypot) as the
  dict a JSON body loads to, checked by the same schema; errors.ValidationFailed names the form's fields.
- `submit_report(data, photos, *, language) -> PublicReport`: verifies each photo like any upload, then
  numbers, stores, audits the report and sends the signal that writes to the resident. A hostile or
  broken photo is a 422 and nothing is stored. A filled honeypot answers a report kept nowhere.
- `report_status(reference) -> {reference, status, received_at, answer?}`: case-insensitive; NotFound.
- `public_report_limit`: the one flask-limiter limit (PUBLIC_REPORT_RATE_LIMIT, per client address as
  the trusted proxies name it) that the API route and the form's POST route both wear, so one client's
  reports count together; over it, 429 in the error shape with Retry-After.

Decisions (README "Reports from residents"): see the README; in short, a report is never public, its
author reads its status and the Town's answer by a reference no one can guess by counting, and the
resident's contact details are erased PUBLIC_REPORT_CONTACT_DAYS after the report is closed.
"""
from __future__ import annotations

import logging
import secrets
from datetime import datetime
from typing import Any

from flask import current_app, has_request_context, request
from marshmallow import ValidationError
from sqlalchemy import select

from .. import audit, clock, signals
from ..auth import throttle
from ..errors import NotFound, UnsupportedMediaType, ValidationFailed
from ..extensions import db, limiter
from ..numbering import format_number, next_number
from ..photos.services import discard_blobs
from ..uploads import Received
from . import i18n, report_photos, rules
from .models import LANGUAGES, PublicReport
from .report_schemas import PublicReportCreateSchema

log = logging.getLogger(__name__)
DEFAULT_LANGUAGE = "en"
_schema = PublicReportCreateSchema()


# --- the limit ----------------------------------------------------------------------------------------
def _limit() -> str:
    return current_app.config["PUBLIC_REPORT_RATE_LIMIT"]


def _client() -> str:
    return "public-report:" + throttle.client_address()


# Kept on the request itself (its WSGI environ): flask.g belongs to the app context, which a request
# shares with whatever pushed one before it (a test, a script), so a mark there could outlive it.
_COUNTS = "inspect_api.public_report_counts"


def _counts(_response) -> bool:
    """A request counts once it cost the Town something: a report received (or a robot's answered), a
    body that carried photos. One refused only for its fields costs nothing and does not count, so a
    resident correcting the form is never locked out by their own mistakes."""
    return bool(request.environ.get(_COUNTS))


public_report_limit = limiter.shared_limit(_limit, scope="public-report", key_func=_client, deduct_when=_counts)


def _count_it(counts: bool = True) -> None:
    if has_request_context():  # a report made outside a request (a script, the demo) counts against no one
        request.environ[_COUNTS] = counts


# --- receiving ----------------------------------------------------------------------------------------
def request_language(sent: str | None = None) -> str:
    """The language the resident chose (`language`), else the first of Accept-Language, in the reader's
    order, that the Town writes in (as the public pages choose theirs), else English."""
    return sent if sent in LANGUAGES else i18n.accepted_language()


def receive_form() -> tuple[dict[str, str], list[Received]]:
    """The form's body, read before any transaction (see the module's docstring and report_photos). It
    counts against the limit once it carried photos, or could not be read whole (too large, too slow,
    too many photos): reading it cost the Town that much whatever it held."""
    _count_it()
    fields, photos = report_photos.read_form()
    _count_it(bool(photos))
    return fields, photos


def receive_request() -> PublicReport:
    """POST /public/reports: a JSON body, or the form's multipart/form-data with its photos."""
    if request.mimetype == "multipart/form-data":
        fields, photos = receive_form()
        try:
            data = form_to_data(fields)
            return submit_report(data, photos, language=request_language(fields.get("language")))
        finally:
            for photo in photos:
                photo.discard()
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("Send the report as application/json, or as multipart/form-data with the photos "
                                   "as `photos` files.", errors={"Content-Type": ["Not accepted."]})
    body = request.get_json()
    if not isinstance(body, dict):
        raise ValidationFailed("The body must be a JSON object.", errors={"json": ["Must be an object."]})
    data = load_report(body)
    return submit_report(data, [], language=request_language(data.get("language")))


def load_report(raw: dict[str, Any]) -> dict[str, Any]:
    """Check a report's fields (the schema, then the Town's clock), every error at once."""
    try:
        data, errors = _schema.load(raw), {}
    except ValidationError as exc:
        data, errors = exc.valid_data or {}, exc.normalized_messages()
    problem = rules.observed_problem(data.get("observed_at"), clock.now())
    if problem:
        errors["observed_at"] = [problem]
    if errors:
        raise ValidationFailed(errors=errors)
    return data


# The form's names for the places a JSON body nests.
FORM_NAMES = {"location.lat": "lat", "location.lon": "lon", "location.accuracy_m": "accuracy_m", "location": "lat",
              "contact.name": "name", "contact.email": "email", "contact.phone": "phone"}


def _flat(errors: dict[str, Any], prefix: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in errors.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, path + "."))
        else:
            out.setdefault(FORM_NAMES.get(path, path), []).extend(value)
    return out


def _local_time(text: str) -> str:
    """A datetime-local value (YYYY-MM-DDTHH:MM, Town time) as RFC 3339; an offset, if sent, is kept."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValidationFailed(errors={"observed_at": ["A date and time, like 2026-05-04T14:30."]}) from None
    return (value if value.tzinfo else value.replace(tzinfo=clock.town_zone())).isoformat()


def form_to_data(fields: dict[str, str]) -> dict[str, Any]:
    """The HTML form's fields as the dict a JSON body loads to (see the module's docstring)."""
    def text(name: str) -> str | None:
        value = (fields.get(name) or "").strip()
        return value or None

    body: dict[str, Any] = {"description": fields.get("description") or "", "address": text("address"),
                            "website": text("website")}
    if text("lat") or text("lon"):
        body["location"] = {"lat": text("lat"), "lon": text("lon"), "accuracy_m": text("accuracy_m")}
    if text("observed_at"):
        body["observed_at"] = _local_time(text("observed_at"))
    contact = {name: text(name) for name in ("name", "email", "phone")}
    if any(contact.values()):
        body["contact"] = contact
    try:
        return load_report(body)
    except ValidationFailed as exc:
        raise ValidationFailed(errors=_flat(exc.errors)) from None


# --- submitting ---------------------------------------------------------------------------------------
def submit_report(data: dict[str, Any], photos: list[Received], *, language: str) -> PublicReport:
    """Receive a checked report (load_report / form_to_data) with its spooled photos (see the docstring)."""
    if len(photos) > rules.MAX_PHOTOS:
        raise ValidationFailed(errors={"photos": [f"At most {rules.MAX_PHOTOS} photos."]})
    problem = rules.observed_problem(data.get("observed_at"), clock.now())
    if problem:
        raise ValidationFailed(errors={"observed_at": [problem]})
    _count_it()
    language = language if language in LANGUAGES else DEFAULT_LANGUAGE
    if rules.is_robot(data.get("website")):
        return _kept_nowhere(language)
    if photos:
        # Decoding takes seconds: no transaction (on SQLite, the write lock) may be held meanwhile. Nothing of
        # the request is written before the report, so a read the caller made simply ends here.
        db.session.rollback()
    derived = report_photos.read_photos(photos)  # before any write: a bad photo leaves nothing behind
    try:
        report = _new_report(data, language)
        written = report_photos.store_photos(report, photos, derived)
        try:
            audit.record("public_report.create", "public_report", report.id, {
                "reference": report.reference, "language": language, "photos": len(photos),
                "location": report.lat is not None, "address": report.address is not None,
                "contact_left": any((report.contact_name, report.contact_email, report.contact_phone))})
            db.session.flush()
            signals.public_report_received.send(report)
        except BaseException:
            discard_blobs(written)
            raise
    finally:
        report_photos.cleanup(derived)
    return report


def _new_report(data: dict[str, Any], language: str) -> PublicReport:
    location, contact = data.get("location") or {}, data.get("contact") or {}
    report = PublicReport(
        reference=rules.reference(next_number("R", clock.today().year)), status="received", language=language,
        description=data["description"], lat=location.get("lat"), lon=location.get("lon"),
        accuracy_m=location.get("accuracy_m"), address=(data.get("address") or "").strip() or None,
        observed_at=data.get("observed_at"), contact_name=contact.get("name") or None,
        contact_email=contact.get("email") or None, contact_phone=contact.get("phone") or None)
    db.session.add(report)
    db.session.flush()
    return report


def _kept_nowhere(language: str) -> PublicReport:
    """What a robot that filled the hidden field is answered: a receipt like any other, for a report that
    is not stored, numbered, audited or mailed (a refusal would teach it to leave the field empty)."""
    log.info("a report with the hidden form field filled was answered and dropped (client %s)",
             throttle.client_address())
    number = format_number("R", clock.today().year, 1 + secrets.randbelow(9999))
    return PublicReport(reference=rules.reference(number), status="received", language=language)


def receipt(report: PublicReport) -> dict[str, str]:
    return {"reference": report.reference, "status": report.status}


# --- reading back -------------------------------------------------------------------------------------
def report_status(reference: str) -> dict[str, Any]:
    """What the report's author may read: its status, when it was received, and the Town's answer."""
    wanted = rules.normal_reference(reference)
    report = (db.session.scalar(select(PublicReport).where(PublicReport.reference == wanted))
              if 0 < len(wanted) <= 24 else None)
    if report is None:
        raise NotFound("No report has this reference.")
    answer = {"answer": report.answer} if report.answer else {}
    return {"reference": report.reference, "status": report.status, "received_at": report.created_at, **answer}


# --- erasing the resident's contact details -------------------------------------------------------------
ERASE_BATCH = 500


def erase_due_contacts(today=None) -> list[str]:
    """Erase the name, e-mail and phone of every report closed more than PUBLIC_REPORT_CONTACT_DAYS Town days
    before `today` (default: today): closed on day D, they are kept through D + days and erased from the day
    after. The report itself stays. Each erasure is audited; the signal has the outbox forget the
    addresses too. Returns the ids erased (flushed, not committed)."""
    today = today or clock.today()
    first_kept = rules.erase_closed_before(today, int(current_app.config["PUBLIC_REPORT_CONTACT_DAYS"]))
    cutoff = datetime.combine(first_kept, datetime.min.time(), tzinfo=clock.town_zone())
    erased: list[str] = []
    while True:
        batch = list(db.session.scalars(
            select(PublicReport).where(PublicReport.contact_erased_at.is_(None), PublicReport.closed_at.is_not(None),
                                       PublicReport.closed_at < cutoff)
            .order_by(PublicReport.closed_at, PublicReport.id).limit(ERASE_BATCH).with_for_update(skip_locked=True)))
        for report in batch:
            had = [name for name in ("name", "email", "phone") if getattr(report, f"contact_{name}")]
            report.contact_name = report.contact_email = report.contact_phone = None
            report.contact_erased_at = clock.now()
            report.bump_version()
            audit.record("public_report.contact_erase", "public_report", report.id,
                         {"erased": had, "closed_at": report.closed_at}, permit_id=report.permit_id)
            erased.append(report.id)
        db.session.flush()
        if len(batch) < ERASE_BATCH:
            break
    if erased:
        signals.public_report_contacts_erased.send(None, report_ids=erased)
    return erased


__all__ = ["erase_due_contacts", "form_to_data", "load_report", "public_report_limit", "receipt", "receive_form",
           "receive_request", "report_status", "request_language", "submit_report"]
