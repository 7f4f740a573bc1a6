"""Permit records (R-C1) with their conditions, phases, documents, exemption claims (R-B),
inspector assignments, status events (R-C2) and the per-year number counters."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..clock import today as local_today
from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db
from . import rules

# `unpermitted`: an enforcement case on a site disturbed without any application (R-O0); it is
# reached only by opening a case and never moves along R-C2.
STATUSES = ("draft", "submitted", "under_review", "approved", "issued", "denied", "withdrawn",
            "active", "work_complete", "closed", "unpermitted")
PARTY_ROLES = ("owner", "violator", "applicant", "contractor")
REVIEW_LEVELS = ("not_covered", "exempt", "administrative_review", "land_disturbance_permit")


class Permit(RecordMixin, db.Model):
    """An application and, once decided, the approval or permit it became (R-C1, R-C2)."""

    __tablename__ = "permits"
    __sync_entity__ = "permit"

    number: Mapped[str | None] = mapped_column(sa.String(20), unique=True, nullable=True)
    # Numbers this permit held before its review level changed under review (R-A5); they stay
    # here so the ALDR/LDP sequences never show a hole.
    former_numbers: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="draft", index=True)
    # None only on an enforcement case (status `unpermitted`, R-O0): nobody applied.
    applicant_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True, index=True)
    # An application filed for a site with an open enforcement case is linked to that case (R-O0).
    case_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=True, index=True)
    # R-A7: applications that are parts of one project share a project id (the id of the first one);
    # the determination of each uses the project's total disturbed area.
    project_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    # R-A7: when a supervisor linked this application or confirmed it separate from the others open
    # on its parcel; until then a shared parcel flags it.
    parcel_reviewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # R-D1: the security the SA requires posted before disturbance starts (None: none required).
    security_required_amount: Mapped[Decimal | None] = mapped_column(sa.Numeric(14, 2), nullable=True)

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
    conditions: Mapped[list["PermitCondition"]] = relationship(
        back_populates="permit", cascade="all, delete-orphan", order_by="PermitCondition.number")
    phases: Mapped[list["PermitPhase"]] = relationship(
        back_populates="permit", cascade="all, delete-orphan", order_by="PermitPhase.number")
    documents: Mapped[list["PermitDocument"]] = relationship(
        back_populates="permit", cascade="all, delete-orphan", order_by="PermitDocument.created_at")
    exemptions: Mapped[list["PermitExemption"]] = relationship(
        back_populates="permit", cascade="all, delete-orphan", order_by="PermitExemption.created_at")
    parties: Mapped[list["Party"]] = relationship(
        back_populates="permit", cascade="all, delete-orphan", order_by="Party.created_at")

    @property
    def is_case(self) -> bool:
        return self.status == "unpermitted"

    @property
    def site(self) -> dict[str, Any]:
        return {"address": self.site_address, "parcel_id": self.parcel_id,
                "location": {"lat": self.site_lat, "lon": self.site_lon}, "limit_of_work": self.limit_of_work}

    @property
    def owner(self) -> dict[str, Any]:
        return {"name": self.owner_name, "email": self.owner_email, "phone": self.owner_phone}

    @property
    def assigned_inspector_ids(self) -> list[str]:
        return sorted(a.inspector_id for a in self.assignments if a.removed_at is None)


class Assignment(db.Model):
    """An inspector assigned to a permit's site. Removing one takes the site's records off their devices."""

    __tablename__ = "permit_assignments"
    __sync_entity__ = "assignment"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=1)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    inspector_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)
    assigned_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    assigned_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    removed_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    permit: Mapped[Permit] = relationship(back_populates="assignments")


class PermitEvent(db.Model):
    """One status move of R-C2: who, when, from what to what, and why."""

    __tablename__ = "permit_events"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    from_status: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    to_status: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    actor_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)


class PermitCondition(RecordMixin, db.Model):
    """One numbered, separately violable condition of a permit (R-C3, R-P1)."""

    __tablename__ = "permit_conditions"
    __table_args__ = (sa.UniqueConstraint("permit_id", "number", name="uq_permit_conditions_permit_number"),)

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    number: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    text: Mapped[str] = mapped_column(sa.Text, nullable=False)

    permit: Mapped[Permit] = relationship(back_populates="conditions")


class PermitPhase(RecordMixin, db.Model):
    """A construction phase; bonds release per phase completed in compliance (R-D2)."""

    __tablename__ = "permit_phases"
    __table_args__ = (sa.UniqueConstraint("permit_id", "number", name="uq_permit_phases_permit_number"),)

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    number: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    bond_amount: Mapped[Decimal | None] = mapped_column(sa.Numeric(14, 2), nullable=True)  # the one Money bound
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="pending")
    completed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    completed_in_compliance: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    completion_notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    completed_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    permit: Mapped[Permit] = relationship(back_populates="phases")


class PermitDocument(RecordMixin, db.Model):
    """An application document (R-C1): ESC plan, O&M plan or other, with its uploaded file when there is one."""

    __tablename__ = "permit_documents"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    filename: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    title: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)
    file_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    # The uploaded file itself (PDF or image), stored content-addressed like a final report's documents;
    # all four are null for a document recorded by name only.
    content_type: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    sha256: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    size: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    storage_key: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)

    permit: Mapped[Permit] = relationship(back_populates="documents")


class PermitExemption(RecordMixin, db.Model):
    """An exemption claimed under bylaw §B with its evidence and the supervisor's decision (R-B1)."""

    __tablename__ = "permit_exemptions"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(4), nullable=False)
    statement: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    single_family: Mapped[bool | None] = mapped_column(sa.Boolean, nullable=True)
    utility_kind: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    document_number: Mapped[str | None] = mapped_column(sa.String(80), nullable=True)
    issued_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    expires_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    document_photo_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    document_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permit_documents.id"), nullable=True)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="claimed")
    decided_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    decided_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    decision_reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    permit: Mapped[Permit] = relationship(back_populates="exemptions")

    @property
    def has_document(self) -> bool:
        return bool(self.document_id or self.document_photo_id)

    def stands_on(self, on: date) -> bool:
        """R-B2: a claim that is not rejected stands; B5/B6 only with a document valid on `on`."""
        if self.status == "rejected":
            return False
        valid = rules.document_valid_on(self.expires_on, self.issued_on, on, self.has_document)
        return rules.exemption_stands(rules.ExemptionClaim(self.kind, valid))

    @property
    def stands(self) -> bool:
        return self.stands_on(local_today())


class Party(RecordMixin, db.Model):
    """A person a permit or enforcement case names (R-O0): owner, violator, applicant or contractor,
    with what it takes to serve them. A party need not be a user: most violators are not."""

    __tablename__ = "parties"
    __table_args__ = (sa.CheckConstraint(sa.column("role").in_(PARTY_ROLES), name="role"),)

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    role: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    mailing_address: Mapped[str | None] = mapped_column(sa.String(500), nullable=True)
    email: Mapped[str | None] = mapped_column(sa.String(254), nullable=True)
    phone: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    # The account of an applicant party, when the party is a user. Indexed: every request of an applicant
    # asks which permits name them as a party (permits.access.visible_permit_ids).
    user_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True, index=True)

    permit: Mapped[Permit] = relationship(back_populates="parties")
