"""Performance bonds and other security, split by phase, and their releases (R-D)."""
