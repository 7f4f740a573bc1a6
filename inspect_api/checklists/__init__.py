"""Versioned inspection checklist templates (R-I3), seeded with the default ESC checklist."""
