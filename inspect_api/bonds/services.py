"""Bonds (R-D): load, check, change, flush (never commit).

Every change that depends on what has been released already (a release, a new amount or split) first
locks the bond row: SELECT ... FOR UPDATE on PostgreSQL; on SQLite every write transaction begins with
BEGIN IMMEDIATE, which serialises writers. Two concurrent releases therefore run one after the other,
and the second sees the first's total.
"""
from __future__ import annotations

from datetime import date, timezone
from decimal import Decimal
from typing import Any, Iterable

from sqlalchemy import Select, select

from .. import audit, signals
from ..auth.permissions import current_device_id
from ..completion.certificates import certificate_for_permit, closeout_basis
from ..completion.rules import closeout_kind
from ..errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, load_collections, page_list, page_query
from ..permits.access import get_visible_permit, permit_visible
from ..clock import today as local_today
from ..permits.models import Permit, PermitPhase
from ..records import check_version, existing_for_create
from . import rules
from .models import Bond, BondPhase, BondRelease
from .schemas import BondSchema

_FIELDS = ("form", "form_description", "issuer", "reference", "received_on", "notes")


def visible_bonds(user) -> Select:
    return select(Bond).where(permit_visible(Bond.permit_id, user))


def get_bond(user, record_id: str, *, for_update: bool = False) -> Bond:
    query = visible_bonds(user).where(Bond.id == str(record_id))
    if for_update:
        # populate_existing: a copy loaded earlier in this session must not hide another request's release.
        query = query.with_for_update(of=Bond).execution_options(populate_existing=True)
    bond = db.session.scalar(query)
    if bond is None:
        raise NotFound("No such bond.")
    if for_update:
        db.session.expire(bond, ["phases", "releases"])
    return bond


def _require_supervisor(user) -> None:
    if user.role != "supervisor":
        raise Forbidden("Only supervisors record bonds and release them.")


def _raise(problem: rules.Problem) -> None:
    errors = {problem.field: [problem.message]} if problem.field else {}
    if problem.state:
        raise Conflict(problem.message, error=problem.error, errors=errors)
    raise ValidationFailed(problem.message, error=problem.error, errors=errors)


def _phase_shares(permit_id: str, phases: list[dict[str, Any]], amount: Decimal) -> list[BondPhase]:
    errors = rules.allocation_problems(amount, [(str(p["phase_id"]), p["amount"]) for p in phases])
    known = set(db.session.scalars(select(PermitPhase.id).where(PermitPhase.permit_id == permit_id)))
    foreign = [str(p["phase_id"]) for p in phases if str(p["phase_id"]) not in known]
    if foreign:
        errors.setdefault("phases", []).append("Not phases of this permit: " + ", ".join(foreign) + ".")
    if errors:
        raise ValidationFailed("The split by phase is not valid (R-D1).", errors=errors)
    return [BondPhase(phase_id=str(p["phase_id"]), amount=p["amount"], position=i) for i, p in enumerate(phases)]


def _merge_shares(current: list[BondPhase], wanted: list[BondPhase]) -> list[BondPhase]:
    """Keep the row of a phase that stays (a delete and insert of the same phase in one flush would collide
    with the one-share-per-phase constraint)."""
    kept = {share.phase_id: share for share in current}
    merged = []
    for share in wanted:
        row = kept.get(share.phase_id)
        if row is not None:
            row.amount, row.position = share.amount, share.position
            share = row
        merged.append(share)
    return merged


def _content(bond: Bond) -> dict[str, Any]:
    return {**{k: getattr(bond, k) for k in _FIELDS}, "amount": rules.money(bond.amount),
            "phases": [(p.phase_id, rules.money(p.amount)) for p in bond.phases]}


def create_bond(user, data: dict[str, Any]) -> tuple[Bond, bool]:
    """R-D1: the security the SA requires, in the amount it sets, optionally split by phase (supervisor)."""
    permit = get_visible_permit(user, data["permit_id"])
    _require_supervisor(user)
    draft = Bond(permit_id=permit.id, amount=data["amount"], released_amount=rules.ZERO,
                 **{k: data.get(k) for k in _FIELDS})
    draft.phases = _phase_shares(permit.id, data.get("phases") or [], data["amount"])
    wanted = _content(draft)
    existing = existing_for_create(Bond, data.get("id") and str(data["id"]),
                                   lambda b: b.permit_id == permit.id and _content(b) == wanted)
    if existing is not None:
        return existing, False
    draft.id = str(data["id"]) if data.get("id") else None
    draft.created_by, draft.device_id = user.id, current_device_id()
    device_clock = data.get("device_created_at")
    draft.device_created_at = device_clock.astimezone(timezone.utc) if device_clock else None
    db.session.add(draft)
    db.session.flush()
    audit.record("bond.create", "bond", draft.id, wanted, actor=user, permit_id=permit.id)
    return draft, True


