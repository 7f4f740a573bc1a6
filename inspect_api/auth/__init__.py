"""Accounts, roles, sign-in sessions (one per device) and the role checks every route uses."""
