"""Lighthouse's mobile performance score of the app's first load, the median of several runs.

    inspect-api demo --port 5077 &                       # or any running server
    python benchmarks/lighthouse.py http://127.0.0.1:5077/ [--runs 3] [--lighthouse PATH]

Lighthouse is not a dependency of the project: install it where you like (`npm install lighthouse`
in a scratch folder) and give its `lighthouse` command with --lighthouse, or have it on PATH. It
drives the system Chromium (CHROME_PATH, default /usr/bin/chromium) headless, with simulated
throttling (a mid-range phone on a slow 4G link), and never downloads a browser.

Each run prints the score with First and Largest Contentful Paint, Total Blocking Time and the
element Lighthouse took as the largest paint; the last line is the median score against the goal (95).
On a shared machine a run can be slowed by other work: the median of three is the figure to quote.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL = 95
FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync"


def run_once(command: str, url: str, out: Path) -> dict:
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    subprocess.run([command, url, "--quiet", "--only-categories=performance", "--form-factor=mobile",
                    f"--chrome-flags={FLAGS}", "--output=json", f"--output-path={out}"],
                   env=env, check=True, stdout=subprocess.DEVNULL, timeout=300)
    report = json.loads(out.read_text())
    audits = report["audits"]
    element = audits["largest-contentful-paint-element"]["details"]["items"][0]["items"][0]["node"]["selector"]
    return {"score": round(report["categories"]["performance"]["score"] * 100),
            "fcp": audits["first-contentful-paint"]["displayValue"],
            "lcp": audits["largest-contentful-paint"]["displayValue"],
            "tbt": audits["total-blocking-time"]["displayValue"], "element": element}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lighthouse", default=shutil.which("lighthouse"),
                        help="the lighthouse command (default: the one on PATH)")
    args = parser.parse_args()
    if not args.lighthouse:
        print("lighthouse not found: install it (npm install lighthouse) and pass --lighthouse PATH", file=sys.stderr)
        return 2
    scores = []
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as folder:
        for n in range(1, args.runs + 1):
            result = run_once(args.lighthouse, args.url, Path(folder, f"run{n}.json"))
            scores.append(result["score"])
            print(f"run {n}: performance {result['score']}, FCP {result['fcp']}, LCP {result['lcp']}, "
                  f"TBT {result['tbt']}, largest paint: {result['element']}")
    median = statistics.median(scores)
    print(f"median of {len(scores)}: {median:g} (goal {GOAL}: {'met' if median >= GOAL else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
