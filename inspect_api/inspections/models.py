from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, query_expression, relationship

from .. import clock
from ..db import IdColumn, RecordMixin, UTCDateTime
from ..extensions import db
from ..permits.models import Permit
from ..schemas import gps_fix_of
from .rules import carried_from, is_overdue, shown_answer

INSPECTION_KINDS = ("pre_construction", "post_installation", "routine", "storm_event", "follow_up", "final",
                    "complaint")
INSPECTION_STATUSES = ("draft", "submitted", "approved", "returned")
# cease_and_desist_violation: disturbance observed while a cease-and-desist order is open (R-O1a).
FINDING_KINDS = ("deficiency", "exceedance", "work_without_approval", "cease_and_desist_violation", "other")
FINDING_STATUSES = ("open", "closed")
SEVERITIES = ("low", "moderate", "high", "critical")


class Inspection(RecordMixin, db.Model):
    """One visit to a site (R-I2) with its checklist response (R-I3) and review (R-I5)."""

    __tablename__ = "inspections"
    __sync_entity__ = "inspection"
    __entry_covered__ = ("examination", "started_at")

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    entry_authorization_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("entry_authorizations.id"),
                                                        nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    location_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_accuracy_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_altitude_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_source: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    weather: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    phase: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    unsafe_areas: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    # R-A6: land disturbance seen at the site, to be compared with the permit's status on submission.
    disturbance_observed: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    checklist_template: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    checklist_template_version: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    checklist_items: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    verifies_finding_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    supersedes_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("inspections.id"), nullable=True,
                                                      index=True)

    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="draft", index=True)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    submitted_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    reviewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    reviewed_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    review_comment: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    # Every decision, oldest first: [{"decision", "comment", "by", "at"}].
    reviews: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    @classmethod
    def shown_to_applicant(cls) -> sa.ColumnElement[bool]:
        """SQL for rules.shown_to_applicant: approved, or submitted for the first time."""
        return sa.or_(cls.status == "approved", sa.and_(cls.status == "submitted", cls.reviewed_at.is_(None)))

    findings: Mapped[list["Finding"]] = relationship(
        primaryjoin="and_(Finding.inspection_id == Inspection.id, Finding.deleted_at.is_(None))",
        foreign_keys="Finding.inspection_id", viewonly=True, order_by="[Finding.created_at, Finding.id]")
    permit: Mapped["Permit"] = relationship(viewonly=True)
    # The permit's cease-and-desist flag, read in a list's own statement (with_expression of
    # PERMIT_UNDER_ORDER) so a page needs no permits loaded; None where a query did not ask for it.
    permit_under_order: Mapped[bool | None] = query_expression()

    __table_args__ = (
        sa.CheckConstraint(sa.column("kind").in_(INSPECTION_KINDS), name="kind"),
        sa.CheckConstraint(sa.column("status").in_(INSPECTION_STATUSES), name="status"),
    )

    @property
    def location(self) -> dict[str, Any] | None:
        return gps_fix_of(self)

    @property
    def checklist(self) -> dict[str, Any] | None:
        if self.checklist_template is None:
            return None
        items = list(self.checklist_items or [])
        return {"template": self.checklist_template, "template_version": self.checklist_template_version,
                "carried_from_id": carried_from(items), "items": [shown_answer(item) for item in items]}

    @property
    def warnings(self) -> list[str]:
        """What a device should show before work goes on (not stored: always the permit's current state)."""
        under_order = self.permit_under_order
        if under_order is None:
            permit = self.permit
            under_order = permit is not None and permit.cease_and_desist
        if under_order:
            return ["A cease-and-desist order is open on this permit: no land-disturbing activity may continue "
                    "(R-O1(a))."]
        return []


# What Inspection.permit_under_order reads, asked in the inspection's own row.
PERMIT_UNDER_ORDER = (sa.select(Permit.cease_and_desist).where(Permit.id == Inspection.permit_id)
                      .correlate(Inspection).scalar_subquery())


class Finding(RecordMixin, db.Model):
    """A breach seen at a site and the corrective action it needs (R-I4): from a deficient checklist
    item, a sample exceedance (R-S2), work without approval (R-A6), or entered by staff."""

    __tablename__ = "findings"
    __sync_entity__ = "finding"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    inspection_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("inspections.id"), nullable=True,
                                                      index=True)
    # Samples live in another domain; the id is kept without a foreign key so either side can load first.
    sample_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    item_key: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    parameter: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    kind: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    severity: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="moderate")
    description: Mapped[str] = mapped_column(sa.Text, nullable=False)
    required_action: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    needs_new_control: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    observed_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    due_on: Mapped[date] = mapped_column(sa.Date, nullable=False, index=True)
    due_on_override_reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="open", index=True)
    verified_fixed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    verified_by_inspection_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("inspections.id"),
                                                                  nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    photo_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    # Set when the answer that raised it changed before approval; kept (not erased) as evidence.
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    __table_args__ = (
        sa.CheckConstraint(sa.column("kind").in_(FINDING_KINDS), name="kind"),
        sa.CheckConstraint(sa.column("status").in_(FINDING_STATUSES), name="status"),
        sa.CheckConstraint(sa.column("severity").in_(SEVERITIES), name="severity"),
    )

    @property
    def overdue(self) -> bool:
        return is_overdue(self.status, self.due_on, clock.today())
