"""An applicant probing another applicant's permit gets 404 everywhere; admins see no permit content."""
import pytest
import sqlalchemy as sa

from inspect_api.extensions import db
from inspect_api.notifications.models import Notification
from inspect_api.permits.access import permit_visible, visible_permit_ids
from inspect_api.permits.models import Party, Permit

from .conftest import assert_error


@pytest.fixture
def foreign(factory):
    return factory.permit(status="draft")


@pytest.mark.parametrize("role", ["applicant", "admin"])
def test_probing_another_permit(client, factory, foreign, role):
    _, headers = factory.as_role(role)
    base = f"/api/v1/permits/{foreign.id}"
    assert_error(client.get(base, headers=headers), 404, "not_found")
    assert_error(client.patch(base, json={"version": 1, "description": "mine now"}, headers=headers), 404, "not_found")
    assert_error(client.post(f"{base}/transitions", json={"to": "withdrawn"}, headers=headers), 404, "not_found")
    assert_error(client.post(f"{base}/transitions", json={"to": "submitted"}, headers=headers), 404, "not_found")
    for sub in ("events", "exemptions", "conditions", "phases", "documents", "assignments"):
        assert_error(client.get(f"{base}/{sub}", headers=headers), 404, "not_found")
    assert_error(client.post(f"{base}/exemptions", json={"kind": "B2", "statement": "x"}, headers=headers),
                 404, "not_found")
    assert_error(client.post(f"{base}/documents", json={"kind": "other", "filename": "a.pdf"}, headers=headers),
                 404, "not_found")
    listed = client.get("/api/v1/permits", headers=headers)
    assert listed.status_code == 200 and listed.get_json() == [] and listed.headers["X-Total-Count"] == "0"


def test_applicant_sees_only_own_in_list(client, factory):
    user, headers = factory.as_role("applicant")
    mine = factory.permit(user)
    factory.permit()
    r = client.get("/api/v1/permits", headers=headers)
    assert [p["id"] for p in r.get_json()] == [mine.id] and r.headers["X-Total-Count"] == "1"


def test_staff_see_all(client, factory):
    a, b = factory.permit(), factory.permit()
    for role in ("inspector", "supervisor"):
        _, headers = factory.as_role(role)
        assert {p["id"] for p in client.get("/api/v1/permits", headers=headers).get_json()} == {a.id, b.id}
        assert client.get(f"/api/v1/permits/{a.id}", headers=headers).status_code == 200


def test_permit_visible_scopes_every_record_as_the_ids_a_user_may_see(demo_town):
    """permit_visible(column, user) selects, in every table that names a permit, exactly the rows whose
    permit is among visible_permit_ids(user): staff by "names a permit" (the foreign key makes that the
    same), everyone else by those ids. A record with no permit (a notice to staff) is in neither."""
    columns = [Permit.__table__.c.id] + [
        table.c.permit_id for table in db.metadata.sorted_tables
        if "permit_id" in table.c and any(fk.column is Permit.__table__.c.id for fk in table.c.permit_id.foreign_keys)]
    assert len(columns) > 20 and Notification.__table__.c.permit_id in columns
    users = [*demo_town.users.values(), *demo_town.other_applicants]
    assert {u.role for u in users} == {"applicant", "inspector", "supervisor", "admin"}
    seen_any = set()
    for user in users:
        for column in columns:
            key = next(iter(column.table.primary_key.columns))
            scoped = set(db.session.scalars(sa.select(key).where(permit_visible(column, user))))
            by_ids = set(db.session.scalars(sa.select(key).where(column.in_(visible_permit_ids(user)))))
            assert scoped == by_ids, (user.role, str(column))
            if scoped:
                seen_any.add((user.role, column.table.name))
    # The comparison is not between empty sets: staff and an applicant see records of several kinds.
    assert {role for role, _ in seen_any} == {"applicant", "inspector", "supervisor"}
    assert len({table for role, table in seen_any if role == "applicant"}) >= 5
    everyone = set(db.session.scalars(sa.select(Permit.id)))
    supervisor = demo_town.users["supervisor"]
    assert set(db.session.scalars(sa.select(Permit.id).where(permit_visible(Permit.id, supervisor)))) == everyone


def test_an_applicant_sees_the_permits_they_applied_for_and_those_naming_them_as_a_party(client, factory):
    """visible_permit_ids of an applicant, against the rule itself: their own applications, and the
    permits where a party is their account; nobody else's, and no party without their account."""
    me, _ = factory.as_role("applicant")
    other, _ = factory.as_role("applicant")
    mine = factory.permit(applicant=me, status="draft")
    named = factory.permit(applicant=other, status="draft")
    neither = factory.permit(applicant=other, status="draft")
    db.session.add_all([Party(permit_id=named.id, role="contractor", name="Me", user_id=me.id),
                        Party(permit_id=neither.id, role="owner", name="Me on paper"),
                        Party(permit_id=mine.id, role="contractor", name="Me again", user_id=me.id)])
    db.session.commit()
    assert set(db.session.scalars(visible_permit_ids(me))) == {mine.id, named.id}
    assert set(db.session.scalars(sa.select(Permit.id).where(permit_visible(Permit.id, me)))) == {mine.id, named.id}
    assert set(db.session.scalars(visible_permit_ids(other))) == {named.id, neither.id}
