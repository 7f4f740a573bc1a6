"""Storm events: entered by a supervisor, or imported from a NOAA Climate Data Online daily CSV.

A daily total gives one storm per day at or over the threshold, ending at the end of that day in Town
time (the file says how much fell on a day, not when it stopped). Importing is idempotent: a day already
imported is matched by its key (`noaa_cdo:YYYY-MM-DD`) and changes only if the file now says otherwise.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import Select, func, select

from .. import audit, clock
from ..errors import ValidationFailed
from ..extensions import db
from ..records import existing_for_create
from . import rules
from .models import StormEvent
from .noaa import CsvProblem, parse_daily_csv
from .schemas import StormEventSchema
from .services import settings

_schema = StormEventSchema()
READERS = ("inspector", "supervisor", "applicant")
FUTURE_SKEW = timedelta(minutes=10)


def visible_storm_events(user) -> Select:
    """Rain data is public record: every user but the admin (who sees no record content) may read it."""
    query = select(StormEvent)
    return query if user.role in READERS else query.where(StormEvent.id.is_(None))


def dump_storm_event(record: StormEvent) -> dict[str, Any]:
    return _schema.dump(record)


def record_storm_event(user, data: dict[str, Any]) -> tuple[StormEvent, bool]:
    """A storm a supervisor enters by hand (route: supervisors only). Idempotent on a client id."""
    # A storm is recorded after it ends; a clock a few minutes fast is a clock, not a forecast.
    if data["ended_at"] > clock.now() + FUTURE_SKEW:
        raise ValidationFailed(errors={"ended_at": ["A storm is recorded once it has ended, not ahead of time."]})
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(StormEvent, record_id, lambda r: (
        r.ended_at == data["ended_at"] and r.inches == data["inches"] and r.source == data["source"]))
    if existing is not None:
        return existing, False
    event = StormEvent(ended_at=data["ended_at"], inches=data["inches"], source=data["source"],
                       source_kind="manual", created_by=user.id,
                       rain_day=rules.local_day(data["ended_at"], settings().tz))
    if record_id:
        event.id = record_id
    db.session.add(event)
    db.session.flush()
    audit.record("storm_event.create", "storm_event", event.id,
                 {"ended_at": event.ended_at.isoformat(), "inches": str(event.inches), "source": event.source},
                 actor=user)
    return event, True


def list_storm_events(user, args: dict[str, Any]) -> tuple[list[StormEvent], int]:
    query = visible_storm_events(user)
    if args.get("since"):
        query = query.where(StormEvent.ended_at >= args["since"])
    total = db.session.scalar(select(func.count()).select_from(query.subquery()))
    page = query.order_by(StormEvent.ended_at.desc(), StormEvent.id).limit(args["limit"]).offset(args["offset"])
    return list(db.session.scalars(page)), total


def import_daily_csv(user, text: str, filename: str | None = None, units: str = "standard") -> dict[str, Any]:
    """One storm event per day at or over the threshold; re-importing the same file changes nothing.
    `units` is how the CDO order was placed: standard (inches) or metric (millimetres). A file with a
    day after today in Town time, a day over the Massachusetts record, or more than
    `STORM_IMPORT_MAX_ROWS` rows imports nothing."""
    try:
        rows = parse_daily_csv(text, units=units, today=clock.today(),
                               max_rows=current_app.config["STORM_IMPORT_MAX_ROWS"])
    except CsvProblem as exc:
        raise ValidationFailed(str(exc), errors={"file": exc.problems}) from None
    values = settings()
    storms = rules.storm_days(rows, values)
    keys = {f"noaa_cdo:{row.day.isoformat()}": row for row in storms}
    existing = {e.import_key: e for e in db.session.scalars(
        select(StormEvent).where(StormEvent.import_key.in_(list(keys))))} if keys else {}
    created = updated = unchanged = 0
    events = []
    for key, row in keys.items():
        source = f"NOAA CDO daily PRCP, station {row.station}" + (f" ({filename})" if filename else "")
        event = existing.get(key)
        if event is None:
            event = StormEvent(ended_at=rules.day_storm_ends(row.day, values), inches=row.inches, source=source[:200],
                               source_kind="noaa_cdo", station=row.station[:60] or None, import_key=key,
                               rain_day=row.day, created_by=user.id if user else None)
            db.session.add(event)
            created += 1
        elif event.inches != row.inches:
            event.inches, event.station = row.inches, row.station[:60] or None
            event.bump_version()
            updated += 1
        else:
            unchanged += 1
        events.append(event)
    db.session.flush()
    days = {row.day for row in rows}
    summary = {"created": created, "updated": updated, "unchanged": unchanged,
               "below_threshold": len(days) - len(storms), "days_read": len(days)}
    audit.record("storm_event.import", "storm_event", events[0].id if events else "-",
                 {**summary, "filename": filename, "units": units}, actor=user)
    return {**summary, "events": sorted(events, key=lambda e: e.ended_at)}
