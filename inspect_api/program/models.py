"""Storm events (rain data that obliges storm-event inspections, R-I1) and applicants' inspection requests."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, RecordMixin, UTCDateTime
from ..extensions import db

REQUEST_KINDS = ("post_installation", "final", "re_inspection", "complaint")
STORM_SOURCES = ("manual", "noaa_cdo")


class StormEvent(RecordMixin, db.Model):
    """A storm that ended at `ended_at` with `inches` of rain. Every inspector's device pulls these: a storm
    pulled in the morning puts every active assigned site on the day's list, computed on the device."""

    __tablename__ = "storm_events"
    __sync_entity__ = "storm_event"

    ended_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)
    inches: Mapped[Decimal] = mapped_column(sa.Numeric(6, 2), nullable=False)
    source: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    source_kind: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="manual")
    station: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    # Imported daily totals: "noaa_cdo:<YYYY-MM-DD>", unique, so importing a file again changes nothing.
    import_key: Mapped[str | None] = mapped_column(sa.String(60), nullable=True, unique=True)
    rain_day: Mapped[date | None] = mapped_column(sa.Date, nullable=True)

    __table_args__ = (
        sa.CheckConstraint(sa.column("source_kind").in_(STORM_SOURCES), name="source_kind"),
        sa.CheckConstraint("inches >= 0", name="inches"),
    )


class InspectionRequest(RecordMixin, db.Model):
    """An applicant asking for a post-installation, final or re-inspection, with preferred days and a note."""

    __tablename__ = "inspection_requests"
    __sync_entity__ = "inspection_request"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    preferred_dates: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    __table_args__ = (sa.CheckConstraint(sa.column("kind").in_(REQUEST_KINDS), name="kind"),)

    @property
    def preferred_days(self) -> tuple[date, ...]:
        return tuple(date.fromisoformat(d) for d in (self.preferred_dates or []))