def update_bond(user, record: Bond, data: dict[str, Any], expected_version: int | None) -> Bond:
    """Correct a bond's facts; the amount and split only so far as the releases made allow (supervisor)."""
    _require_supervisor(user)
    bond = get_bond(user, record.id, for_update=True)
    check_version(bond, expected_version, dump_bond)
    before = _content(bond)
    amount = data.get("amount", bond.amount)
    problem = rules.amount_problem(rules.money(amount), rules.money(bond.released_amount),
                                   full_release_allowed=_full_release_allowed(bond.permit_id))
    if problem:
        _raise(problem)
    if "phases" in data or "amount" in data:
        wanted = data["phases"] if "phases" in data else [{"phase_id": p.phase_id, "amount": p.amount}
                                                         for p in bond.phases]
        released = {r.phase_id for r in bond.releases if r.phase_id}
        kept = {str(p["phase_id"]): p["amount"] for p in wanted}
        changed = [p.phase_id for p in bond.phases
                   if p.phase_id in released and rules.money(kept.get(p.phase_id)) != rules.money(p.amount)]
        if changed:
            raise Conflict("A phase whose share was released cannot be removed or changed.",
                           error="phase_already_released", errors={"phases": changed})
        shares = _phase_shares(bond.permit_id, wanted, amount)
        if "phases" in data:
            bond.phases = _merge_shares(bond.phases, shares)
    bond.amount = amount
    for key in _FIELDS:
        if key in data:
            setattr(bond, key, data[key])
    bond.bump_version()
    db.session.flush()
    audit.record("bond.update", "bond", bond.id, audit.diff(before, _content(bond)), actor=user,
                 permit_id=bond.permit_id)
    return bond


def _completion(permit_id: str) -> dict[str, Any]:
    """The facts R-D3 rests on: the record the permit closes with (the completion notice of an
    administrative review stands for the final report), whether it is accepted, and the certificate."""
    permit = db.session.get(Permit, permit_id)
    basis = closeout_basis(permit)
    return {"closeout_kind": closeout_kind(permit.review_level),
            "basis_accepted": basis is not None and basis.status == "accepted",
            "certificate_issued": certificate_for_permit(permit_id) is not None}


def _full_release_allowed(permit_id: str) -> bool:
    return not rules.full_release_missing(**_completion(permit_id))


def _check_release(bond: Bond, data: dict[str, Any], released_on: date) -> tuple[Decimal, str | None]:
    """The amount to release and its phase, or the problem that forbids it (R-D2, R-D3)."""
    released, bond_amount = rules.money(bond.released_amount), rules.money(bond.amount)
    problem = rules.release_date_problem(released_on, bond.received_on, local_today())
    if problem:
        _raise(problem)
    if data["kind"] == "full":
        problem = rules.full_release_problem(**_completion(bond.permit_id), bond_amount=bond_amount,
                                             released=released, amount=data.get("amount"))
        if problem:
            _raise(problem)
        return bond_amount - released, None
    phase_id = str(data.get("phase_id") or "")
    if not phase_id:
        raise ValidationFailed("A partial release names the phase it releases.", errors={"phase_id": ["Required."]})
    share = next((p for p in bond.phases if p.phase_id == phase_id), None)
    phase = db.session.get(PermitPhase, phase_id) if share else None
    amount = data.get("amount") or (rules.money(share.amount) if share else rules.ZERO)
    problem = rules.partial_release_problem(
        phase_on_bond=share is not None, phase_share=rules.money(share.amount) if share else None,
        completed_in_compliance=bool(phase and phase.completed_in_compliance),
        completed_on=phase.completed_on if phase else None,
        already_released=any(r.phase_id == phase_id for r in bond.releases),
        amount=amount, bond_amount=bond_amount, released=released, released_on=released_on,
        full_release_allowed=_full_release_allowed(bond.permit_id))
    if problem:
        _raise(problem)
    return amount, phase_id


def release_bond(user, bond_id: str, data: dict[str, Any]) -> tuple[BondRelease, bool]:
    """Release one phase's share (partial, R-D2) or the rest (full, R-D3), with the bond row locked."""
    _require_supervisor(user)
    bond = get_bond(user, bond_id, for_update=True)
    if data.get("id"):
        existing = db.session.get(BondRelease, str(data["id"]))
        if existing is not None:
            if existing.bond_id == bond.id and existing.kind == data["kind"] and \
                    (data.get("phase_id") is None or existing.phase_id == str(data["phase_id"])):
                return existing, False
            raise Conflict("A different release already has this id.", error="conflict")
    released_on = data.get("released_on") or local_today()
    amount, phase_id = _check_release(bond, data, released_on)
    release = BondRelease(id=str(data["id"]) if data.get("id") else None, bond_id=bond.id, phase_id=phase_id,
                          kind=data["kind"], amount=amount, released_on=released_on, released_by=user.id,
                          note=data.get("note"))
    bond.releases.append(release)
    bond.released_amount = rules.money(bond.released_amount) + amount
    bond.bump_version()
    db.session.flush()
    audit.record("bond.release", "bond", bond.id, {"release_id": release.id, "kind": release.kind,
                                                   "phase_id": phase_id, "amount": amount,
                                                   "released_amount": bond.released_amount},
                 actor=user, permit_id=bond.permit_id)
    signals.bond_released.send(bond, release=release, actor=user)  # the applicant is told
    return release, True


