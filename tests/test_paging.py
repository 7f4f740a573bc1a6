"""Every list pages like GET /permits: `limit` (published maximum), `offset`, X-Total-Count,
all in the OpenAPI document; visibility and filters apply before the page is cut."""
from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import event, insert, select

from inspect_api import paging
from inspect_api.bonds.models import Bond, BondRelease
from inspect_api.extensions import db
from inspect_api.inspections.findings import create_finding
from inspect_api.inspections.models import Finding, Inspection
from inspect_api.paging import MAX_LIMIT
from inspect_api.permits.models import Permit
from inspect_api.permits.services import SHOWN_PARTS
from inspect_api.photos.models import Photo
from tests.sql_count import counting

API = "/api/v1"
# path (with any filter the list requires), and the role that may list it
LISTS = [
    ("/users", "admin"), ("/permits", "supervisor"), ("/audit?permit_id=none", "supervisor"),
    ("/entry-authorizations", "supervisor"), ("/inspections", "supervisor"), ("/findings", "supervisor"),
    ("/samples", "supervisor"), ("/photos", "supervisor"), ("/sync/conflicts", "supervisor"),
    ("/devices", "supervisor"), ("/completion-notices", "supervisor"), ("/final-reports", "supervisor"),
    ("/bonds", "supervisor"), ("/orders", "supervisor"), ("/cost-recoveries", "supervisor"),
    ("/violations", "supervisor"), ("/citations", "supervisor"),
]


