#!/usr/bin/env bash
# Builds the sdist and the wheel (from the sdist, as a package index would), checks the wheel's
# contents, installs it into a fresh virtualenv outside the checkout, runs `inspect-api db upgrade`
# on an empty SQLite database and serves it with gunicorn: `/`, `/api/v1/openapi.json` and a module
# of the app must answer 200. Exits non-zero on any failure. Needs python3 (3.11+) and the package
# index pip is configured with; installs the build tool itself.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-python3}"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== wheel: build =="
"$PYTHON" -m venv "$work/tools"
quiet_pip() { "$@" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; return 1; }; }
quiet_pip "$work/tools/bin/python" -m pip install -q build
"$work/tools/bin/python" -m build --outdir "$work/dist" "$ROOT" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/*.whl)"
"$PYTHON" scripts/check_wheel.py "$wheel"

echo "== wheel: install into a fresh virtualenv =="
"$PYTHON" -m venv "$work/venv"
quiet_pip "$work/venv/bin/python" -m pip install -q "$wheel"

# Everything below runs from an empty folder, so nothing is imported or read from the checkout.
mkdir "$work/run"
cd "$work/run"
site="$("$work/venv/bin/python" -c 'import inspect_api, pathlib; print(pathlib.Path(inspect_api.__file__).parent)')"
case "$site" in
  "$work/venv/"*) ;;
  *) echo "wheel check: inspect_api was imported from $site, not from the fresh virtualenv" >&2; exit 1 ;;
esac

export INSPECT_API_ENV=production
export DATABASE_URL="sqlite:///$work/run/empty.sqlite3"
export STORAGE_URL="file://$work/run/blobs"
export SECRET_KEY="$(python3 -c "import secrets; print(secrets.token_hex(32))")" JWT_SECRET_KEY="$(python3 -c "import secrets; print(secrets.token_hex(32))")"
echo "== wheel: inspect-api db upgrade on an empty database =="
"$work/venv/bin/inspect-api" db upgrade
"$work/venv/bin/python" - "$work/run/empty.sqlite3" <<'PY'
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
levels = conn.execute("SELECT count(*) FROM action_levels").fetchone()[0]
assert len(version) == 1, version
assert {"users", "permits", "inspections", "action_levels"} <= tables, sorted(tables)
assert levels > 0, "the migration loaded no reference data"
print(f"wheel check: database at revision {version[0][0]}, {len(tables)} tables, {levels} action levels")
PY
if [ -e "$site/instance" ]; then
  echo "wheel check: an instance folder was created inside the installed package ($site/instance)" >&2; exit 1
fi

echo "== wheel: serve with gunicorn =="
port="$("$work/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$work/venv/bin/gunicorn" --bind "127.0.0.1:$port" --workers 1 --log-level warning "inspect_api:create_app()" \
  >"$work/gunicorn.log" 2>&1 &
server_pid=$!
"$work/venv/bin/python" - "http://127.0.0.1:$port" <<'PY' || { cat "$work/gunicorn.log"; exit 1; }
import json, re, sys, time, urllib.error, urllib.request
base = sys.argv[1]
deadline = time.monotonic() + 120
while True:
    try:
        urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=30).close()
        break
    except OSError:  # refused while gunicorn boots, or a timeout while the worker builds the app
        if time.monotonic() > deadline:
            sys.exit("wheel check: gunicorn did not answer within 120 s")
        time.sleep(0.5)

def get(path):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()

status, kind, shell = get("/")
assert status == 200 and kind.startswith("text/html") and b"manifest.webmanifest" in shell, (status, kind, shell[:200])
status, kind, body = get("/api/v1/openapi.json")
spec = json.loads(body)
assert status == 200 and spec["openapi"].startswith("3.") and "/api/v1/permits" in spec["paths"], (status, list(spec)[:5])
# The shell names its version's own module path; that module is immutable and goes compressed.
module = re.search(rb'src="(/static/pwa/[^"/]+/js/app\.js)"', shell)
assert module, shell[:400]
status, kind, body = get(module.group(1).decode())
assert status == 200 and kind.startswith("text/javascript") and body, (status, kind)
packed = urllib.request.urlopen(urllib.request.Request(base + module.group(1).decode(), headers={"Accept-Encoding": "gzip"}), timeout=10)
assert packed.headers["Content-Encoding"] == "gzip" and "immutable" in packed.headers["Cache-Control"], dict(packed.headers)
status, kind, body = get("/sw.js")
assert status == 200 and body, status
# The public pages, in Portuguese from the compiled catalog the wheel carries, and their stylesheet.
status, kind, page = get("/public/?lang=pt")
assert status == 200 and kind.startswith("text/html") and '<html lang="pt">'.encode() in page, (status, kind)
assert "Procurar uma licença".encode() in page, page[:400]
status, kind, body = get("/public/static/public.css")
assert status == 200 and kind.startswith("text/css") and body, (status, kind)
print(f"wheel check: / , /api/v1/openapi.json ({len(spec['paths'])} paths), /sw.js, the app's versioned modules "
      "and the public pages in Portuguese answer 200")
PY
echo "wheel check: passed"
