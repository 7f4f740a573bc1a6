"""Bonds and other security (R-D1), their split by permit phase and their releases (R-D2, R-D3).

`released_amount` is the running total of the releases, kept on the bond row and changed only while that
row is locked; the CHECK constraint is the last line of defence for "the sum released never exceeds the
amount". One release per phase is also a unique constraint.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db

Money = sa.Numeric(14, 2)


class Bond(RecordMixin, db.Model):
    __tablename__ = "bonds"
    __sync_entity__ = "bond"
    __table_args__ = (
        sa.CheckConstraint("amount > 0", name="amount_positive"),
        sa.CheckConstraint("released_amount >= 0 AND released_amount <= amount", name="released_within_amount"),
    )

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    form: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    form_description: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    released_amount: Mapped[Decimal] = mapped_column(Money, nullable=False, default=Decimal("0.00"))
    issuer: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    reference: Mapped[str | None] = mapped_column(sa.String(100), nullable=True)
    received_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    phases: Mapped[list["BondPhase"]] = relationship(back_populates="bond", cascade="all, delete-orphan",
                                                     order_by="BondPhase.position")
    releases: Mapped[list["BondRelease"]] = relationship(back_populates="bond", cascade="all, delete-orphan",
                                                         order_by="BondRelease.created_at")


class BondPhase(db.Model):
    """The share of a bond held for one permit phase (R-D1)."""

    __tablename__ = "bond_phases"
    __table_args__ = (sa.UniqueConstraint("bond_id", "phase_id"),
                      sa.CheckConstraint("amount > 0", name="amount_positive"))

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    bond_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("bonds.id"), nullable=False, index=True)
    phase_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permit_phases.id"), nullable=False, index=True)
    amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    position: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)

    bond: Mapped[Bond] = relationship(back_populates="phases")


class BondRelease(db.Model):
    """A release of part (one phase's share, R-D2) or all of the rest (R-D3) of a bond."""

    __tablename__ = "bond_releases"
    __table_args__ = (sa.UniqueConstraint("bond_id", "phase_id"),
                      sa.CheckConstraint("amount > 0", name="amount_positive"))

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    bond_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("bonds.id"), nullable=False, index=True)
    phase_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permit_phases.id"), nullable=True)
    kind: Mapped[str] = mapped_column(sa.String(10), nullable=False)
    amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    released_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    released_by: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False)
    note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)

    bond: Mapped[Bond] = relationship(back_populates="releases")
