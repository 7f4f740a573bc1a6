"""What sync keeps beside the records: the outcome of every mutation, and conflicts."""
from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, UTCDateTime, new_id, clock_now
from ..extensions import db

RESULT_STATUSES = ("applied", "duplicate", "conflict", "rejected")
CONFLICT_STATUSES = ("open", "resolved")
RESOLUTIONS = ("keep_server", "take_device", "merge")



class SyncMutation(db.Model):
    """The outcome of one pushed mutation, written in the same savepoint as its change, so a resent
    mutation id is answered from here and never applied twice."""

    __tablename__ = "sync_mutations"

    mutation_id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    user_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False)
    entity: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    record_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    op: Mapped[str] = mapped_column(sa.String(10), nullable=False)
    status: Mapped[str] = mapped_column(sa.String(12), nullable=False)
    version: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(sa.String(60), nullable=True)
    message: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    errors: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    server_record: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    conflict_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, index=True)

    __table_args__ = (sa.CheckConstraint(sa.column("status").in_(RESULT_STATUSES), name="status"),)


class SyncConflict(db.Model):
    """A pushed change that met a newer server version: both versions and the fields that differ,
    kept until someone resolves it (keep the server's, take the device's, or merge)."""

    __tablename__ = "sync_conflicts"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    entity: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    record_id: Mapped[str] = mapped_column(sa.String(64), nullable=False, index=True)
    permit_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    op: Mapped[str] = mapped_column(sa.String(10), nullable=False, default="upsert")
    mutation_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    user_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)
    base_version: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    device_data: Mapped[dict[str, Any]] = mapped_column(sa.JSON, nullable=False, default=dict)
    server_version: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    server_record: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    fields: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    status: Mapped[str] = mapped_column(sa.String(10), nullable=False, default="open", index=True)
    resolution: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    resolved_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    resolved_version: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, index=True)

    __table_args__ = (
        sa.CheckConstraint(sa.column("status").in_(CONFLICT_STATUSES), name="status"),
        sa.CheckConstraint(sa.column("resolution").in_(RESOLUTIONS), name="resolution"),
    )


class SyncSnapshot(db.Model):
    """A tracked record's dump (its entity's dump_<entity>, as JSON text) written in the transaction
    that gave it its current number in the change feed. Pull serves it as is when its `seq` matches
    the feed row, so the data always belongs to the version it is sent with and no page has to load
    and dump thousands of records; without a matching snapshot pull dumps the record live."""

    __tablename__ = "sync_snapshots"

    entity: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    record_id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    data: Mapped[str] = mapped_column(sa.Text, nullable=False)

