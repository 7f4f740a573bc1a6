from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db
from ..seed import seeder

SAMPLE_TYPES = ("grab", "composite")
ANALYSES = ("field", "lab")
BASES = ("per_sample", "weekly_average")


class Sample(RecordMixin, db.Model):
    """A water sample taken at a site (R-S1), resting on a site-entry authorization (R-E2).

    `parameters` holds each analysis as sent (name, value, unit, method, container, preservative) beside
    its normalised value and unit (R-S3); a lab analysis awaiting its result has value null.
    `chain_of_custody` holds the hand-overs (from, to, at, signature photo); `exceedances` holds the
    per-sample action-level checks made when it was saved."""

    __tablename__ = "samples"
    __sync_entity__ = "sample"
    __entry_covered__ = ("sampling", "sampled_at")

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    entry_authorization_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("entry_authorizations.id"),
                                                        nullable=False, index=True)
    sampled_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)
    sampler: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    location_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_accuracy_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_altitude_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_source: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    outfall_id: Mapped[str | None] = mapped_column(sa.String(60), nullable=True, index=True)
    sample_type: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    analysis: Mapped[str] = mapped_column(sa.String(10), nullable=False)
    lab_name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    parameters: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    chain_of_custody: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    received_by_lab_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The lab's receipt, beside received_by_lab_at: who signed for it there and how cold it arrived.
    lab_received_by: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    lab_receipt_temperature_c: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    analyzed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    exceedances: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)

    __table_args__ = (
        sa.CheckConstraint(sa.column("sample_type").in_(SAMPLE_TYPES), name="sample_type"),
        sa.CheckConstraint(sa.column("analysis").in_(ANALYSES), name="analysis"),
    )


class ActionLevel(db.Model):
    """A configurable action level (R-S2). Values are decimal text so comparisons stay exact on
    every database. A level a supervisor drops is disabled, not deleted, so reseeding never
    brings it back and the audit log can still name what a past exceedance was judged against."""

    __tablename__ = "action_levels"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    parameter: Mapped[str] = mapped_column(sa.String(60), nullable=False)
    basis: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    unit: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    min_value: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    max_value: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    citation: Mapped[str] = mapped_column(sa.Text, nullable=False, default="")
    enabled: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, onupdate=clock_now)
    updated_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    __table_args__ = (
        sa.UniqueConstraint("parameter", "basis", name="uq_action_levels_parameter_basis"),
        sa.CheckConstraint(sa.column("basis").in_(BASES), name="basis"),
    )


class ExceedanceFinding(db.Model):
    """Which finding an exceedance raised, so re-saving a sample never raises it twice.

    `key` names the exceedance: "sample:<sample id>:<parameter>" for a per-sample level,
    "weekly:<parameter>:<outfall id>:<week start>" for a weekly average. `withdrawn` is set when a
    corrected value no longer exceeds and the finding was removed; exceeding again restores it."""

    __tablename__ = "exceedance_findings"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    finding_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("findings.id"), nullable=False)
    sample_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("samples.id"), nullable=False, index=True)
    withdrawn: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)

    __table_args__ = (sa.UniqueConstraint("permit_id", "key", name="uq_exceedance_findings_permit_key"),)


DEFAULT_ACTION_LEVELS = (
    # R-S2 defaults (practice).
    {"parameter": "turbidity", "basis": "weekly_average", "unit": "NTU", "min_value": None, "max_value": "50",
     "citation": "EPA Construction General Permit, dewatering turbidity benchmark"},
    {"parameter": "ph", "basis": "per_sample", "unit": "SU", "min_value": "6.5", "max_value": "8.3",
     "citation": "314 CMR 4.05"},
)


@seeder
def seed_action_levels() -> None:
    """Defaults only into an empty table: levels a supervisor changed or dropped stay as they are."""
    if db.session.scalar(sa.select(sa.func.count()).select_from(ActionLevel)):
        return
    for level in DEFAULT_ACTION_LEVELS:
        db.session.add(ActionLevel(**level))
