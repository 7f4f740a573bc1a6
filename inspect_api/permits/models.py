from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, utcnow
from ..extensions import db

STATUSES = ("draft", "submitted", "under_review", "approved", "issued", "denied", "withdrawn",
            "active", "work_complete", "closed")
REVIEW_LEVELS = ("not_covered", "exempt", "administrative_review", "land_disturbance_permit")


class Permit(RecordMixin, db.Model):
    """An application and, once decided, the approval or permit it became (R-C1, R-C2)."""

    __tablename__ = "permits"
    __sync_entity__ = "permit"

    number: Mapped[str | None] = mapped_column(sa.String(20), unique=True, nullable=True)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="draft", index=True)
    applicant_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)

    site_address: Mapped[str] = mapped_column(sa.String(300), nullable=False)
    parcel_id: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    site_lat: Mapped[float] = mapped_column(sa.Float, nullable=False)
    site_lon: Mapped[float] = mapped_column(sa.Float, nullable=False)
    limit_of_work: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)  # GeoJSON Polygon

    owner_name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    owner_email: Mapped[str | None] = mapped_column(sa.String(254), nullable=True)
    owner_phone: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)

    disturbed_area_sqft: Mapped[float] = mapped_column(sa.Float, nullable=False)
    drains_to_ms4: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    drains_to_waters: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    proposed_use: Mapped[str] = mapped_column(sa.String(300), nullable=False)
    luhppl_kind: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    luhppl_description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    review_level: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    determination: Mapped[dict[str, Any]] = mapped_column(sa.JSON, nullable=False, default=dict)

    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    work_commenced_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    work_completed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Set while a cease-and-desist order is open (R-O1(a)) so every device warns before recording work.
    cease_and_desist: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)

    assignments: Mapped[list["Assignment"]] = relationship(back_populates="permit", cascade="all, delete-orphan")


class Assignment(db.Model):
    """An inspector assigned to a permit's site. Removing one takes the site's records off their devices."""

    __tablename__ = "permit_assignments"
    __sync_entity__ = "assignment"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=1)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    inspector_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)
    assigned_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=utcnow)
    assigned_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    permit: Mapped[Permit] = relationship(back_populates="assignments")


class PermitEvent(db.Model):
    """One status move of R-C2: who, when, from what to what, and why."""

    __tablename__ = "permit_events"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    from_status: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    to_status: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    actor_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=utcnow)
    reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
