"""Exports for GIS and the MS4 general permit annual report."""
