"""Domain events: what happened in a domain, told to whoever listens.

A domain service sends its signal right after its change is flushed and its audit row written, and
imports nothing but this module to do it: the packages above it (notifications) connect receivers,
so a domain never reaches up to the messages its change causes. Each signal is named after the audit
action it follows, in the past tense; its docstring names the sender and the keyword arguments.

Receivers run synchronously, in the sender's thread and in the request's transaction: what they
write (outbox rows) is rolled back with the request, savepoints included. A trial run of a service
whose result is always thrown away (sync/rights.py asks a service whether a user may make a change)
mutes them for its context with `muted()`.

`MUST_NOTIFY` are the signals that someone must be told of; `check_receivers()` (called by the app
factory) refuses to start an app where one of them has no receiver, so a message the bylaw or the
Town requires cannot silently stop being written.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

from blinker import NamedSignal, Namespace

# Per context (a thread, or an asyncio task), not per process: see muted().
_muted: ContextVar[bool] = ContextVar("inspect_api.signals.muted", default=False)


class DomainSignal(NamedSignal):
    """A signal whose send reaches no receiver while the sending context is muted."""

    def send(self, sender: Any | None = None, /, *, _async_wrapper: Any = None,
             **kwargs: Any) -> list[tuple[Any, Any]]:
        if _muted.get():
            return []
        return super().send(sender, _async_wrapper=_async_wrapper, **kwargs)

    async def send_async(self, sender: Any | None = None, /, *, _sync_wrapper: Any = None,
                         **kwargs: Any) -> list[tuple[Any, Any]]:
        if _muted.get():
            return []
        return await super().send_async(sender, _sync_wrapper=_sync_wrapper, **kwargs)


class _Namespace(Namespace):
    def signal(self, name: str, doc: str | None = None) -> DomainSignal:
        if name not in self:
            self[name] = DomainSignal(name, doc)
        return self[name]  # type: ignore[return-value]


_signals = _Namespace()


@contextmanager
def muted() -> Iterator[None]:
    """No signal sent in this context reaches a receiver until the block ends.

    Not blinker's `Signal.muted()`: that flips a flag on the signal itself, a process global, and
    would silence the signal for every other thread's request for as long as the block runs. This
    mutes only the context (thread or task) that enters it."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def is_muted() -> bool:
    return _muted.get()


# --- applications (R-C2) and exemption claims (R-B1) ----------------------------------------------
permit_moved = _signals.signal("permit.moved", """An application or permit moved along R-C2 (audit
`permit.transition`). Sender: the Permit, as moved. Keywords: `to` (the new status), `reason`
(str or None), `actor` (the User who moved it, or None).""")

exemption_decided = _signals.signal("exemption.decided", """A supervisor accepted or rejected an
exemption claim (R-B1; audit `exemption.decide`). Sender: the PermitExemption. Keywords: `permit`
(its Permit), `actor` (the deciding User).""")

# --- inspections (R-I5) ----------------------------------------------------------------------------
inspection_approved = _signals.signal("inspection.approved", """A supervisor approved an inspection
(R-I5; audit `inspection.approved`). Sender: the Inspection. Keywords: `actor` (the approving User).""")

# --- enforcement: orders (R-O1), costs (R-O3), citations (R-P2) ------------------------------------
order_issued = _signals.signal("order.issued", """An order was issued to its recipient parties (R-O1,
§B(3); audit `order.create`), or an issued order was addressed to more parties (audit `order.update`).
Sender: the Order. Keywords: `actor` (the issuing User), `only` (None for every recipient party, or
the ids of the parties just added).""")

costs_notified = _signals.signal("cost_recovery.notified", """Notices of costs were recorded as sent
(R-O3; audit `cost_recovery.update`). Sender: the CostRecovery. Keywords: `notices` (the CostNotice
rows whose sent date was just recorded), `actor` (the recording User).""")

protest_decided = _signals.signal("cost_recovery.decided", """The SA decided a protest of costs
(R-O3; audit `cost_recovery.decision`). Sender: the CostRecovery. Keywords: `actor` (the deciding
User).""")

citation_created = _signals.signal("citation.created", """A citation was written (R-P2; audit
`citation.create`). Sender: the Citation. Keywords: `actor` (the writing User).""")

# --- completion (R-F3) and bonds (R-D2, R-D3) ------------------------------------------------------
certificate_issued = _signals.signal("certificate.issued", """A certificate of completion was issued
and its permit closed (R-F3; audit `certificate.issue`). Sender: the Certificate. Keywords: `permit`
(its Permit), `actor` (the issuing User).""")

bond_released = _signals.signal("bond.released", """Security was released from a bond (R-D2, R-D3;
audit `bond.release`). Sender: the Bond, with its released amount updated. Keywords: `release` (the
BondRelease), `actor` (the releasing User).""")

# --- accounts ---------------------------------------------------------------------------------------
device_revoked = _signals.signal("device.revoked", """A device was revoked: its sessions ended and its
syncs are refused from now on (audit `device.revoke`; sent only the first time). Sender: the Device.
Keywords: `actor` (the revoking User).""")

# --- the public (MS4 permit, 40 CFR 122.34(b)(4)(ii)) ---------------------------------------------
public_report_received = _signals.signal("public_report.received", """A report from the public was
received (audit `public_report.create`). Sender: the PublicReport. Keywords: none.""")

public_report_triaged = _signals.signal("public_report.triaged", """A supervisor triaged a report from
the public with a public answer: linked it to a permit or case, opened a case from it, or closed it (audit
`public_report.triage`). Sender: the PublicReport, as triaged. Keywords: `actor` (the supervisor).""")

public_report_contacts_erased = _signals.signal("public_report.contacts_erased", """The contact details of
reports closed PUBLIC_REPORT_CONTACT_DAYS ago were erased (audit `public_report.contact_erase`, one row
each). Sender: None. Keywords: `report_ids` (the ids of the reports erased).""")

audit_day_sealed = _signals.signal("audit.day_sealed", """A finished day of the audit log was sealed
(inspect_api/audit_seals.py). Sender: the AuditSeal. Keywords: `fields` (its SEAL_FIELDS plus
seal_hash, day as an ISO date).""")

# Every one of these tells someone something: a required notice of the bylaw, a security notice, or a
# message the people of a permit rely on. An app with no receiver for one of them does not start.
MUST_NOTIFY: tuple[DomainSignal, ...] = (
    permit_moved, exemption_decided, inspection_approved, order_issued, costs_notified, protest_decided,
    citation_created, certificate_issued, bond_released, device_revoked, public_report_received,
    public_report_triaged, audit_day_sealed,
)


def unheard() -> list[str]:
    """The names of the must-notify signals that no receiver is connected to."""
    return [signal.name for signal in MUST_NOTIFY if not signal.receivers]


def check_receivers() -> None:
    """Refuse to go on (RuntimeError naming them) while a must-notify signal has no receiver."""
    missing = unheard()
    if missing:
        raise RuntimeError("No receiver is connected to the signals that must notify: " + ", ".join(missing)
                           + " (inspect_api/signals.py MUST_NOTIFY).")


__all__ = ["DomainSignal", "MUST_NOTIFY", "audit_day_sealed", "bond_released", "certificate_issued", "check_receivers",
           "citation_created", "costs_notified", "device_revoked", "exemption_decided", "inspection_approved",
           "is_muted", "muted", "order_issued", "permit_moved", "protest_decided", "public_report_contacts_erased",
           "public_report_received", "public_report_triaged", "unheard"]
