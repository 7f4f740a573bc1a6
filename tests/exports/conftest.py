"""Fixtures for the case file: the signing test PKI and its timestamp authority (tests/signing), so
the order in the file is signed as a town's would be, and the enforcement cast and Town clock."""
from __future__ import annotations

from ..signing.conftest import cast, config, pki, town_clock, tsa  # noqa: F401  (fixtures)
