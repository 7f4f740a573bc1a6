"""Permit records (R-C), determinations (R-A, R-B), exemptions, assignments and the status flow."""
