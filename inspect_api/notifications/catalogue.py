"""Every kind of message the Town sends, who gets it, and whether a user may switch it off.

`required`: a notice the bylaw requires (stored on the message as `required`, the evidence that it
had to be sent). `always`: sent whatever a user's preferences: every required notice, and the
security notice of a revoked device. Everything else follows the user's preferences
(GET/PUT /api/v1/me/notification-preferences); a party without an account has no preferences and
gets every message meant for them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    name: str
    label: str
    roles: tuple[str, ...]  # the user roles that receive it, for the preferences screen
    required: bool = False
    security: bool = False

    @property
    def always(self) -> bool:
        return self.required or self.security


APPLICANT = ("applicant",)
SUPERVISOR = ("supervisor",)

EVENTS: dict[str, Event] = {e.name: e for e in (
    Event("application_received", "Application received", APPLICANT),
    # A decision on an application starts the applicant's obligations (or ends the project): the
    # applicant is always told, and of the reason for a denial (R-C2, bylaw §C).
    Event("application_decided", "Application approved, issued or denied", APPLICANT, required=True),
    Event("exemption_decided", "Exemption claim accepted or rejected", APPLICANT),
    Event("inspection_approved", "Inspection findings to correct", APPLICANT),
    Event("finding_overdue", "A finding's correction is overdue", APPLICANT),
    Event("order_issued", "Enforcement order issued", APPLICANT, required=True),         # §B(1)-(3)
    Event("cost_notice_sent", "Notice of costs", APPLICANT, required=True),              # §B(3), R-O3
    # R-O3: the SA's decision starts the 30 days after which unpaid costs become a lien.
    Event("protest_decided", "Decision on a protest of costs", APPLICANT, required=True),
    Event("certificate_issued", "Certificate of completion issued", APPLICANT),
    Event("bond_released", "Bond or security released", APPLICANT),
    # R-P2, MGL c.40 §21D: the cited person has 21 days to pay or ask for a hearing.
    Event("citation_written", "Citation written", APPLICANT, required=True),
    Event("device_revoked", "A device of yours was revoked", ("applicant", "inspector", "supervisor", "admin"),
          security=True),
    # Reminders (reminders.py), sent by the daily pass.
    Event("reminder_finding_due", "Reminder: a finding is due tomorrow", APPLICANT),
    Event("reminder_order_deadline", "Reminder: an order's deadline is in 3 days", APPLICANT),
    Event("reminder_final_report_due", "Reminder: final report due in 60 and 30 days", APPLICANT),
    Event("reminder_protest_window", "Reminder: the protest window is closing", APPLICANT),
    Event("reminder_cost_notice_due", "Reminder: the Town's notice of costs is due", SUPERVISOR),
    Event("reminder_certificate_waiting", "Reminder: a certificate of completion waits", SUPERVISOR),
    Event("reminder_bond_release_waiting", "Reminder: a bond release waits", SUPERVISOR),
    # A resident who reported a problem and left an e-mail (no account, so no preferences): in their language.
    Event("public_report_received", "Your report from the public was received", ()),
    Event("public_report_triaged", "What the Town did about your report", ()),
    # The audit trail's daily seal, to AUDIT_SEAL_TO outside the system (e.g. the Town Clerk).
    Event("audit_day_sealed", "A day of the audit trail sealed", (), required=True),
)}


def event(name: str) -> Event:
    return EVENTS[name]


def switchable(role: str) -> list[Event]:
    """The messages a user of `role` may switch off, in catalogue order."""
    return [e for e in EVENTS.values() if not e.always and role in e.roles]
