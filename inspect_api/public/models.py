"""Reports from the public and their photos."""
from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, RecordMixin, UTCDateTime, clock_now, new_id
from ..extensions import db

STATUSES = ("received", "linked", "case_opened", "closed")
LANGUAGES = ("en", "pt")


class PublicReport(RecordMixin, db.Model):
    """What a resident saw at a site: text, where, when, up to three photos, and how to reach them.

    The contact details (name, e-mail, phone) are erased PUBLIC_REPORT_CONTACT_DAYS after the report is
    closed (`contact_erased_at`); the report stays as a record. `permit_id` is the permit or enforcement
    case a supervisor linked it to (or opened from it); `inspection_request_id` the complaint inspection
    that linking made due (R-I1)."""

    __tablename__ = "public_reports"

    reference: Mapped[str] = mapped_column(sa.String(24), nullable=False, unique=True)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="received", index=True)
    language: Mapped[str] = mapped_column(sa.String(5), nullable=False, default="en")
    description: Mapped[str] = mapped_column(sa.Text, nullable=False)
    lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    accuracy_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    address: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    observed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    contact_name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    contact_email: Mapped[str | None] = mapped_column(sa.String(254), nullable=True)
    contact_phone: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    contact_erased_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    permit_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=True, index=True)
    inspection_request_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True)
    answer: Mapped[str | None] = mapped_column(sa.Text, nullable=True)  # the Town's public answer
    note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)  # staff only
    triaged_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    first_response_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True, index=True)

    __table_args__ = (
        sa.CheckConstraint(sa.column("status").in_(STATUSES), name="status"),
        sa.CheckConstraint(sa.column("language").in_(LANGUAGES), name="language"),
    )


class PublicReportPhoto(db.Model):
    """A photo sent with a report: the original (kept for staff with its GPS) and the two derivatives
    made from it, which carry no EXIF. Only staff ever read any of them."""

    __tablename__ = "public_report_photos"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    report_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("public_reports.id"), nullable=False, index=True)
    position: Mapped[int] = mapped_column(sa.SmallInteger, nullable=False)
    sha256: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    content_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    bytes: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    width: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    height: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    taken_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    exif_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    exif_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    original_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    display_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    small_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)

    __table_args__ = (sa.UniqueConstraint("report_id", "position", name="uq_public_report_photos_position"),)