def release_view(release: BondRelease) -> dict[str, Any]:
    return {"id": release.id, "kind": release.kind, "phase_id": release.phase_id, "amount": release.amount,
            "released_on": release.released_on, "by": release.released_by, "note": release.note,
            "created_at": release.created_at}


def list_bonds(user, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """One page of the bonds `user` may see, as views. The status is worked out from the amounts, so a
    status filter is applied to the bonds before the page is cut."""
    query = visible_bonds(user)
    if args.get("permit_id"):
        query = query.where(Bond.permit_id == str(args["permit_id"]))
    query = query.order_by(Bond.created_at, Bond.id)
    if not args.get("status"):
        bonds, total = page_query(query, args)
        return bond_views(bonds), total
    bonds, total = page_list([b for b in db.session.scalars(query) if _status(b) == args["status"]], args)
    return bond_views(bonds), total


def _status(bond: Bond) -> str:
    return rules.bond_status(rules.money(bond.amount), rules.money(bond.released_amount))


def bond_views(bonds: Iterable[Bond]) -> list[dict[str, Any]]:
    """The views of `bonds`: their shares, releases and the permit phases the shares name are loaded
    for all of them at once (one query each), so a page costs what one bond costs."""
    bonds = list(bonds)
    load_collections(bonds, Bond.phases, Bond.releases)
    ids = sorted({share.phase_id for bond in bonds for share in bond.phases})
    phases: dict[str, PermitPhase] = {}
    for chunk in chunks(ids):
        phases.update({p.id: p for p in db.session.scalars(
            select(PermitPhase).where(PermitPhase.id.in_(chunk)))})
    return [_bond_view(bond, phases) for bond in bonds]


def bond_view(bond: Bond) -> dict[str, Any]:
    return bond_views([bond])[0]


def _bond_view(bond: Bond, phases: dict[str, PermitPhase]) -> dict[str, Any]:
    released_phases = {r.phase_id for r in bond.releases}
    amount, released = rules.money(bond.amount), rules.money(bond.released_amount)
    return {
        **{k: getattr(bond, k) for k in ("id", "permit_id", *_FIELDS, "version", "created_at", "updated_at",
                                         "created_by", "device_id", "device_created_at")},
        "amount": amount, "released_amount": released, "remaining_amount": amount - released,
        "status": rules.bond_status(amount, released),
        "phases": [{"phase_id": p.phase_id, "amount": p.amount,
                    "phase_number": getattr(phases.get(p.phase_id), "number", None),
                    "phase_name": getattr(phases.get(p.phase_id), "name", None),
                    "completed_on": getattr(phases.get(p.phase_id), "completed_on", None),
                    "completed_in_compliance": bool(getattr(phases.get(p.phase_id), "completed_in_compliance", False)),
                    "released": p.phase_id in released_phases} for p in bond.phases],
        "releases": [release_view(r) for r in bond.releases],
    }


_bond_schema = BondSchema()


def dump_bond(bond: Bond) -> dict[str, Any]:
    return _bond_schema.dump(bond_view(bond))


def bond_phases_awaiting_release(user=None) -> list[dict[str, Any]]:
    """Phase shares whose phase is recorded complete in compliance (R-D2) but not yet released, on bonds not
    fully released. For the supervisors' deadlines view; pass `user` to scope to what that user may see."""
    query = (select(BondPhase, Bond, PermitPhase)
             .join(Bond, Bond.id == BondPhase.bond_id).join(PermitPhase, PermitPhase.id == BondPhase.phase_id)
             .where(PermitPhase.completed_in_compliance.is_(True), Bond.released_amount < Bond.amount,
                    ~select(BondRelease.id).where(BondRelease.bond_id == BondPhase.bond_id,
                                                  BondRelease.phase_id == BondPhase.phase_id).exists()))
    if user is not None:
        query = query.where(permit_visible(Bond.permit_id, user))
    rows = [{"bond_id": bond.id, "permit_id": bond.permit_id, "phase_id": phase.id, "phase_number": phase.number,
             "phase_name": phase.name, "amount": rules.money(share.amount), "completed_on": phase.completed_on}
            for share, bond, phase in db.session.execute(query)
            # R-D2: a share that would release the whole bond waits for R-D3 (then listed as a full release).
            if rules.money(bond.released_amount) + rules.money(share.amount) < rules.money(bond.amount)
            or _full_release_allowed(bond.permit_id)]
    return sorted(rows, key=lambda r: (r["completed_on"] or date.min, r["permit_id"], r["phase_number"] or 0))


def security_held(permit_ids: list[str]) -> dict[str, Decimal]:
    """R-D1: security received and not released, by permit (permits.commencement.SECURITY_HELD):
    only what the Town holds secures the work. One query for all the permits."""
    held: dict[str, Decimal] = {}
    for chunk in chunks(permit_ids):
        for bond in db.session.scalars(select(Bond).where(Bond.permit_id.in_(chunk),
                                                          Bond.received_on.is_not(None))):
            held[bond.permit_id] = held.get(bond.permit_id, Decimal("0.00")) + bond.amount - (bond.released_amount or 0)
    return held
