"""Every list pages like GET /permits: `limit` (published maximum), `offset`, X-Total-Count,
all in the OpenAPI document; visibility and filters apply before the page is cut."""
from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import insert

from inspect_api.extensions import db
from inspect_api.inspections.findings import create_finding
from inspect_api.paging import MAX_LIMIT
from inspect_api.photos.models import Photo

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
