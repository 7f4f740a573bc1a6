"""The inspection program (R-I1 kinds, R-I4 findings) as pure functions: which inspections a site owes,
by when, and whether a recorded inspection met each. No database, no Flask: plain data in, plain data out.

What a site owes, and what satisfies each (decisions where the bylaw is silent are in the README,
"Inspection program"):
- pre_construction: before work commences. Until work is recorded as commenced the obligation has no
  deadline (it is listed, never overdue); once commenced, it is due by the end of the commencement day.
  Met by a pre-construction, post-installation, routine or storm-event inspection started no later than
  that: each walks the site before the disturbance. After that it can no longer happen: an unmet one is
  MISSED (not listed, counted as missed for the MS4 report), never overdue.
- post_installation: once perimeter controls are reported in, which is the earlier of the applicant's
  post-installation request and the commencement of work (R-I1: controls go in before grading, so a site
  that has commenced has reported them in); due `response_days` calendar days after that day. Met by a
  post-installation inspection (whenever made: it is itself the sign the controls are in) or by a
  routine, storm-event or final inspection made once controls were reported in (each checks the
  perimeter controls as installed, R-I3 default checklist).
- routine: every `routine_days` days while the site is active: due by the end of the N-th day after
  commencement, then after the last inspection that met the one before. Met by a routine, storm-event,
  post-installation or final inspection (each walks every control on the site), so the count restarts
  from whichever of those was made last within the interval (or from the late one that met it).
- storm_event: within `storm_window_hours` of the end of each storm of at least `storm_threshold_inches`
  that ended while the site was active (from the start of the commencement day to the end of the
  completion day, Town time). Met by a storm-event, routine, post-installation or final inspection
  started at or after the storm ended.
- follow_up: by the end of each open finding's due day (R-I4); met only by a follow-up inspection that
  names the finding among those it verifies.
- final: once work is reported complete, due `response_days` calendar days after the completion day;
  met only by a final inspection (the one that finds the site stabilized, before controls come out).
- requests: an applicant's request is owed by the end of its earliest preferred day, or `response_days`
  after the day it was made when it names none; met by an inspection made after it that meets an
  obligation of the requested kind (a re-inspection by a follow-up).
- complaint: a supervisor linking a report from the public to a site (or opening an enforcement case from
  it) makes one due, owed like a request: `response_days` after the day it was linked; met only by a
  complaint inspection started after that. It is owed at every site the Town has on record (COMPLAINT_SITES:
  any status but a draft or a withdrawn application, enforcement cases included), and listed until met, also
  where nothing else is listed (a closed permit, an application under review, an enforcement case).
A follow-up verifies corrective actions and a complaint inspection answers a complaint: neither walks the
whole site, so neither meets anything but its own.

The construction-phase obligations (post_installation, routine, storm_event) of a site whose work is
complete close at the later of their due time and the end of the completion day: one still unmet then can
no longer happen (the final inspection is what is owed now) and is MISSED, as is a pre-construction
inspection once work has commenced. An overdue item is one still to be done: past its due time, unmet, and
not missed.

A recorded inspection meets an obligation when it is of a kind that satisfies it and started in the
obligation's window (from its opening to its close, if it has one); it is late when it started after the
due time (to the second). One inspection may meet several obligations (a visit after two storms answers
both; a routine visit after a storm answers the storm and the routine).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Iterable
from zoneinfo import ZoneInfo

KINDS = ("pre_construction", "post_installation", "routine", "storm_event", "follow_up", "final", "complaint")
REQUEST_KINDS = {"post_installation": "post_installation", "final": "final", "re_inspection": "follow_up",
                 "complaint": "complaint"}
# Permit statuses (R-C2) in which a site owes inspections at all.
DECIDED = ("approved", "issued", "active", "work_complete", "closed")
# ... and those whose unmet obligations are still listed as due (a closed site owes nothing more).
LISTED = ("approved", "issued", "active", "work_complete")
# ... and those at which a complaint from the public is owed, and listed until met: every site the Town has
# on record, enforcement cases (`unpermitted`) included; never a draft or a withdrawn application.
COMPLAINT_SITES = ("submitted", "under_review", "approved", "issued", "denied", "active", "work_complete", "closed",
                   "unpermitted")
# Which recorded inspections satisfy an obligation of each kind (see the module's docstring).
COVERED_BY = {
    "pre_construction": ("pre_construction", "post_installation", "routine", "storm_event"),
    "post_installation": ("post_installation", "routine", "storm_event", "final"),
    "routine": ("routine", "post_installation", "storm_event", "final"),
    "storm_event": ("storm_event", "routine", "post_installation", "final"),
    "follow_up": ("follow_up",),
    "final": ("final",),
    "complaint": ("complaint",),
}
# Obligations owed while work is under way: they close when work is reported complete.
CONSTRUCTION = ("post_installation", "routine", "storm_event")


@dataclass(frozen=True)
class Settings:
    routine_days: int = 14
    storm_threshold_inches: Decimal = Decimal("0.25")
    storm_window_hours: int = 24
    response_days: int = 5
    tz: ZoneInfo = ZoneInfo("America/New_York")


@dataclass(frozen=True)
class Site:
    permit_id: str
    status: str
    decided_at: datetime | None
    commenced_on: date | None
    completed_on: date | None


@dataclass(frozen=True)
class Visit:
    """A recorded inspection (submitted or later; a draft is still the inspector's working copy)."""
    id: str
    kind: str
    started_at: datetime
    verifies: tuple[str, ...] = ()


@dataclass(frozen=True)
class Storm:
    id: str
    ended_at: datetime
    inches: Decimal


@dataclass(frozen=True)
class FindingDue:
    id: str
    due_on: date
    status: str
    verified_at: datetime | None = None  # when the follow-up that closed it started, if known
    verified_by: str | None = None


@dataclass(frozen=True)
class Request:
    id: str
    kind: str  # one of REQUEST_KINDS
    created_at: datetime
    preferred_dates: tuple[date, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Obligation:
    permit_id: str
    kind: str
    reason: str
    due_at: datetime
    binding: bool = True  # False: listed, but no deadline has passed yet that could make it overdue
    opens_at: datetime | None = None
    closes_at: datetime | None = None  # after this an unmet obligation can no longer be met: missed
    source: str = "program"  # program | storm | finding | request
    source_id: str | None = None
    done_at: datetime | None = None
    inspection_id: str | None = None
    rules: tuple[str, ...] = ("R-I1",)

    @property
    def done(self) -> bool:
        return self.done_at is not None

    @property
    def late(self) -> bool:
        return self.done_at is not None and self.binding and _seconds(self.done_at) > self.due_at

    def missed(self, now: datetime) -> bool:
        """Not met, and no longer can be (pre-construction once work has commenced; the construction-phase
        inspections once work is complete): not listed as due; counted as missed for the MS4 report."""
        return self.done_at is None and self.closes_at is not None and now > self.closes_at

    def past_due(self, now: datetime) -> bool:
        return self.done_at is None and self.binding and now > self.due_at

    def overdue(self, now: datetime) -> bool:
        """Past due and still to be done: what a supervisor expects to see chased."""
        return self.past_due(now) and not self.missed(now)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.source}:{self.source_id or self.permit_id}:{self.due_at.isoformat()}"


def _seconds(at: datetime) -> datetime:
    return at.replace(microsecond=0)


def start_of_day(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=tz).astimezone(timezone.utc)


def end_of_day(day: date, tz: ZoneInfo) -> datetime:
    """The last second of a Town calendar day: a day's deadline is met by anything started within it."""
    return datetime.combine(day, time(23, 59, 59), tzinfo=tz).astimezone(timezone.utc)


def local_day(at: datetime, tz: ZoneInfo) -> date:
    return at.astimezone(tz).date()


def storm_counts(inches: Decimal, settings: Settings) -> bool:
    """R-I1: a storm of at least the threshold (exactly 0.25 in counts)."""
    return Decimal(inches) >= settings.storm_threshold_inches


def active_between(site: Site, settings: Settings) -> tuple[datetime, datetime | None] | None:
    """The span the site is active: start of the commencement day to the end of the completion day."""
    if site.commenced_on is None or site.status not in ("active", "work_complete", "closed"):
        return None
    end = end_of_day(site.completed_on, settings.tz) if site.completed_on else None
    return start_of_day(site.commenced_on, settings.tz), end


def request_due_at(request: Request, settings: Settings) -> datetime:
    made = local_day(request.created_at, settings.tz)
    preferred = sorted(d for d in request.preferred_dates if d >= made)
    day = preferred[0] if preferred else made + timedelta(days=settings.response_days)
    return end_of_day(day, settings.tz)


def _first(visits: list[Visit], kind: str, after: datetime | None, strictly: bool = False,
           until: datetime | None = None, any_time: tuple[str, ...] = ()) -> Visit | None:
    """The first visit that satisfies an obligation of `kind` (COVERED_BY) started after `after` (at or
    after, unless `strictly`) and no later than `until`; kinds in `any_time` need not wait for `after`."""
    for visit in visits:
        if visit.kind not in COVERED_BY[kind] or (until is not None and visit.started_at > until):
            continue
        if after is not None and visit.kind not in any_time and (
                visit.started_at <= after if strictly else visit.started_at < after):
            continue
        return visit
    return None


def _closes(site: Site, kind: str, due: datetime, settings: Settings) -> datetime | None:
    """A construction-phase obligation of a site whose work is complete closes at the later of its due
    time and the end of the completion day; others stay open until met."""
    if kind not in CONSTRUCTION or site.completed_on is None:
        return None
    return max(due, end_of_day(site.completed_on, settings.tz))


def _met(obligation: Obligation, visit: Visit | None) -> Obligation:
    if visit is None:
        return obligation
    return replace(obligation, done_at=visit.started_at, inspection_id=visit.id)


def _pre_construction(site: Site, visits: list[Visit], settings: Settings) -> list[Obligation]:
    if site.decided_at is None and site.commenced_on is None:
        return []
    if site.commenced_on is not None:
        due, binding = end_of_day(site.commenced_on, settings.tz), True
        reason = f"Before work commences (work commenced {site.commenced_on.isoformat()})"
        closes = due  # once work has commenced it can no longer happen: missed, never overdue
    else:
        due, binding, reason, closes = site.decided_at, False, "Before work commences", None
    return [_met(Obligation(site.permit_id, "pre_construction", reason, due, binding, closes_at=closes),
                 _first(visits, "pre_construction", None, until=closes))]


def _post_installation(site: Site, visits: list[Visit], requests: list[Request],
                       settings: Settings) -> list[Obligation]:
    reports = [r.created_at for r in requests if REQUEST_KINDS.get(r.kind) == "post_installation"]
    if site.commenced_on is not None and site.status in ("active", "work_complete", "closed"):
        reports.append(start_of_day(site.commenced_on, settings.tz))
    if not reports:
        return []
    reported = min(reports)
    day = local_day(reported, settings.tz)
    due = end_of_day(day + timedelta(days=settings.response_days), settings.tz)
    reason = f"Perimeter controls reported in on {day.isoformat()}"
    closes = _closes(site, "post_installation", due, settings)
    return [_met(Obligation(site.permit_id, "post_installation", reason, due, opens_at=reported, closes_at=closes),
                 _first(visits, "post_installation", reported, until=closes, any_time=("post_installation",)))]


def _routine(site: Site, visits: list[Visit], settings: Settings) -> list[Obligation]:
    span = active_between(site, settings)
    if span is None:
        return []
    start, end = span
    out: list[Obligation] = []
    anchor, strictly = start, False
    reason_from = f"work commenced {site.commenced_on.isoformat()}"
    while True:
        due = end_of_day(local_day(anchor, settings.tz) + timedelta(days=settings.routine_days), settings.tz)
        if end is not None and due > end:
            break
        closes = _closes(site, "routine", due, settings)
        visit = _first(visits, "routine", anchor, strictly, until=closes)
        out.append(_met(Obligation(site.permit_id, "routine",
                                   f"Every {settings.routine_days} days while active ({reason_from})", due,
                                   opens_at=anchor, closes_at=closes), visit))
        if visit is None:
            break
        # The count restarts from the last inspection within the interval (or the late one that met it).
        last = visit
        while (following := _first(visits, "routine", last.started_at, True, until=due)) is not None:
            last = following
        anchor, strictly = last.started_at, True
        reason_from = f"last inspection {local_day(anchor, settings.tz).isoformat()}"
    return out


def _storms(site: Site, visits: list[Visit], storms: Iterable[Storm], settings: Settings) -> list[Obligation]:
    span = active_between(site, settings)
    if span is None:
        return []
    start, end = span
    out = []
    for storm in storms:
        if not storm_counts(storm.inches, settings) or storm.ended_at < start or (end and storm.ended_at > end):
            continue
        ended = storm.ended_at.astimezone(settings.tz)
        reason = (f"Storm of {Decimal(storm.inches):.2f} in ended {ended.strftime('%Y-%m-%d %H:%M')} "
                  f"(within {settings.storm_window_hours} h)")
        due = storm.ended_at + timedelta(hours=settings.storm_window_hours)
        closes = _closes(site, "storm_event", due, settings)
        out.append(_met(Obligation(site.permit_id, "storm_event", reason, due, opens_at=storm.ended_at,
                                   closes_at=closes, source="storm", source_id=storm.id),
                        _first(visits, "storm_event", storm.ended_at, until=closes)))
    return out


def _follow_ups(site: Site, visits: list[Visit], findings: Iterable[FindingDue],
                settings: Settings) -> list[Obligation]:
    out = []
    for finding in findings:
        base = Obligation(site.permit_id, "follow_up", f"Finding due to be corrected by {finding.due_on.isoformat()}",
                          end_of_day(finding.due_on, settings.tz), source="finding", source_id=finding.id,
                          rules=("R-I1", "R-I4"))
        if finding.verified_at is not None:
            out.append(replace(base, done_at=finding.verified_at, inspection_id=finding.verified_by))
            continue
        if finding.status != "open":
            continue  # closed without a follow-up on record (withdrawn): nothing owed
        naming = [v for v in visits if v.kind == "follow_up" and finding.id in v.verifies]
        out.append(_met(base, naming[0] if naming else None))
    return out


def _final(site: Site, visits: list[Visit], settings: Settings) -> list[Obligation]:
    if site.completed_on is None:
        return []
    due = end_of_day(site.completed_on + timedelta(days=settings.response_days), settings.tz)
    return [_met(Obligation(site.permit_id, "final", f"Work reported complete on {site.completed_on.isoformat()}",
                            due), _first(visits, "final", None))]


def _requests(site: Site, visits: list[Visit], requests: Iterable[Request], settings: Settings) -> list[Obligation]:
    out = []
    for request in requests:
        kind = REQUEST_KINDS[request.kind]
        wanted = ", ".join(d.isoformat() for d in sorted(request.preferred_dates))
        if kind == "complaint":
            reason = "Complaint from the public" + (f" ({request.note})" if request.note else "")
        else:
            reason = f"Requested by the applicant ({request.kind.replace('_', '-')}" + (
                f"; preferred {wanted})" if wanted else ")")
        due = request_due_at(request, settings)
        closes = _closes(site, kind, due, settings)
        out.append(_met(Obligation(site.permit_id, kind, reason, due, opens_at=request.created_at, closes_at=closes,
                                   source="request", source_id=request.id),
                        _first(visits, kind, request.created_at, until=closes)))
    return out


def obligations(site: Site, visits: Iterable[Visit], storms: Iterable[Storm], findings: Iterable[FindingDue],
                requests: Iterable[Request], settings: Settings) -> list[Obligation]:
    """Every inspection the site has owed or owes, met or not, soonest due first."""
    if site.status not in COMPLAINT_SITES:
        return []
    ordered = sorted(visits, key=lambda v: (v.started_at, v.id))
    requests = list(requests)
    if site.status not in DECIDED:  # not (or not yet) in the program: only complaints are owed
        out = _requests(site, ordered, [r for r in requests if r.kind == "complaint"], settings)
        return sorted(out, key=lambda o: (o.due_at, KINDS.index(o.kind), o.source_id or ""))
    out = (_pre_construction(site, ordered, settings) + _post_installation(site, ordered, requests, settings)
           + _routine(site, ordered, settings) + _storms(site, ordered, storms, settings)
           + _follow_ups(site, ordered, findings, settings) + _final(site, ordered, settings)
           + _requests(site, ordered, requests, settings))
    return sorted(out, key=lambda o: (o.due_at, KINDS.index(o.kind), o.source_id or ""))


def due(obligations_: Iterable[Obligation], site_status: str, now: datetime) -> list[Obligation]:
    """The obligations still owed at `now`, as listed for inspectors: unmet ones of a site still in the
    program, less those that can no longer be met (missed); at any other site the Town has on record,
    its unmet complaints."""
    if site_status not in COMPLAINT_SITES:
        return []
    listed = site_status in LISTED
    return [o for o in obligations_ if not o.done and not o.missed(now) and (listed or o.kind == "complaint")]


@dataclass
class MonthCount:
    kind: str
    month: str
    due: int = 0
    on_time: int = 0
    late: int = 0
    not_done: int = 0
    missed: int = 0


def month_counts(obligations_: Iterable[Obligation], start: date, end: date, now: datetime,
                 tz: ZoneInfo) -> list[MonthCount]:
    """MS4 annual report: inspections due, done on time and done late, per kind and month of the due day
    (Town time), for obligations due from `start` to `end` inclusive. `not_done` counts those past due and
    not met; `missed`, among those, the ones that can no longer be met (a pre-construction inspection once
    work has commenced; a construction-phase one once work is complete); those not yet due and not met are
    in `due` only."""
    counts: dict[tuple[str, str], MonthCount] = {}
    for o in obligations_:
        if not o.binding:
            continue
        day = local_day(o.due_at, tz)
        if not start <= day <= end:
            continue
        month = f"{day.year:04d}-{day.month:02d}"
        row = counts.setdefault((o.kind, month), MonthCount(o.kind, month))
        row.due += 1
        if o.done:
            if o.late:
                row.late += 1
            else:
                row.on_time += 1
        elif o.past_due(now):
            row.not_done += 1
            row.missed += o.missed(now)
    return sorted(counts.values(), key=lambda c: (c.month, KINDS.index(c.kind)))


@dataclass(frozen=True)
class DailyRain:
    day: date
    inches: Decimal
    station: str


def storm_days(rows: Iterable[DailyRain], settings: Settings) -> list[DailyRain]:
    """One storm per day at or over the threshold: the day's highest reading among the file's stations."""
    best: dict[date, DailyRain] = {}
    for row in rows:
        if not storm_counts(row.inches, settings):
            continue
        if row.day not in best or row.inches > best[row.day].inches:
            best[row.day] = row
    return [best[d] for d in sorted(best)]


def day_storm_ends(day: date, settings: Settings) -> datetime:
    """A daily total's storm ends at the end of that day in Town time."""
    return end_of_day(day, settings.tz)


__all__ = ["Settings", "Site", "Visit", "Storm", "FindingDue", "Request", "Obligation", "obligations", "due",
           "month_counts", "storm_days", "DailyRain", "day_storm_ends", "storm_counts", "KINDS", "REQUEST_KINDS", "COVERED_BY",
           "COMPLAINT_SITES",
           "start_of_day", "end_of_day", "local_day"]
