"""Close-out records (R-F): the completion notice of an administrative review, the final report of a land
disturbance permit with its uploaded documents, and the certificate of completion.

One notice or report per permit: a returned one is corrected and submitted again, so the basis of a
certificate is never ambiguous. Review fields hold the latest decision; the audit log keeps every one.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db


class ReviewMixin:
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, index=True)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    decision: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)
    review_reasons: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    reviewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    reviewed_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)


class CompletionNotice(RecordMixin, ReviewMixin, db.Model):
    """R-F1: the applicant's written notice, with photos, that the work matches the approved plan."""

    __tablename__ = "completion_notices"
    __sync_entity__ = "completion_notice"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, unique=True)
    statement: Mapped[str] = mapped_column(sa.Text, nullable=False)
    photo_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    completed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)


class FinalReport(RecordMixin, ReviewMixin, db.Model):
    """R-F2: the final report of a land disturbance permit (as-built plan stamps, certification of
    substantial compliance, discrepancies, controls, O&M documentation), with its documents."""

    __tablename__ = "final_reports"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, unique=True)
    pls_name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    pls_license_number: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    pls_stamp_date: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    # "stamped by ... a PE as applicable": the applicant may state that no PE stamp applies.
    pe_applicable: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=True)
    pe_name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    pe_license_number: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    pe_stamp_date: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    cert_substantial_compliance: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    cert_permanent_erosion_controls: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    cert_stormwater_facilities: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    certification_statement: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    certified_by: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    # None = not stated yet; [] = "no discrepancies from the approved plan".
    discrepancies: Mapped[list[Any] | None] = mapped_column(sa.JSON, nullable=True)
    controls: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    om_statement: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    documents: Mapped[list["ReportDocument"]] = relationship(
        back_populates="report", cascade="all, delete-orphan", order_by="ReportDocument.uploaded_at")


class ReportDocument(db.Model):
    """A file of a final report, stored content-addressed in the blob store like photos; or a paper
    delivered to the Town and recorded by name (content_type, sha256, size and storage_key all null)."""

    __tablename__ = "final_report_documents"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    report_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("final_reports.id"), nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    filename: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    content_type: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    sha256: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    size: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    storage_key: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    uploaded_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    uploaded_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    report: Mapped[FinalReport] = relationship(back_populates="documents")


class Certificate(db.Model):
    """R-F3: a certificate of completion. Its printed facts are kept as issued (`snapshot`), so the PDF
    reads the same years later whatever happens to the permit record."""

    __tablename__ = "certificates"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, unique=True)
    number: Mapped[str] = mapped_column(sa.String(20), nullable=False, unique=True)
    year: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    sequence: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    issued_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    issued_by: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False)
    basis_type: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    basis_id: Mapped[str] = mapped_column(IdColumn, nullable=False)
    remarks: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    snapshot: Mapped[dict[str, Any]] = mapped_column(sa.JSON, nullable=False, default=dict)

    __table_args__ = (sa.UniqueConstraint("year", "sequence"),)
