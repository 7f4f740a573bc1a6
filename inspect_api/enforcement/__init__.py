"""Enforcement (R-O1..R-O3, R-P1..R-P2): orders, cost recovery and liens, citations and penalties."""
from ..config import setting_parser
from .rules import parse_rates

setting_parser("COST_INTEREST_RATES", parse_rates)
