"""Reading a daily precipitation CSV as NOAA Climate Data Online (CDO) exports it: columns STATION, NAME,
DATE (YYYY-MM-DD) and PRCP (inches, "standard" units), in any order, with any other columns beside them.
A row whose PRCP is empty (no reading that day) is skipped. Pure: text in, rows or a list of problems out."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal, InvalidOperation

from .rules import DailyRain

REQUIRED = ("STATION", "NAME", "DATE", "PRCP")
MAX_PROBLEMS = 20


class CsvProblem(ValueError):
    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message)
        self.problems = problems


def parse_daily_csv(text: str) -> list[DailyRain]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [name.strip() for name in (reader.fieldnames or [])]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise CsvProblem(f"The file lacks the column(s) {', '.join(missing)}; a NOAA CDO daily CSV has "
                         f"{', '.join(REQUIRED)}.", [f"missing column {name}" for name in missing])
    reader.fieldnames = header
    rows: list[DailyRain] = []
    problems: list[str] = []
    for line, row in enumerate(reader, start=2):
        raw = (row.get("PRCP") or "").strip()
        if not raw:
            continue
        try:
            day = date.fromisoformat((row.get("DATE") or "").strip())
        except ValueError:
            problems.append(f"line {line}: DATE {row.get('DATE')!r} is not YYYY-MM-DD")
            continue
        try:
            inches = Decimal(raw)
        except InvalidOperation:
            problems.append(f"line {line}: PRCP {raw!r} is not a number of inches")
            continue
        if not inches.is_finite() or inches < 0 or inches > 100:
            problems.append(f"line {line}: PRCP {raw!r} is not a daily rainfall in inches (0 to 100)")
            continue
        rows.append(DailyRain(day, inches.quantize(Decimal("0.01")), (row.get("STATION") or "").strip()))
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise CsvProblem(f"{len(problems)} row(s) could not be read; nothing was imported.", problems)
    return rows
