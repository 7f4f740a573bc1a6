"""An applicant probing another applicant's permit gets 404 everywhere; admins see no permit content."""
import pytest

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
