"""Versioned inspection checklist templates (R-I3), seeded with the default ESC checklist."""
from . import defaults  # noqa: F401  (registers the seeder of the default checklist)
