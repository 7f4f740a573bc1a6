"""Reading a daily precipitation CSV as NOAA Climate Data Online (CDO) exports it: columns STATION, NAME,
DATE (YYYY-MM-DD) and PRCP, in any order, with any other columns beside them. PRCP is in inches when the
order was placed in "standard" units and in millimetres in "metric" ones; the file itself does not say
which, so the caller does. A row whose PRCP is empty (no reading that day) is skipped. Pure: text in, rows
or a list of problems out."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import ROUND_DOWN, Decimal, InvalidOperation

from .rules import DailyRain

REQUIRED = ("STATION", "NAME", "DATE", "PRCP")
MAX_PROBLEMS = 20
UNITS = ("standard", "metric")
MM_PER_INCH = Decimal("25.4")
# The most rain ever measured in Massachusetts in 24 hours: 18.15 in at Westfield, 18-19 August 1955
# (Hurricane Diane; NOAA State Climate Extremes Committee). A daily total above it is a misread file
# (millimetres taken for inches, a shifted column), not a storm.
MA_24H_RECORD_INCHES = Decimal("18.15")
CENT = Decimal("0.01")


class CsvProblem(ValueError):
    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message)
        self.problems = problems


def parse_daily_csv(text: str, *, units: str = "standard", today: date | None = None,
                    max_rows: int | None = None) -> list[DailyRain]:
    """The file's daily totals in inches. Refused whole, naming each line: a day after `today` (no rain is
    measured ahead), a total over the Massachusetts record once in inches, and a file of more than
    `max_rows` rows (counted as read, so a huge file costs no more than the limit)."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {', '.join(UNITS)}")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [name.strip() for name in (reader.fieldnames or [])]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise CsvProblem(f"The file lacks the column(s) {', '.join(missing)}; a NOAA CDO daily CSV has "
                         f"{', '.join(REQUIRED)}.", [f"missing column {name}" for name in missing])
    reader.fieldnames = header
    rows: list[DailyRain] = []
    problems: list[str] = []
    for count, (line, row) in enumerate(enumerate(reader, start=2), start=1):
        if max_rows is not None and count > max_rows:
            raise CsvProblem(f"The file has more than {max_rows} rows; import it in parts (shorter date ranges).",
                             [f"more than {max_rows} rows"])
        raw = (row.get("PRCP") or "").strip()
        if not raw:
            continue
        problem, reading = _reading(line, row, raw, units, today)
        if problem:
            problems.append(problem)
            if len(problems) >= MAX_PROBLEMS:
                break
        else:
            rows.append(reading)
    if problems:
        raise CsvProblem(f"{len(problems)} row(s) could not be read; nothing was imported.", problems)
    return rows


def _reading(line: int, row: dict, raw: str, units: str, today: date | None) -> tuple[str | None, DailyRain | None]:
    try:
        day = date.fromisoformat((row.get("DATE") or "").strip())
    except ValueError:
        return f"line {line}: DATE {row.get('DATE')!r} is not YYYY-MM-DD", None
    if today is not None and day > today:
        return f"line {line}: DATE {day.isoformat()} is after today ({today.isoformat()}): no rain is measured ahead", None
    unit = "millimetres" if units == "metric" else "inches"
    try:
        amount = Decimal(raw)
    except InvalidOperation:
        return f"line {line}: PRCP {raw!r} is not a number of {unit}", None
    if not amount.is_finite() or amount < 0:
        return f"line {line}: PRCP {raw!r} is not a daily rainfall in {unit} (0 or more)", None
    inches = amount / MM_PER_INCH if units == "metric" else amount
    if inches > MA_24H_RECORD_INCHES:
        hint = (f" ({inches:.3f} in)" if units == "metric" else
                "; if the file is in millimetres (a CDO order in metric units), import it as metric")
        return (f"line {line}: PRCP {raw!r} is more than the Massachusetts 24-hour record, "
                f"{MA_24H_RECORD_INCHES} in (Westfield, 1955){hint}"), None
    # Millimetres are rounded down to the hundredth of an inch, so a converted day never reaches the
    # storm threshold (R-I1: at least 0.25 in) unless the rain did: 6.3 mm is 0.248 in, not 0.25.
    inches = inches.quantize(CENT, rounding=ROUND_DOWN) if units == "metric" else inches.quantize(CENT)
    return None, DailyRain(day, inches, (row.get("STATION") or "").strip())
