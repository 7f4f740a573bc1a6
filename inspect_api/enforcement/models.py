"""Enforcement records (DOMAIN.md R-O, R-P): orders, town-performed abatement and its cost recovery,
violations, citations, and the fine schedule they use. Money is Numeric(14, 2), read as Decimal."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db
from ..seed import seeder
from .rules import COST_CATEGORIES, NOTICE_ROLES, PROTEST_DECISIONS, PROVISION_KINDS, SERVICE_METHODS, STORED_ORDER_STATUSES

Money = sa.Numeric(14, 2)


def _in(column: str, values: tuple[str, ...], name: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(sa.column(column).in_(values), name=name)


class Order(RecordMixin, db.Model):
    """An enforcement order of bylaw Enforcement §B(1) (R-O1): its kinds, requirements, the findings
    it rests on, a deadline, how it was served, and where it stands."""

    __tablename__ = "enforcement_orders"
    __sync_entity__ = "order"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    number: Mapped[str] = mapped_column(sa.String(20), unique=True, nullable=False)
    kinds: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    requirements: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)  # [{kind, text}]
    finding_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    issued_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    deadline: Mapped[date] = mapped_column(sa.Date, nullable=False, index=True)
    issued_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    # R-O1b: the issuing officer's title as printed in the signature block ("Stormwater Agent" ...).
    issuer_title: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    # R-O1b: the provisions or permit conditions violated: [{provision_kind, condition_id?, provision?}].
    violated: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    # R-O0, §B(3): the parties the order is addressed to (the violator and the owner).
    recipient_party_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    service_method: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    served_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    served_to: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)
    # Stored: open | complied | town_performed | closed. "overdue" is derived (rules.order_status).
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False, default="open", index=True)
    status_changed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    referral_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)      # R-P3 injunctive relief
    court_case_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)    # R-P3 appeals are to a court

    events: Mapped[list["OrderEvent"]] = relationship(order_by="OrderEvent.at", cascade="all, delete-orphan")

    __table_args__ = (
        _in("status", STORED_ORDER_STATUSES, "status"),
        sa.CheckConstraint(sa.or_(sa.column("service_method").is_(None),
                                  sa.column("service_method").in_(SERVICE_METHODS)), name="service_method"),
    )


class OrderEvent(db.Model):
    """A status move of an order, or a written response from the permit's applicant."""

    __tablename__ = "enforcement_order_events"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    order_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("enforcement_orders.id"), nullable=False, index=True)
    kind: Mapped[str] = mapped_column(sa.String(20), nullable=False)  # status | response
    from_status: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    to_status: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    actor_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)

    __table_args__ = (_in("kind", ("status", "response"), "kind"),)


class CostRecovery(RecordMixin, db.Model):
    """Abatement the Town performed after an order's deadline passed unmet (R-O2), and the recovery of
    its costs (R-O3): notice, protest, the SA's decision, a court decision, payments."""

    __tablename__ = "cost_recoveries"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    order_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("enforcement_orders.id"), nullable=False,
                                          index=True)
    description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    abatement_completed_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    decision: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)
    decided_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    decided_amount: Mapped[Decimal | None] = mapped_column(Money, nullable=True)
    decision_reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    decided_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    court_decision_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    court_amount: Mapped[Decimal | None] = mapped_column(Money, nullable=True)
    court_case_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    order: Mapped[Order] = relationship(viewonly=True)
    items: Mapped[list["CostItem"]] = relationship(order_by="CostItem.position", cascade="all, delete-orphan")
    payments: Mapped[list["CostPayment"]] = relationship(
        order_by=lambda: (CostPayment.paid_on, CostPayment.created_at), cascade="all, delete-orphan")
    recipients: Mapped[list["CostNotice"]] = relationship(
        order_by=lambda: (CostNotice.position, CostNotice.id), cascade="all, delete-orphan")
    lien_certificates: Mapped[list["LienCertificate"]] = relationship(
        order_by=lambda: (LienCertificate.produced_at, LienCertificate.id), cascade="all, delete-orphan")

    __table_args__ = (
        sa.CheckConstraint(sa.or_(sa.column("decision").is_(None), sa.column("decision").in_(PROTEST_DECISIONS)),
                           name="decision"),
    )


class CostNotice(db.Model):
    """The notice of costs to one recipient, the violator or the owner (R-O3: "the violator and the
    property owner" are each notified), with its own receipt and so its own 30-day protest window."""

    __tablename__ = "cost_notices"
    __table_args__ = (_in("role", NOTICE_ROLES, "role"),
                      sa.UniqueConstraint("cost_recovery_id", "role", "name", name="uq_cost_notices_recipient"))

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    cost_recovery_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("cost_recoveries.id"), nullable=False,
                                                  index=True)
    position: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
    party_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("parties.id"), nullable=True)
    role: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    mailing_address: Mapped[str | None] = mapped_column(sa.String(500), nullable=True)
    method: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    sent_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    received_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    protest_filed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    protest_text: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    protest_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)


