"""The public's API and the office's queue of reports (API.md "Public"), and the public's pages.

Each module below serves one part; `blueprints` is what create_app registers, in this order."""
from __future__ import annotations

blueprints: list = []
