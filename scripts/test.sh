#!/usr/bin/env bash
# Set up a virtual environment (first run only) and run the whole test suite:
#   0. the field app's JavaScript unit tests, when node is installed, and the import contracts;
#   1. on SQLite (always);
#   2. again on PostgreSQL when one is reachable (TEST_DATABASE_URL, or a local server on 127.0.0.1:5432).
# Suites whose external parts are missing (node, PostgreSQL, Chromium) are skipped and named at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv || exit 1
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[test]' || exit 1
  touch .venv/.installed
fi

skipped=()
status=0

# axe-core for the browser tests' accessibility checks (npm package; the app never serves it).
if [ ! -f node_modules/axe-core/axe.min.js ] && command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error || true
fi

# The field app's pure modules under Node's own test runner (built-in: nothing to install). First, so
# the pytest summaries stay the last lines printed.
if command -v node >/dev/null 2>&1; then
  echo "== JavaScript unit tests (node --test tests/js) =="
  node --test --test-reporter=spec tests/js/*.test.js
  rc=$?
  [ $rc -ne 0 ] && status=$rc
else
  skipped+=("JavaScript unit tests: node not installed (Debian package 'nodejs', 20 or newer)")
fi

# The direction of imports between the app's packages (pyproject.toml [tool.importlinter]; README
# "Layers"): a broken contract fails the run like a failing test.
echo "== import contracts (lint-imports) =="
.venv/bin/lint-imports --no-cache
rc=$?
[ $rc -ne 0 ] && status=$rc

echo "== test suite on SQLite =="
TEST_DATABASE_URL= .venv/bin/python -m pytest "$@"
rc=$?
[ $rc -ne 0 ] && status=$rc

pg_url="${TEST_DATABASE_URL:-}"
if [ -z "$pg_url" ] && .venv/bin/python - <<'PY' 2>/dev/null
import psycopg, sys
try:
    psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", connect_timeout=2).close()
except Exception:
    sys.exit(1)
PY
then
  pg_url="postgresql://postgres@127.0.0.1:5432/test"
fi

if [ -n "$pg_url" ]; then
  echo "== test suite on PostgreSQL ($pg_url) =="
  # The browser suite exercises the app, not the database: it runs once, above. So does the
  # Schemathesis run (tests/contract/test_schemathesis.py), which checks the document, not the database.
  TEST_DATABASE_URL="$pg_url" .venv/bin/python -m pytest -m "not browser and not schemathesis" "$@"
  rc=$?
  [ $rc -ne 0 ] && status=$rc
else
  skipped+=("PostgreSQL suite: no server reachable (set TEST_DATABASE_URL=postgresql://user@host:port/db to run it)")
fi
[ -x /usr/bin/chromium ] || skipped+=("browser suite: /usr/bin/chromium not installed (Debian package 'chromium')")
[ -x /usr/bin/WebKitWebDriver ] || skipped+=("WebKit suite (tests/webkit): /usr/bin/WebKitWebDriver not installed (Debian package 'webkit2gtk-driver')")
command -v Xvfb >/dev/null || skipped+=("WebKit suite (tests/webkit): Xvfb not installed (Debian package 'xvfb')")
.venv/bin/python -c "import selenium" 2>/dev/null || skipped+=("WebKit suite (tests/webkit): the selenium package is missing (pip install -e '.[test]')")

echo
if [ ${#skipped[@]} -gt 0 ]; then
  echo "Skipped suites:"
  for s in "${skipped[@]}"; do echo "  - $s"; done
fi
[ $status -eq 0 ] && echo "All suites that ran passed." || echo "FAILED (exit $status)"
exit $status
