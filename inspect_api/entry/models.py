from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, RecordMixin, UTCDateTime
from ..extensions import db


class EntryAuthorization(RecordMixin, db.Model):
    """The legal basis for entering a site (R-E1): who granted it, for what, and for how long.

    Records that rest on an authorization declare it with a class attribute
    `__entry_covered__ = (activity, time_attribute)` and an `entry_authorization_id` column, so an
    edit of the window or scope can be checked against every record already relying on it (R-E3).
    """

    __tablename__ = "entry_authorizations"
    __sync_entity__ = "entry_authorization"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    basis: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    granted_by_name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    granted_by_relation: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    scope: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    valid_from: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    valid_to: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    # The owner's signature, captured as an image; the photo may reach the server after this record.
    signature_photo_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True)
    notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    revocation_reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    __table_args__ = (
        sa.CheckConstraint(sa.column("basis").in_(("owner_consent", "permit_condition", "court_warrant",
                                                   "emergency")), name="basis"),
        sa.CheckConstraint(sa.column("valid_to") > sa.column("valid_from"), name="window"),
    )