def _url(path: str, **params) -> str:
    joiner = "&" if "?" in path else "?"
    return API + path + (joiner + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def _query_errors(response) -> dict:
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["code"] == 422 and body["error"] == "validation_error" and body["message"]
    return body["errors"].get("query", body["errors"])


@pytest.mark.parametrize("path, role", LISTS, ids=[p for p, _ in LISTS])
def test_every_list_pages_with_a_bounded_limit(client, factory, path, role):
    _, headers = factory.as_role(role)
    whole = client.get(_url(path, limit=MAX_LIMIT), headers=headers)
    assert whole.status_code == 200, whole.get_json()
    total = int(whole.headers["X-Total-Count"])
    assert isinstance(whole.get_json(), list) and len(whole.get_json()) == total
    past = client.get(_url(path, offset=total + 10), headers=headers)
    assert past.status_code == 200 and past.get_json() == [] and past.headers["X-Total-Count"] == str(total)
    assert "limit" in _query_errors(client.get(_url(path, limit=MAX_LIMIT + 1), headers=headers))
    assert "limit" in _query_errors(client.get(_url(path, limit=0), headers=headers))
    assert "offset" in _query_errors(client.get(_url(path, offset=-1), headers=headers))


def test_paging_is_published_for_every_list(app):
    spec = client_spec(app)
    for path, _ in LISTS:
        operation = spec["paths"][API + path.split("?")[0]]["get"]
        params = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
        assert params["limit"]["schema"]["maximum"] == MAX_LIMIT and params["limit"]["schema"]["minimum"] == 1
        assert params["offset"]["schema"]["minimum"] == 0
        assert "X-Total-Count" in operation["responses"]["200"]["headers"], path


def client_spec(app) -> dict:
    return app.test_client().get(f"{API}/openapi.json").get_json()


def test_pages_cover_the_list_once_and_count_only_what_the_caller_may_see(client, factory):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = factory.as_role("supervisor")
    mine = factory.permit(owner, status="issued")
    theirs = factory.permit(factory.user("applicant"), status="issued")
    for day in range(1, 6):
        create_finding(mine, kind="deficiency", description=f"Silt fence down, day {day}",
                       observed_on=date(2026, 4, day))
    for day in range(1, 4):
        create_finding(theirs, kind="deficiency", description=f"Inlet not protected, day {day}",
                       observed_on=date(2026, 4, day))
    db.session.commit()
    whole = client.get(f"{API}/findings?limit=500", headers=owner_h).get_json()
    assert len(whole) == 5 and {f["permit_id"] for f in whole} == {mine.id}
    pages = []
    for offset in (0, 2, 4):
        page = client.get(f"{API}/findings?limit=2&offset={offset}", headers=owner_h)
        assert page.headers["X-Total-Count"] == "5"
        pages.append([f["id"] for f in page.get_json()])
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sum(pages, []) == [f["id"] for f in whole]
    staff = client.get(f"{API}/findings?limit=1", headers=sup_h)
    assert len(staff.get_json()) == 1 and staff.headers["X-Total-Count"] == "8"


def test_photos_are_not_capped_at_a_thousand(client, factory):
    owner = factory.user("applicant")
    _, sup_h = factory.as_role("supervisor")
    permit = factory.permit(owner, status="issued")
    db.session.execute(insert(Photo), [
        {"permit_id": permit.id, "sha256": f"{n:064x}", "content_type": "image/jpeg", "bytes": 1000, "width": 4,
         "height": 3, "original_key": f"o/{n}", "display_key": f"d/{n}", "small_key": f"s/{n}"}
        for n in range(1003)])
    db.session.commit()
    first = client.get(f"{API}/photos?permit_id={permit.id}", headers=sup_h)
    assert first.status_code == 200 and len(first.get_json()) == 50 and first.headers["X-Total-Count"] == "1003"
    last = client.get(f"{API}/photos?permit_id={permit.id}&limit=500&offset=1000", headers=sup_h)
    assert len(last.get_json()) == 3 and last.headers["X-Total-Count"] == "1003"


def test_a_filter_on_a_computed_value_applies_before_the_page(client, factory):
    """Bonds are filtered by a status worked out from the amounts: the total counts the filtered list."""
    owner = factory.user("applicant")
    _, sup_h = factory.as_role("supervisor")
    permit = factory.permit(owner, status="issued")
    db.session.commit()
    for amount in ("100.00", "200.00", "300.00"):
        r = client.post(f"{API}/bonds", headers=sup_h, json={
            "permit_id": permit.id, "form": "cash", "amount": amount, "received_on": "2026-04-01"})
        assert r.status_code == 201, r.get_json()
    held = client.get(f"{API}/bonds?status=held&limit=2", headers=sup_h)
    assert len(held.get_json()) == 2 and held.headers["X-Total-Count"] == "3"
    none = client.get(f"{API}/bonds?status=released&limit=2", headers=sup_h)
    assert none.get_json() == [] and none.headers["X-Total-Count"] == "0"


def _children(records, prop_key: str, order_keys) -> list:
    """Each record's collection as (its ordering values in turn, the set of its ids): ties in a
    relationship's order may come in either order, from any loader."""
    out = []
    for record in records:
        children = getattr(record, prop_key)
        out.append(([tuple(getattr(child, key) for key in order_keys) for child in children],
                    {child.id for child in children}))
    return out


@pytest.mark.parametrize("chunk", [paging.CHUNK, 2])  # the page in one chunk, and in several
def test_a_page_of_collections_is_what_each_relationship_loads_itself(demo_town, monkeypatch, chunk):
    """paging.load_collections, as the permits, inspections and bonds lists use it (cost recoveries too:
    tests/enforcement): each record gets what its relationship loads for it alone (its own condition
    included: an inspection's findings set aside are left out), in the relationship's order, read a
    chunk of parents at a time."""
    several = chunk < paging.CHUNK
    monkeypatch.setattr(paging, "CHUNK", chunk)
    finding = db.session.scalars(select(Finding).where(Finding.inspection_id.is_not(None),
                                                       Finding.deleted_at.is_(None))).first()
    finding.deleted_at = finding.created_at
    bond = db.session.scalars(select(Bond).where(Bond.phases.any()).order_by(Bond.id)).first()
    for day, share in enumerate(bond.phases[:2], start=1):  # the demo town releases none
        db.session.add(BondRelease(bond_id=bond.id, phase_id=share.phase_id, kind="partial", amount=share.amount,
                                   released_on=date(2026, 6, day), released_by=demo_town.users["supervisor"].id))
    db.session.commit()
    cases = [(Permit, SHOWN_PARTS), (Inspection, (Inspection.findings,))]
    if not several:  # the demo town holds one bond: chunks are the same code for every relationship
        cases.append((Bond, (Bond.phases, Bond.releases)))
    for model, collections in cases:
        records = db.session.scalars(select(model).order_by(model.id)).all()
        assert len(records) > chunk if several else len(records) <= chunk, model
        for collection in collections:
            prop = collection.property
            order_keys = [column.key for column in prop.order_by or ()]
            for record in records:
                db.session.expire(record, [prop.key])
            own = _children(records, prop.key, order_keys)  # each record's lazy load
            for record in records:
                db.session.expire(record, [prop.key])
            with counting() as statements:
                paging.load_collections(records, collection)
                loaded = _children(records, prop.key, order_keys)
            assert loaded == own, collection
            assert len(statements) == -(-len(records) // chunk)  # one per chunk, none per record
            assert any(children for _, children in loaded), (model, prop.key)
    assert finding.id not in {f.id for inspection in db.session.scalars(select(Inspection)) for f in inspection.findings}


def test_a_collection_a_record_holds_is_kept_as_it_stands(demo_town):
    """A record that holds a collection already (one just written, or loaded before in the session)
    keeps it as selectinload leaves it; only the others are read, and when every record holds it,
    nothing is."""
    held, waiting = db.session.scalars(select(Permit).where(Permit.conditions.any()).order_by(Permit.id).limit(2)).all()
    kept = held.conditions
    assert kept and waiting.conditions
    db.session.expire(waiting, ["conditions"])
    asked: list = []

    def keep(_conn, _cursor, _statement, parameters, *_args):  # a tuple on SQLite, a dict on PostgreSQL
        asked.append(list(parameters.values()) if isinstance(parameters, dict) else list(parameters))
    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        paging.load_collections([held, waiting], Permit.conditions)
        assert held.conditions is kept and "conditions" in waiting.__dict__
        assert len(asked) == 1 and waiting.id in asked[0] and held.id not in asked[0]
        paging.load_collections([held, waiting], Permit.conditions)
        assert len(asked) == 1  # both hold it now: no statement
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)
    assert [c.id for c in waiting.conditions] == [c.id for c in db.session.scalars(
        select(type(kept[0])).where(type(kept[0]).permit_id == waiting.id).order_by(*Permit.conditions.property.order_by))]


def test_ids_are_named_a_chunk_at_a_time_in_their_order(monkeypatch):
    """paging.chunks, every bounded IN (...) list's: slices of at most the size (CHUNK, read when
    called, unless one is given), in order, none for no ids."""
    ids = [f"id-{n:04d}" for n in range(1201)]
    assert [len(part) for part in paging.chunks(ids)] == [500, 500, 201]
    assert [item for part in paging.chunks(ids) for item in part] == ids
    assert list(paging.chunks(ids[:3], 2)) == [ids[:2], ids[2:3]]
    assert list(paging.chunks([])) == []
    monkeypatch.setattr(paging, "CHUNK", 1000)
    assert [len(part) for part in paging.chunks(ids)] == [1000, 201]


def test_only_a_one_to_many_relationship_is_loaded_as_a_collection(app):
    with pytest.raises(TypeError, match="not a one-to-many"):
        paging.load_collections([object()], Inspection.permit)
    assert paging.load_collections([], Inspection.permit) is None  # nothing to load: no statement


def test_a_kept_list_statement_serves_each_caller_their_own(client, factory, monkeypatch):
    """A list's statements are built once per shape and kept (paging.page_of): the next caller of the
    same kind gets their own records, by their own values, never the first caller's."""
    from tests.town_clock import TownClock
    clock = TownClock(monkeypatch)
    clock.set(date(2026, 4, 1))
    first, first_h = factory.as_role("applicant")
    second, second_h = factory.as_role("applicant")
    theirs = {}
    for owner in (first, second):
        permit = factory.permit(owner, status="issued")
        finding = create_finding(permit, kind="deficiency", description=f"Silt fence down ({owner.id})",
                                 observed_on=date(2026, 4, 1))
        theirs[owner.id] = (permit.id, finding.id)
    db.session.commit()
    due_on = db.session.get(Finding, theirs[first.id][1]).due_on
    for owner, headers in ((first, first_h), (second, second_h), (first, first_h)):
        permit_id, finding_id = theirs[owner.id]
        mine = client.get(f"{API}/findings", headers=headers)
        assert [f["id"] for f in mine.get_json()] == [finding_id] and mine.headers["X-Total-Count"] == "1"
        by_permit = client.get(f"{API}/findings?permit_id={permit_id}", headers=headers).get_json()
        assert [f["id"] for f in by_permit] == [finding_id]
        other_permit = next(p for p, _ in theirs.values() if p != permit_id)
        elsewhere = client.get(f"{API}/findings?permit_id={other_permit}", headers=headers)
        assert elsewhere.get_json() == [] and elsewhere.headers["X-Total-Count"] == "0"
    # "overdue" is due before the day of each request, not the day the statement was built on.
    clock.set(due_on)
    assert client.get(f"{API}/findings?status=overdue", headers=first_h).get_json() == []
    clock.set(date.fromordinal(due_on.toordinal() + 1))
    overdue = client.get(f"{API}/findings?status=overdue", headers=first_h).get_json()
    assert [f["id"] for f in overdue] == [theirs[first.id][1]]


def test_a_list_statement_is_built_from_its_shape_alone(app):
    """A builder that could carry one caller's value into the kept statement (a closure) is refused,
    and a value left out of a call is an error, never a value from an earlier call."""
    from sqlalchemy.exc import StatementError

    from inspect_api.inspections import finding_services
    from inspect_api.permits.access import STAFF_SCOPE

    caller_id = "someone"

    def closing_over(scope):
        return select(Finding).where(Finding.created_by == caller_id)

    with app.test_request_context():
        with pytest.raises(TypeError, match="shape alone"):
            paging.page_of(closing_over, ("staff",), {}, {"limit": 5, "offset": 0})
        shape = (STAFF_SCOPE, True, None, False)  # findings of one permit
        values = {"permit_id": "a permit", "on": date(2026, 4, 1)}
        assert paging.page_of(finding_services._findings_page, shape, values, {"limit": 5, "offset": 0}) == ([], 0)
        with pytest.raises(StatementError, match="permit_id"):
            paging.page_of(finding_services._findings_page, shape, {"on": date(2026, 4, 1)}, {"limit": 5, "offset": 0})
        db.session.rollback()


def test_each_request_filters_by_its_own_values(client, factory):
    """Kept statements take every filter's value at each request: a search, a set of statuses, an
    assignment and a review level, each asked twice with different values, answer differently."""
    supervisor, sup_h = factory.as_role("supervisor")
    inspector, insp_h = factory.as_role("inspector")
    cove = factory.permit(status="issued", owner={"name": "Cove Marina LLC", "email": "c@example.org"})
    ridge = factory.permit(status="under_review", owner={"name": "Ridge Farm Trust", "email": "r@example.org"})
    factory.assign(cove, inspector)
    db.session.commit()

    def ids(url, headers=sup_h):
        r = client.get(f"{API}/permits?{url}&limit=500", headers=headers)
        assert r.status_code == 200, r.get_json()
        return {p["id"] for p in r.get_json()} & {cove.id, ridge.id}

    assert ids("q=cove") == {cove.id} and ids("q=ridge") == {ridge.id} and ids("q=marina%20trust") == set()
    assert ids("status=issued") == {cove.id} and ids("status=under_review") == {ridge.id}
    assert ids("status=issued,under_review") == {cove.id, ridge.id}
    assert ids("assigned_to=me", insp_h) == {cove.id} and ids("assigned_to=me") == set()
    level = client.get(f"{API}/permits/{ridge.id}", headers=sup_h).get_json()["review_level"]
    assert ridge.id in ids(f"review_level={level}")


@pytest.mark.parametrize("path, role", [*LISTS, ("/notifications", "supervisor")],
                         ids=[p for p, _ in [*LISTS, ("/notifications", "supervisor")]])
def test_an_offset_past_2_31_is_an_empty_page(client, factory, path, role):
    """Limit and offset are 64-bit values: an offset past 2**31 (a 32-bit INTEGER on PostgreSQL) is an
    empty page with the total, like any offset past the end."""
    _, headers = factory.as_role(role)
    factory.permit(status="issued")
    whole = client.get(_url(path, limit=MAX_LIMIT), headers=headers)
    far = client.get(_url(path, offset=2**31), headers=headers)
    assert far.status_code == 200, far.get_json()
    assert far.get_json() == [] and far.headers["X-Total-Count"] == whole.headers["X-Total-Count"]
