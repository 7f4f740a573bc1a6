"""The demo data builder, run against the test database without serving."""
from collections import Counter

from sqlalchemy import func, select

from inspect_api import demo
from inspect_api.auth.models import User
from inspect_api.extensions import db
from inspect_api.permits.models import Assignment, Permit, PermitEvent
from tests.factories import DEMO_PASSWORDS


def test_demo_command_is_registered():
    assert [c.name for c in demo.commands] == ["demo"]
    assert {p.name for p in demo.demo.params} == {"host", "port", "password", "keep"}


def test_demo_data(demo_town, client):
    ctx = demo_town
    roles = Counter(db.session.scalars(select(User.role)))
    assert roles == {"applicant": 2, "inspector": 1, "supervisor": 1, "admin": 1}
    permits = db.session.scalars(select(Permit)).all()
    assert len(permits) == 12
    statuses = Counter(p.status for p in permits)
    assert set(statuses) == {"draft", "submitted", "under_review", "approved", "issued", "denied", "withdrawn",
                             "active", "work_complete", "closed"}
    assert set(Counter(p.review_level for p in permits)) == {"not_covered", "exempt", "administrative_review",
                                                             "land_disturbance_permit"}
    assert sum(1 for p in permits if p.limit_of_work) >= 3
    assert all(41.55 < p.site_lat < 41.72 and -70.95 < p.site_lon < -70.80 for p in permits)
    assert db.session.scalar(select(func.count()).select_from(PermitEvent)) > 40
    assert db.session.scalar(select(func.count()).select_from(Assignment)) == 5
    assert ctx.permits["green"].status == "closed" and ctx.permits["washington"].review_level == "exempt"
    numbered = [p.number for p in permits if p.number]
    assert len(numbered) == len(set(numbered)) >= 9
    r = client.post("/api/v1/auth/login", json={"email": "inspector@demo.fairhaven.test", "password": DEMO_PASSWORDS["inspector"]})
    assert r.status_code == 200
    token = {"Authorization": f"Bearer {r.get_json()['access_token']}"}
    mine = client.get("/api/v1/permits?assigned_to=me", headers=token).get_json()
    assert len(mine) == 5
    r = client.post("/api/v1/auth/login", json={"email": "applicant@demo.fairhaven.test", "password": DEMO_PASSWORDS["applicant"]})
    own = client.get("/api/v1/permits", headers={"Authorization": f"Bearer {r.get_json()['access_token']}"}).get_json()
    assert len(own) == 10
