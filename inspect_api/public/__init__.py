"""The public, with no account (MS4 permit, 40 CFR 122.34(b)(4)(ii)): permits anyone can look up,
reports from residents of what they saw at a site, and the office's queue that answers them.

Nothing here is synced to devices; a report is never public: its author reads only its status and the
Town's public answer, by a reference that cannot be guessed by counting."""
from ..config import setting_parser
from .rules import parse_rate_limit

setting_parser("PUBLIC_REPORT_RATE_LIMIT", parse_rate_limit)
