"""The inspection program: due inspections, storm events and applicants' inspection requests (R-I1, R-I4)."""
