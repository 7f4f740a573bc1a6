"""The import contracts of pyproject.toml ([tool.importlinter], README "Layers") hold, and each one
fails when an import breaks it: a copy of the package with one probe import added is linted, and
the contracts the probe breaks, and only those, are reported broken. Imports inside functions
count like those at the top of a module."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")
CONTRACTS = {
    "layers": "Domains import only the domains below them",
    "core": "The shared core imports no domain",
    "rules": "Rules are plain Python: no Flask, no SQLAlchemy, no extensions",
    "cycles": "No two modules of one package import each other, directly or through others",
}

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (pip install -e '.[test]')")


def _lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300)


def _verdicts(output: str) -> dict[str, str]:
    found = {}
    for key, name in CONTRACTS.items():
        for line in output.splitlines():
            if line.startswith(name + " "):
                found[key] = line.rsplit(" ", 1)[-1]
    return found


def test_the_app_keeps_every_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _verdicts(result.stdout) == {key: "KEPT" for key in CONTRACTS}


# contract -> (module to change, lines to add at its end, every contract they break): each a realistic
# wrong turn. An import up the stack also closes a loop between packages (bonds imports permits).
PROBES = {
    "layers": ("permits/services.py", "def _probe():\n    from ..bonds.models import Bond  # permits asking bonds\n",
               {"layers", "cycles"}),
    # Every domain imports records: through it, each would reach sync, above them all.
    "core": ("records.py", "from .sync import registry as _probe  # the core reaching into sync\n",
             {"core", "layers", "cycles"}),
    "rules": ("permits/rules.py", "import sqlalchemy as _probe  # a rule module touching the database\n", {"rules"}),
    "cycles": ("permits/access.py", "def _probe():\n    from . import services  # services imports access\n",
               {"cycles"}),
}


@pytest.mark.parametrize("contract", sorted(PROBES))
def test_a_probe_import_breaks_its_contract(tmp_path, contract):
    shutil.copytree(ROOT / "inspect_api", tmp_path / "inspect_api",
                    ignore=shutil.ignore_patterns("__pycache__", "static", "fonts", "migrations"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    module, line, broken = PROBES[contract]
    with open(tmp_path / "inspect_api" / module, "a", encoding="utf-8") as fh:
        fh.write("\n\n" + line)
    result = _lint(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    verdicts = _verdicts(result.stdout)
    assert verdicts[contract] == "BROKEN", result.stdout
    assert {key for key, verdict in verdicts.items() if verdict == "BROKEN"} == broken, result.stdout


def test_every_module_of_the_package_sits_in_a_row():
    """A new top-level module or package must be placed: in the layers (a domain) or in the core's
    list (imports no domain). Otherwise no contract would see what it imports."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    placed = set()
    for contract in contracts:
        if contract["type"] == "layers":
            placed |= {name.strip() for layer in contract["layers"] for name in layer.split("|")}
        if contract["name"] == CONTRACTS["core"]:
            placed |= set(contract["source_modules"])
    package = ROOT / "inspect_api"
    found = {f"inspect_api.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    found |= {f"inspect_api.{p.name}" for p in package.iterdir() if (p / "__init__.py").exists()}
    assert sorted(found - placed) == []
