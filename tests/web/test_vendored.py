"""The map library the field app loads is the locked npm package's, byte for byte."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "vendor_leaflet.py"


def _vendor():
    spec = importlib.util.spec_from_file_location("vendor_leaflet", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vendored_leaflet_is_the_locked_version():
    vendor = _vendor()
    assert vendor.vendored_version() == vendor.locked_version() == "1.9.4"
    assert (vendor.TARGET / "LICENSE.txt").read_text(encoding="utf-8").startswith("BSD 2-Clause License")


def test_the_vendored_files_match_the_installed_package_byte_for_byte():
    vendor = _vendor()
    if not vendor.PACKAGE.is_dir():
        pytest.skip("node_modules/leaflet is not installed (run `npm ci`): only the version was compared")
    assert vendor.check() == []


def test_a_changed_vendored_byte_is_caught(tmp_path, monkeypatch):
    vendor = _vendor()
    if not vendor.PACKAGE.is_dir():
        pytest.skip("node_modules/leaflet is not installed (run `npm ci`)")
    copy = tmp_path / "leaflet"
    copy.mkdir()
    for source, target in vendor.pairs():
        dest = copy / target.relative_to(vendor.TARGET)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(source.read_bytes())
    css = copy / "leaflet.css"
    css.write_bytes(css.read_bytes().replace(b"}", b" }", 1))
    monkeypatch.setattr(vendor, "TARGET", copy)
    assert vendor.check() == [f"{css} differs from node_modules/leaflet/dist/leaflet.css"]
