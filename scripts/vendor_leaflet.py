"""Copies the map library (Leaflet) from the locked npm package into the field app.

The app has no build step, so the few files it loads are committed under
inspect_api/static/pwa/vendor/leaflet/, exactly as the package at the version package-lock.json
names ships them. After `npm ci` (or after changing the version in package.json and `npm install`),
run `python scripts/vendor_leaflet.py`, then bump static/pwa/version.js so devices fetch the new
files. `python scripts/vendor_leaflet.py --check` exits 1 when the committed copy differs from the
installed package or from the locked version (tests/web/test_vendored.py runs it).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "node_modules" / "leaflet"
TARGET = ROOT / "inspect_api" / "static" / "pwa" / "vendor" / "leaflet"
# What the app loads: the ES module build, its stylesheet, the layer-control images the stylesheet names,
# and the licence that must travel with the copy.
# (The app draws its own markers, so the default marker images are left out.)
FILES = ("dist/leaflet-src.esm.js", "dist/leaflet.css", "dist/images/layers.png", "dist/images/layers-2x.png")
LICENCE = ("LICENSE", "LICENSE.txt")  # .txt: the app serves no extensionless file


def locked_version() -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/leaflet"]["version"]


def vendored_version() -> str | None:
    path = TARGET / "leaflet-src.esm.js"
    if not path.is_file():
        return None
    head = path.read_text(encoding="utf-8")[:200]
    return head.split("Leaflet ", 1)[1].split(",", 1)[0] if "Leaflet " in head else None


def pairs() -> list[tuple[Path, Path]]:
    out = [(PACKAGE / f, TARGET / f.removeprefix("dist/")) for f in FILES]
    out.append((PACKAGE / LICENCE[0], TARGET / LICENCE[1]))
    return out


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def check() -> list[str]:
    problems = []
    if vendored_version() != locked_version():
        problems.append(f"vendored Leaflet {vendored_version()} is not the locked {locked_version()}")
    if PACKAGE.is_dir():
        for source, target in pairs():
            if not target.is_file() or target.read_bytes() != source.read_bytes():
                problems.append(f"{_shown(target)} differs from {_shown(source)}")
    return problems


def main(argv: list[str]) -> int:
    if "--check" in argv:
        problems = check()
        print("\n".join(problems) or "vendored Leaflet matches the locked package")
        return 1 if problems else 0
    if not PACKAGE.is_dir():
        print("node_modules/leaflet is missing: run `npm ci` first", file=sys.stderr)
        return 2
    for source, target in pairs():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
    print(f"copied Leaflet {vendored_version()} into {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
