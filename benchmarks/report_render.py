"""What an inspection report costs to render as its text grows, against a floor measured in the
same run.

    .venv/bin/python benchmarks/report_render.py [--lines 400,1000,4000] [--rounds 3]

For each N: one report whose inspection notes, one checklist note and one finding each hold N
one-letter lines (4,000 is what an 8,000-character note can hold), rendered by
inspect_api.reports.pdf.render. The floor is the same report with N = 40. Prints the best CPU time
per N of `--rounds` interleaved rounds, the multiple of the floor, and the cost per line above the
floor: linear rendering keeps the cost per line about flat, so 10x the lines is about 10x the time
(the layout before, one paragraph per text re-wrapped on every page it ran over, grew with the
square: 4,000 lines about 90x 400 lines). The machine is shared and noisy: only ratios from one run
mean anything; CPU time, not the wall clock, so other processes' load does not stretch one measure.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspect_api.reports import pdf  # noqa: E402

FLOOR_LINES = 40


def report(lines: int) -> pdf.ReportData:
    """An inspection report whose notes, checklist note and finding each hold `lines` one-letter lines
    (inspection notes may hold 8,000 characters: 4,000 such lines is what a device can send); also
    the report tests/reports/test_report_cost.py measures."""
    notes = "\n".join("x" for _ in range(lines))
    return pdf.ReportData(
        title="Inspection report", site_rows=[("Site", "1 Main St")], inspection_rows=[("Notes", notes)],
        checklist_title="Checklist", checklist_rows=[("1", "Silt fence", "deficient", notes)],
        finding_rows=[("Silt fence", notes, "high", "2026-05-05", "open")], sample_rows=[], footer="footer")


def cpu_seconds(data: pdf.ReportData) -> tuple[float, int]:
    started = time.process_time()
    out = pdf.render(data)
    return time.process_time() - started, len(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="400,1000,4000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = [FLOOR_LINES] + [int(n) for n in args.lines.split(",")]
    cpu_seconds(report(10))  # fonts and styles loaded once, outside the measure
    best = {n: float("inf") for n in sizes}
    size_bytes = {}
    for _ in range(args.rounds):
        for n in sizes:
            seconds, size_bytes[n] = cpu_seconds(report(n))
            best[n] = min(best[n], seconds)
    floor = best[FLOOR_LINES]
    print(f"best CPU time of {args.rounds} rounds; floor: the same report with {FLOOR_LINES} lines per text, "
          f"{floor * 1000:.1f} ms")
    for n in sizes[1:]:
        per_line = (best[n] - floor) / (n - FLOOR_LINES) * 1000 if n > FLOOR_LINES else 0.0
        print(f"{n:6d} lines per text: {best[n] * 1000:9.1f} ms = {best[n] / floor:6.1f}x floor, "
              f"{per_line:.3f} ms a line above it, {size_bytes[n] / 1024:.0f} KiB")
    if len(sizes) > 2:
        low, high = sizes[1], sizes[-1]
        print(f"{high} vs {low} lines: {best[high] / best[low]:.1f}x for {high / low:.0f}x the text "
              "(the test asks at most 15x for 10x)")


if __name__ == "__main__":
    main()
