"""Certificates of completion (R-F3): issue a numbered certificate on an accepted notice or report, which
closes the permit and unlocks full bond release (R-D3)."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select

from .. import clock
from .. import audit, renditions, signals
from ..auth.models import User
from ..enforcement.closeout import open_enforcement
from ..errors import Conflict, NotFound
from ..extensions import db
from ..permits.access import get_visible_permit, permit_visible
from ..permits.services import close_permit
from . import rules
from .common import require_supervisor
from ..numbering import next_sequence
from .models import Certificate, CompletionNotice, FinalReport
from .pdf import certificate_pdf
from .schemas import CompletionCertificateSchema

LEVEL_TITLES = {rules.ADMIN_REVIEW: "Administrative Land Disturbance Review",
                rules.PERMIT: "Land Disturbance Permit"}


def visible_certificates(user) -> Select:
    return select(Certificate).where(permit_visible(Certificate.permit_id, user))


def get_certificate(user, certificate_id: str) -> Certificate:
    cert = db.session.scalar(visible_certificates(user).where(Certificate.id == str(certificate_id)))
    if cert is None:
        raise NotFound("No such certificate.")
    return cert


def certificate_for_permit(permit_id: str) -> Certificate | None:
    return db.session.scalar(select(Certificate).where(Certificate.permit_id == permit_id))


def get_permit_certificate(user, permit_id: str) -> Certificate:
    cert = certificate_for_permit(get_visible_permit(user, permit_id).id)
    if cert is None:
        raise NotFound("No certificate of completion has been issued for this permit.")
    return cert


def closeout_basis(permit) -> CompletionNotice | FinalReport | None:
    """The record a certificate rests on: the completion notice (administrative review) or final report (permit)."""
    model = {"completion_notice": CompletionNotice, "final_report": FinalReport}.get(
        rules.closeout_kind(permit.review_level) or "")
    if model is None:
        return None
    return db.session.scalar(select(model).where(model.permit_id == permit.id))


def next_number(year: int) -> tuple[int, str]:
    """The next certificate number of `year` (see inspect_api.numbering: no gaps, no duplicates)."""
    sequence = next_sequence("COC", year)
    return sequence, rules.certificate_number(year, sequence)


def _snapshot(permit, basis, issuer: User) -> dict[str, Any]:
    applicant = db.session.get(User, permit.applicant_id)
    return {
        "permit_number": permit.number, "review_level": permit.review_level,
        "review_level_title": LEVEL_TITLES.get(permit.review_level, permit.review_level),
        "site_address": permit.site_address, "parcel_id": permit.parcel_id, "owner_name": permit.owner_name,
        "applicant_name": applicant.name if applicant else None,
        "work_completed_on": permit.work_completed_on.isoformat() if permit.work_completed_on else None,
        "basis_accepted_on": clock.local_date(basis.reviewed_at).isoformat(), "issued_by_name": issuer.name,
    }


def issue_certificate(user, permit_id: str, remarks: str | None = None) -> Certificate:
    """R-F3: only a supervisor, only for a permit whose work is complete, only on an accepted notice or report."""
    require_supervisor(user)
    permit = get_visible_permit(user, permit_id, for_update=True)
    basis = closeout_basis(permit)
    problem = rules.certificate_problem(permit.status, basis.status if basis else None,
                                        certificate_for_permit(permit.id) is not None)
    if problem:
        raise Conflict(problem[1], error=problem[0])
    # R-F3: the work is not "completed in accordance with the permit" while enforcement is open.
    still_open = open_enforcement(permit.id)
    if still_open:
        raise Conflict("No certificate while enforcement is open on the site: " + "; ".join(still_open) + ".",
                       error="open_enforcement", errors={"open": still_open})
    now = clock.now()
    issued_on = clock.local_date(now)
    sequence, number = next_number(issued_on.year)
    cert = Certificate(permit_id=permit.id, number=number, year=issued_on.year, sequence=sequence, issued_at=now,
                       issued_on=issued_on, issued_by=user.id, basis_type=rules.closeout_kind(permit.review_level),
                       basis_id=basis.id, remarks=(remarks or "").strip() or None,
                       snapshot=_snapshot(permit, basis, user))
    db.session.add(cert)
    db.session.flush()
    audit.record("certificate.issue", "certificate", cert.id, {"number": number, "basis_id": basis.id},
                 actor=user, permit_id=permit.id)
    close_permit(permit, user)
    issued_certificate(cert)  # signed and stored now: what every download and the e-mailed copy serve
    signals.certificate_issued.send(cert, permit=permit, actor=user)  # the certificate, attached, is sent
    return cert


def issued_certificate(cert: Certificate) -> renditions.IssuedDocument:
    """The certificate's document as issued (signed when the Town has a key); one issued before documents
    were stored here is issued on first request, from the facts kept when it was issued."""
    return renditions.issued("certificate", cert.id, lambda note: certificate_pdf(cert, note=note),
                             permit_id=cert.permit_id)


def certificate_document(cert: Certificate) -> bytes:
    """The bytes of the certificate as issued: the download and the e-mailed copy."""
    return renditions.issued_bytes(issued_certificate(cert))


def list_certificates(user, permit_id: str | None = None) -> list[dict[str, Any]]:
    query = visible_certificates(user)
    if permit_id:
        query = query.where(Certificate.permit_id == str(permit_id))
    return [certificate_view(c) for c in db.session.scalars(query.order_by(Certificate.number))]


def certificate_view(cert: Certificate) -> dict[str, Any]:
    return {"id": cert.id, "permit_id": cert.permit_id, "number": cert.number, "issued_at": cert.issued_at,
            "issued_on": cert.issued_on, "issued_by": cert.issued_by, "basis_type": cert.basis_type,
            "basis_id": cert.basis_id, "remarks": cert.remarks, "pdf_url": f"/api/v1/certificates/{cert.id}.pdf"}


def dump_certificate(cert: Certificate) -> dict[str, Any]:
    return CompletionCertificateSchema().dump(certificate_view(cert))
