"""What notifications does when a domain tells what happened (signals.py): the message of each signal.

The domains send their signals inside the request's transaction, after the change is flushed; each
receiver here writes its messages to the outbox there and then, so the messages are committed with
the change or rolled back with it. `connect()` is called by the app factory: blinker's signals are
process globals that outlive any one app, so every receiver is a module-level function connected
strongly (weak=False), and connecting again (another app in the same process) changes nothing.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import signals
from . import audit_seal_mail, enforcement_notices, events


def _permit_moved(permit: Any, *, to: str, reason: str | None, actor: Any, **_: Any) -> list[Any]:
    return events.permit_moved(permit, to, reason, actor)


def _exemption_decided(claim: Any, *, permit: Any, actor: Any, **_: Any) -> list[Any]:
    return events.exemption_decided(permit, claim, actor)


def _inspection_approved(inspection: Any, *, actor: Any, **_: Any) -> list[Any]:
    return events.inspection_approved(inspection, actor)


def _order_issued(order: Any, *, actor: Any, only: list[str] | None = None, **_: Any) -> list[Any]:
    return enforcement_notices.order_issued(order, actor, only=only)


def _costs_notified(record: Any, *, notices: list[Any], actor: Any, **_: Any) -> list[Any]:
    return enforcement_notices.cost_notice_sent(record, notices, actor)


def _protest_decided(record: Any, *, actor: Any, **_: Any) -> list[Any]:
    return events.protest_decided(record, actor)


def _citation_created(citation: Any, *, actor: Any, **_: Any) -> list[Any]:
    return events.citation_written(citation, actor)


def _certificate_issued(cert: Any, *, permit: Any, actor: Any, **_: Any) -> list[Any]:
    return events.certificate_issued(cert, permit, actor)


def _bond_released(bond: Any, *, release: Any, actor: Any, **_: Any) -> list[Any]:
    return events.bond_released(bond, release, actor)


def _device_revoked(device: Any, *, actor: Any, **_: Any) -> list[Any]:
    return events.device_revoked(device, actor)


def _public_report_received(report: Any, **_: Any) -> list[Any]:
    return events.public_report_received(report)


def _public_report_triaged(report: Any, *, actor: Any, **_: Any) -> list[Any]:
    return events.public_report_triaged(report, actor)


def _public_report_contacts_erased(_sender: Any, *, report_ids: list[str], **_: Any) -> int:
    return events.public_report_contacts_erased(report_ids)


RECEIVERS: dict[signals.DomainSignal, Callable[..., list[Any]]] = {
    signals.permit_moved: _permit_moved,
    signals.exemption_decided: _exemption_decided,
    signals.inspection_approved: _inspection_approved,
    signals.order_issued: _order_issued,
    signals.costs_notified: _costs_notified,
    signals.protest_decided: _protest_decided,
    signals.citation_created: _citation_created,
    signals.certificate_issued: _certificate_issued,
    signals.bond_released: _bond_released,
    signals.device_revoked: _device_revoked,
    signals.public_report_received: _public_report_received,
    signals.public_report_triaged: _public_report_triaged,
    signals.audit_day_sealed: audit_seal_mail.seal_mailed,
}
# Signals that tell no one anything but on which the outbox keeps its own records in step.
UPKEEP: dict[signals.DomainSignal, Callable[..., Any]] = {
    signals.public_report_contacts_erased: _public_report_contacts_erased,
}


def connect() -> None:
    """Connect every receiver to its signal; idempotent (blinker keeps one connection per receiver)."""
    for signal, receiver in {**RECEIVERS, **UPKEEP}.items():
        signal.connect(receiver, weak=False)


__all__ = ["RECEIVERS", "UPKEEP", "connect"]
