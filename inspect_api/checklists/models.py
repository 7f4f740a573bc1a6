from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, UTCDateTime, new_id, clock_now
from ..extensions import db


class ChecklistTemplate(db.Model):
    """One published version of a checklist (R-I3). Versions are never edited: a change is a new
    version, so every answered checklist can still be read against the items it answered.

    `items` is a list of {"key", "label", "help_text", "control", "photo_expected_when_deficient",
    "needs_new_control_default"}.
    """

    __tablename__ = "checklist_templates"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(sa.String(60), nullable=False, index=True)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    title: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    items: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    published_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    published_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    __table_args__ = (sa.UniqueConstraint("key", "version", name="uq_checklist_templates_key_version"),)

    def item(self, key: str) -> dict[str, Any] | None:
        return next((item for item in self.items if item["key"] == key), None)

