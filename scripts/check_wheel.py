"""Checks that a built wheel carries everything the app needs outside the Python code.

    python scripts/check_wheel.py dist/inspect_api-*.whl

Every file of the field app the server may serve (inspect_api/static/pwa/, by the extensions
inspect_api/web/routes.py serves), every migration file, every font in the source tree, and the
public pages' templates, static files and catalogs (inspect_api/public/) must be in the wheel;
nothing that is not the package (tests, instance data, the icon-drawing script) may be.
Exits non-zero and names what is wrong.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "inspect_api"
SERVED = {".html", ".js", ".css", ".svg", ".png", ".webmanifest"}  # inspect_api/web/routes.py TYPES
MIGRATION_FILES = {"README", "alembic.ini", "script.py.mako", "env.py"}


def expected_files() -> set[str]:
    wanted = set()
    for path in (PACKAGE / "static" / "pwa").rglob("*"):
        if path.is_file() and path.suffix in SERVED:
            wanted.add(path.relative_to(ROOT).as_posix())
    migrations = PACKAGE / "migrations"
    wanted |= {(migrations / name).relative_to(ROOT).as_posix() for name in MIGRATION_FILES}
    wanted |= {p.relative_to(ROOT).as_posix() for p in (migrations / "versions").glob("*.py")}
    wanted |= {p.relative_to(ROOT).as_posix() for p in (PACKAGE / "notifications" / "templates").glob("*.*")}
    # The public pages: their templates, stylesheet and script, and the catalogs (.po and compiled .mo).
    public = PACKAGE / "public"
    for folder, pattern in (("templates", "**/*.html"), ("static", "*.*"), ("translations", "**/*.[mp]o")):
        wanted |= {p.relative_to(ROOT).as_posix() for p in (public / folder).glob(pattern) if p.is_file()}
    for pattern in ("*.ttf", "*.otf"):
        wanted |= {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob(pattern)}
    return wanted


def problems(wheel: Path) -> list[str]:
    names = set(zipfile.ZipFile(wheel).namelist())
    found = []
    missing = sorted(expected_files() - names)
    if missing:
        found.append("missing from the wheel: " + ", ".join(missing))
    if not any(n.startswith("inspect_api/migrations/versions/") for n in names):
        found.append("the wheel has no migration revisions")
    stray = sorted(n for n in names if n.startswith(("tests/", "instance/", "inspect_api/instance/", "static/",
                                                      "migrations/", "benchmarks/", "scripts/"))
                   or n.endswith("make_icons.py") or "/__pycache__/" in n)
    if stray:
        found.append("not part of the package but in the wheel: " + ", ".join(stray))
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    wheel = Path(argv[1])
    found = problems(wheel)
    for problem in found:
        print(f"wheel check: {problem}", file=sys.stderr)
    if not found:
        print(f"wheel check: {wheel.name} carries the app, {len(expected_files())} data files checked")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
