"""Declarative base, column types and the mixin every record shares.

Ids are UUID strings (devices make them offline, API.md). Times are stored in UTC and always
come back timezone-aware, on SQLite as on PostgreSQL.
"""
from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, registry

from . import clock

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def clock_now() -> datetime:
    """Column default for "now": looked up on every insert, so a test that pins clock.now pins it."""
    return clock.now()


def new_id() -> str:
    return str(uuid.uuid4())


class UTCDateTime(sa.TypeDecorator):
    """A timezone-aware datetime stored as UTC; naive values are refused rather than guessed."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime; store timezone-aware values only")
        value = value.astimezone(timezone.utc)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        """On SQLite a stored instant is the text of its UTC wall time; it is read straight into an aware
        datetime (`fromisoformat` of the text with "+00:00", a fifth of the time of parsing it naive and then
        attaching the zone, which a list page does a few thousand times). Text of any other form is read
        the general way, so the result is always what `process_result_value` gives."""
        general = super().result_processor(dialect, coltype)
        if dialect.name != "sqlite":
            return general
        parse = datetime.fromisoformat

        def process(value: Any) -> datetime | None:
            if value is None:
                return None
            try:
                instant = parse(value + "+00:00")  # naive text only: text with an offset is refused
            except (TypeError, ValueError):
                return general(value)
            return instant if instant.tzinfo is not None else general(value)  # a bare date drops the zone
        return process


class Base(DeclarativeBase):
    # Mapped[datetime] is always timezone-aware UTC; plain dicts and lists are JSON.
    registry = registry(
        metadata=sa.MetaData(naming_convention=NAMING_CONVENTION),
        type_annotation_map={datetime: UTCDateTime(), dict[str, Any]: sa.JSON(), list[Any]: sa.JSON()},
    )



def _kept_in_utc(_record: Any, value: Any, _old: Any, _initiator: Any) -> Any:
    """An aware instant set on a record, as the record holds it: in UTC (an offset the client sent
    goes, the instant stays). Naive values are left for UTCDateTime to refuse at the flush."""
    if isinstance(value, datetime) and value.tzinfo is not None and value.tzinfo is not timezone.utc:
        return value.astimezone(timezone.utc)
    return value


def keep_instants_in_utc(model_base: type) -> None:
    """A record reads the same before and after it is stored. Every instant column comes back from the
    database in UTC, so one set on a record (of `model_base`'s models) is held in UTC from the moment
    it is set: the answer to the write, and the snapshot pull serves, then give it as every later read
    does, not in the offset it was sent in (a sample taken at 09:00-04:00 answers 13:00+00:00 at
    once). SQLAlchemy calls the listener on assignment only, never when it loads a row; each instant
    column gets it as its model is configured."""

    @event.listens_for(model_base, "attribute_instrument", propagate=True)
    def _instants_set_in_utc(_cls: type, _key: str, attribute: Any) -> None:
        columns = getattr(getattr(attribute, "property", None), "columns", ())
        if len(columns) == 1 and isinstance(getattr(columns[0], "type", None), UTCDateTime):
            event.listen(attribute, "set", _kept_in_utc, retval=True)


IdColumn = sa.String(36)


class RecordMixin:
    """What every record keeps as evidence (DOMAIN.md "Evidence"): who, on which device, when by
    the device clock and by the server clock, and a version that grows by one on every change."""

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, onupdate=clock_now)
    created_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    device_created_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    def bump_version(self) -> None:
        self.version = (self.version or 0) + 1