class LienCertificate(db.Model):
    """R-O3: a lien certificate (notice of special assessment to the Collector) as it was produced: the
    lien date and amount it states and its PDF bytes, kept and never replaced. Statements are computed
    when read, so a lien date may move (a receipt, protest or decision recorded later, or a corrected
    rule); the certificate then stays as it was, marked superseded, and the next one states the new date."""

    __tablename__ = "lien_certificates"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    cost_recovery_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("cost_recoveries.id"), nullable=False,
                                                  index=True)
    lien_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    lien_amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    produced_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    produced_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    produced_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    sha256: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    storage_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    # Set when the lien date it states was found to have moved; kept, never deleted.
    superseded_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class CostItem(db.Model):
    __tablename__ = "cost_items"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    cost_recovery_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("cost_recoveries.id"), nullable=False,
                                                  index=True)
    position: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    category: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    description: Mapped[str] = mapped_column(sa.String(500), nullable=False)
    amount: Mapped[Decimal] = mapped_column(Money, nullable=False)

    __table_args__ = (_in("category", COST_CATEGORIES, "category"),)


class CostPayment(db.Model):
    __tablename__ = "cost_payments"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    cost_recovery_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("cost_recoveries.id"), nullable=False,
                                                  index=True)
    paid_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    reference: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    recorded_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)


class Violation(RecordMixin, db.Model):
    """A breach of one permit condition or one provision (bylaw, ESC plan, O&M plan: R-C3, R-C4) over
    a run of days, with the evidence it rests on (R-P1)."""

    __tablename__ = "violations"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    provision_kind: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    condition_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permit_conditions.id"), nullable=True,
                                                     index=True)
    provision: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)  # e.g. "194-21(C)" or plan item
    description: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    first_observed_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    last_observed_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)  # None: ongoing
    finding_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    photo_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    inspection_ids: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    referral_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    court_case_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    __table_args__ = (_in("provision_kind", PROVISION_KINDS, "provision_kind"),)


class Citation(RecordMixin, db.Model):
    """A non-criminal disposition ticket (R-P2, MGL c.40 §21D). The fine is the town schedule's, fixed
    when issued; a contested ticket goes to court, which decides."""

    __tablename__ = "citations"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    violation_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("violations.id"), nullable=False, index=True)
    number: Mapped[str] = mapped_column(sa.String(20), unique=True, nullable=False)
    violator_name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    violator_key: Mapped[str] = mapped_column(sa.String(200), nullable=False, index=True)
    violator_address: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)
    provision_key: Mapped[str] = mapped_column(sa.String(340), nullable=False)
    offense_on: Mapped[date] = mapped_column(sa.Date, nullable=False)
    bylaw_section: Mapped[str] = mapped_column(sa.String(100), nullable=False)
    offense_number: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    fine_amount: Mapped[Decimal] = mapped_column(Money, nullable=False)
    delivery_method: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    delivered_on: Mapped[date | None] = mapped_column(sa.Date, nullable=True)
    notes: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    court_case_note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    __table_args__ = (
        # Each day is one offense per violator and provision: a second ticket for it is a duplicate.
        sa.UniqueConstraint("violator_key", "provision_key", "offense_on", name="uq_citations_offense"),
    )


class FineSchedule(db.Model):
    """The town's fine schedule for non-criminal disposition (R-P2): configuration, not law."""

    __tablename__ = "fine_schedules"

    key: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    first_offense: Mapped[Decimal] = mapped_column(Money, nullable=False)
    second_offense: Mapped[Decimal] = mapped_column(Money, nullable=False)
    third_and_subsequent: Mapped[Decimal] = mapped_column(Money, nullable=False)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=1)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, onupdate=clock_now)
    updated_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)


# Defaults for a fresh town: plausible amounts under the $300 cap of MGL c.40 §21D. The Town's own
# schedule is configuration a supervisor sets with PUT /fine-schedule; the seeder never overwrites it.
DEFAULT_FINE_SCHEDULE = {"first_offense": Decimal("100.00"), "second_offense": Decimal("200.00"),
                         "third_and_subsequent": Decimal("300.00")}


@seeder
def seed_fine_schedule() -> None:
    if db.session.get(FineSchedule, "default") is None:
        db.session.add(FineSchedule(key="default", **DEFAULT_FINE_SCHEDULE))
