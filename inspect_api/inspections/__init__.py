"""Inspections with checklists (R-I), findings and corrective actions (R-I4), supervisor review (R-I5)."""
