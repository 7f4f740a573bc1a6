"""The public lookup's filters, paging and order at their edges, the map's sites, its caching
(Cache-Control, ETag, 304; the same answer signed in or not), and its cost: a page costs the same
statements at 3 permits as at 30."""
from __future__ import annotations

import base64
import math

import pytest

from inspect_api.errors import ValidationFailed
from inspect_api.extensions import db
from inspect_api.permits import services as permit_services
from inspect_api.public import lookup

from ..sql_count import counting
from ..town_clock import TownClock
from .test_lookup import CENTRE, LIST, NEAR_KEYS, PUBLIC_KEYS, TODAY, Town

ERROR_KEYS = {"code", "status", "message", "error", "errors"}


@pytest.fixture
def town_clock(monkeypatch):
    clock_ = TownClock(monkeypatch)
    clock_.set(TODAY)
    return clock_


@pytest.fixture
def town(client, factory, town_clock):
    return Town(client, factory).build()


def _validation_error(r, field: str) -> dict:
    body = r.get_json()
    assert r.status_code == 422, body
    assert set(body) == ERROR_KEYS and body["error"] == "validation_error" and field in body["errors"], body
    return body


def _permits(factory, count: int, status: str = "issued", start: int = 0):
    """`count` public permits on one applicant's account, at sites 0.001 degrees of latitude apart."""
    applicant = factory.user("applicant")
    made = []
    for i in range(start, start + count):
        made.append(factory.permit(applicant=applicant, status=status, disturbed_area_sqft=30000, site={
            "address": f"{i + 1} Harbor Street, Fairhaven, MA 02719", "parcel_id": f"9-{i:03d}",
            "location": {"lat": round(CENTRE[0] + 0.001 * i, 6), "lon": CENTRE[1]}}))
    return made


def _walk(client, url: str, cursor: str | None = None) -> list[list[dict]]:
    pages, r = [], client.get(url + (f"&cursor={cursor}" if cursor else ""))
    while True:
        assert r.status_code == 200, r.get_json()
        pages.append(r.get_json())
        cursor = r.headers.get("X-Next-Cursor")
        if cursor is None:
            return pages
        assert len(pages) < 50
        r = client.get(f"{url}&cursor={cursor}")


# --- filters -----------------------------------------------------------------------------------------
def test_q_matches_the_number_or_the_address_and_street_the_address(client, town):
    active = town.permits["active"]
    for q in (active.number, active.number.lower(), active.number[-4:], active.site_address.split(",")[0].upper()):
        items = client.get(LIST, query_string={"q": q}).get_json()
        assert active.number in {i["number"] for i in items}, q
    assert [i["number"] for i in client.get(LIST, query_string={"q": active.number}).get_json()] == [active.number]
    # `street` reads the address only: a number finds nothing there.
    assert client.get(LIST, query_string={"street": active.number}).get_json() == []
    r = client.get(LIST, query_string={"street": "public way", "limit": 100})
    assert r.headers["X-Total-Count"] == str(len(town.public()))
    # LIKE's own characters are plain text.
    for q in ("%", "_", "\\"):
        r = client.get(LIST, query_string={"q": q})
        assert r.status_code == 200 and r.get_json() == [] and r.headers["X-Total-Count"] == "0", q


def test_status_filters_to_one_public_status_and_refuses_the_others(client, town):
    for status in lookup.PUBLIC_STATUSES:
        r = client.get(LIST, query_string={"status": status, "limit": 100})
        items = r.get_json()
        assert r.status_code == 200 and items and {i["status"] for i in items} == {status}, status
        assert r.headers["X-Total-Count"] == str(len(items))
    for status in ("draft", "withdrawn", "Active", "issued,active", "", "bogus"):
        _validation_error(client.get(LIST, query_string={"status": status}), "status")
    with pytest.raises(ValidationFailed) as refused:
        lookup.search({"status": "draft"})
    assert "status" in refused.value.errors


@pytest.mark.parametrize("limit", ["0", "101", "-1", "1.5", "ten"])
def test_limit_outside_1_to_100_is_refused(client, town, limit):
    _validation_error(client.get(LIST, query_string={"limit": limit}), "limit")


def test_limit_at_its_edges_and_by_default(client, factory, town_clock):
    _permits(factory, 21)
    assert len(client.get(LIST).get_json()) == 20  # the default page
    r = client.get(LIST, query_string={"limit": 1})
    assert len(r.get_json()) == 1 and r.headers["X-Total-Count"] == "21" and "X-Next-Cursor" in r.headers
    r = client.get(LIST, query_string={"limit": 100})
    assert len(r.get_json()) == 21 and "X-Next-Cursor" not in r.headers


@pytest.mark.parametrize("near", ["41.6", "91,0", "0,181", "a,b", "41.6,-70.9,3", "nan,0", "1e3,0", ""])
def test_near_must_be_a_point(client, town_clock, near):
    _validation_error(client.get(LIST, query_string={"near": near}), "near")


# --- paging --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("near", [None, f"{CENTRE[0]},{CENTRE[1]}"])
def test_the_cursor_walks_every_page_once(client, factory, town_clock, near):
    made = _permits(factory, 7)
    # The same filing instant for several (the clock is pinned): the number breaks the tie.
    url = f"{LIST}?limit=3" + (f"&near={near}" if near else "")
    pages = _walk(client, url)
    assert [len(p) for p in pages] == [3, 3, 1]
    numbers = [i["number"] for page in pages for i in page]
    assert sorted(numbers) == sorted(p.number for p in made) and len(set(numbers)) == 7
    whole = [i["number"] for i in client.get(url.replace("limit=3", "limit=100")).get_json()]
    assert numbers == whole  # the pages are the one list, cut
    if near is None:
        assert numbers == sorted(numbers, reverse=True)  # newest first; ties by number
    # An exact multiple of the page size ends without an empty page.
    assert [len(p) for p in _walk(client, url.replace("limit=3", "limit=7"))] == [7]


def test_a_cursor_survives_changes_between_pages(client, factory, town_clock):
    made = _permits(factory, 5)
    r = client.get(LIST, query_string={"limit": 2})
    first = [i["number"] for i in r.get_json()]
    cursor = r.headers["X-Next-Cursor"]
    permit_services.force_status(made[-1], "withdrawn")  # one already read leaves the public list
    db.session.commit()
    # Paged by offset, the next page would now start one later and skip made[2]; by cursor it does not.
    rest = [i["number"] for page in _walk(client, f"{LIST}?limit=2", cursor) for i in page]
    assert first == [made[4].number, made[3].number]
    assert rest == [made[2].number, made[1].number, made[0].number]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


@pytest.mark.parametrize("cursor", ["garbage", "e30", _b64(b'{"v":2,"k":1,"n":"x","p":null}'),
                                    _b64(b'{"v":1,"k":"yesterday","n":"x","p":null}'),
                                    _b64(b'{"v":1,"k":"2026-05-04T12:00:00","n":"x","p":null}'),  # no offset
                                    _b64(b'{"v":1,"k":"2026-05-04T12:00:00Z","n":7,"p":null}'),
                                    _b64(b'{"v":1,"k":1.5,"n":"x","p":[41.6,-70.9,1]}')])
def test_a_cursor_this_search_did_not_make_is_refused(client, town_clock, cursor):
    body = _validation_error(client.get(LIST, query_string={"cursor": cursor}), "cursor")
    assert body["code"] == 422


def test_a_cursor_from_a_search_near_another_point_is_refused(client, factory, town_clock):
    _permits(factory, 3)
    near = f"{LIST}?limit=1&near={CENTRE[0]},{CENTRE[1]}"
    cursor = client.get(near).headers["X-Next-Cursor"]
    _validation_error(client.get(f"{LIST}?limit=1&near=41.7,-70.9&cursor={cursor}"), "cursor")
    _validation_error(client.get(f"{LIST}?limit=1&cursor={cursor}"), "cursor")  # made near a point, used without
    plain = client.get(f"{LIST}?limit=1").headers["X-Next-Cursor"]
    _validation_error(client.get(f"{near}&cursor={plain}"), "cursor")


# --- near a point ---------------------------------------------------------------------------------------
def test_near_sorts_nearest_first_with_the_distance(client, factory, town_clock):
    made = _permits(factory, 5)  # 0, 111, 222, 334, 445 m north of the centre
    point = (CENTRE[0] + 0.0021, CENTRE[1])  # nearest the third, then the fourth and second ...
    r = client.get(LIST, query_string={"near": f"{point[0]},{point[1]}"})
    items = r.get_json()
    assert all(set(i) == NEAR_KEYS for i in items)
    assert [i["number"] for i in items] == [made[k].number for k in (2, 3, 1, 4, 0)]
    distances = [i["distance_m"] for i in items]
    assert distances == sorted(distances)
    metres_per_degree = 6_371_008.8 * math.pi / 180
    expected = [abs(0.001 * k - 0.0021) * metres_per_degree for k in (2, 3, 1, 4, 0)]
    assert all(abs(d - e) < 0.2 for d, e in zip(distances, expected)), (distances, expected)
    # East-west a degree of longitude is shorter by the cosine of the latitude.
    east = client.get(LIST, query_string={"near": f"{CENTRE[0]},{CENTRE[1] + 0.001}", "limit": 1}).get_json()[0]
    assert east["number"] == made[0].number
    assert abs(east["distance_m"] - 0.001 * metres_per_degree * math.cos(math.radians(CENTRE[0]))) < 0.2
    # Without a point there is no distance.
    assert all(set(i) == PUBLIC_KEYS for i in client.get(LIST).get_json())


def test_near_combines_with_the_filters(client, factory, town_clock):
    issued = _permits(factory, 3)
    active = _permits(factory, 2, status="active", start=3)
    r = client.get(LIST, query_string={"near": f"{CENTRE[0] + 0.01},{CENTRE[1]}", "status": "active"})
    assert [i["number"] for i in r.get_json()] == [active[1].number, active[0].number]
    assert r.headers["X-Total-Count"] == "2"
    r = client.get(LIST, query_string={"near": f"{CENTRE[0]},{CENTRE[1]}", "street": "2 Harbor"})
    assert [i["number"] for i in r.get_json()] == [issued[1].number]


# --- the map ---------------------------------------------------------------------------------------
def test_the_map_shows_sites_where_work_is_approved_issued_or_under_way(app, town):
    sites = lookup.active_sites()
    expected = {town.permits[k].number for k in ("approved", "issued", "active")} | {town.case_after.number}
    assert [s["number"] for s in sites] == sorted(expected)
    assert all(set(s) == PUBLIC_KEYS and s["site"] is not None for s in sites)
    # A case whose orders are all complied with is no longer an active site.
    [order] = town.call("GET", f"/orders?permit_id={town.case_after.id}", expect=200)
    town.call("POST", f"/orders/{order['id']}/status", expect=200, json={"to": "complied"})
    db.session.expire_all()
    assert town.case_after.number not in {s["number"] for s in lookup.active_sites()}


# --- caching --------------------------------------------------------------------------------------------
def test_answers_are_public_cacheable_and_revalidated_by_etag(app, client, factory, town):
    number = town.permits["active"].number
    for url in (f"{LIST}?limit=5", f"{LIST}/{number}", f"{LIST}?near={CENTRE[0]},{CENTRE[1]}&limit=2"):
        r = client.get(url)
        assert r.status_code == 200 and r.headers["Cache-Control"] == "public, max-age=300", url
        assert "Set-Cookie" not in r.headers and "Authorization" not in r.headers.get("Vary", "")
        etag = r.headers["ETag"]
        assert etag.startswith('"') and not etag.startswith("W/")
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.get_data() == b"", url
        assert again.headers["ETag"] == etag and again.headers["Cache-Control"] == "public, max-age=300"
        assert "Content-Type" not in again.headers
        assert client.get(url, headers={"If-None-Match": f'W/{etag}, "other"'}).status_code == 304
        stale = client.get(url, headers={"If-None-Match": '"not-this-one"'})
        assert stale.status_code == 200 and stale.get_data() == r.get_data()
        # Signed in as the permit's own applicant, or with a token that is no good: the same answer.
        for authorization in (factory.headers(town.applicants["active"]), {"Authorization": "Bearer not-a-token"}):
            signed = client.get(url, headers=authorization)
            assert signed.status_code == 200 and signed.get_data() == r.get_data(), url
            assert signed.headers["ETag"] == etag and "Set-Cookie" not in signed.headers
    # The setting decides how long.
    app.config["PUBLIC_CACHE_SECONDS"] = 60
    assert client.get(f"{LIST}/{number}").headers["Cache-Control"] == "public, max-age=60"
    # Refusals and the rest of the API keep no-store.
    assert client.get(f"{LIST}/LDP-1999-0001").headers["Cache-Control"] == "no-store"
    assert client.get(LIST, query_string={"limit": 0}).headers["Cache-Control"] == "no-store"
    staff = client.get("/api/v1/permits", headers=town.sup)
    assert staff.status_code == 200 and staff.headers["Cache-Control"] == "no-store"


def test_the_etag_follows_the_answer(client, factory, town_clock):
    made = _permits(factory, 3)
    first = client.get(f"{LIST}?limit=2")
    # A record beyond the page leaves the list: the body is the same, the total and the next page are not.
    permit_services.force_status(made[0], "withdrawn")
    db.session.commit()
    second = client.get(f"{LIST}?limit=2", headers={"If-None-Match": first.headers["ETag"]})
    assert second.status_code == 200 and second.get_json() == first.get_json()
    assert second.headers["X-Total-Count"] == "2" and "X-Next-Cursor" not in second.headers
    assert second.headers["ETag"] != first.headers["ETag"]
    # A change an item shows changes its ETag.
    item = client.get(f"{LIST}/{made[1].number}")
    permit_services.force_status(made[1], "active")
    db.session.commit()
    changed = client.get(f"{LIST}/{made[1].number}", headers={"If-None-Match": item.headers["ETag"]})
    assert changed.status_code == 200 and changed.get_json()["status"] == "active"


def test_a_compressed_answer_revalidates_by_its_own_etag(client, factory, town_clock):
    _permits(factory, 12)  # over the 1 kB that is compressed
    r = client.get(f"{LIST}?limit=100", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
    assert r.headers["ETag"].endswith(':gzip"') and r.headers["Cache-Control"] == "public, max-age=300"
    assert "Accept-Encoding" in r.headers["Vary"]
    again = client.get(f"{LIST}?limit=100", headers={"Accept-Encoding": "gzip", "If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""


def test_the_document_marks_the_lookup_open_to_everyone(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    for path in ("/api/v1/public/permits", "/api/v1/public/permits/{number}"):
        operation = spec["paths"][path]["get"]
        assert operation["security"] == [] and operation["tags"] == ["public"], path
        assert "304" in operation["responses"] and "ETag" in operation["responses"]["200"]["headers"], path
    assert "404" in spec["paths"]["/api/v1/public/permits/{number}"]["get"]["responses"]
    listing = spec["paths"]["/api/v1/public/permits"]["get"]
    assert {"X-Total-Count", "X-Next-Cursor"} <= set(listing["responses"]["200"]["headers"])
    limit = next(p for p in listing["parameters"] if p["name"] == "limit")["schema"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 100, 20)
    item = spec["components"]["schemas"]["PublicPermit"]
    assert set(item["properties"]) == NEAR_KEYS and set(item["required"]) == PUBLIC_KEYS


# --- cost -----------------------------------------------------------------------------------------------
def _with_orders(client, factory, permits) -> None:
    _, headers = factory.as_role("supervisor")
    for permit in permits:
        r = client.post("/api/v1/orders", headers=headers, json={
            "permit_id": permit.id, "kinds": ["controls"], "deadline": "2026-05-20",
            "requirements": [{"kind": "controls", "text": "Repair the silt fence"}]})
        assert r.status_code == 201, r.get_json()


def _cost(statements: list[str]) -> tuple[int, int]:
    """(statements, of which SELECTs): SQLite also counts the BEGIN the engine sends itself."""
    return len(statements), len([s for s in statements if s.lstrip().upper().startswith("SELECT")])


def _statements(client, url: str, expected: int) -> tuple[int, int]:
    db.session.expire_all()
    with counting() as statements:
        r = client.get(url)
    assert r.status_code == 200 and len(r.get_json()) == expected, r.get_json()
    return _cost(statements)


def test_a_page_costs_the_same_statements_at_3_and_at_30_permits(client, factory, town_clock):
    made = _permits(factory, 3)
    _with_orders(client, factory, made)
    near = f"&near={CENTRE[0]},{CENTRE[1]}"
    small = {"list": _statements(client, f"{LIST}?limit=100", 3),
             "near": _statements(client, f"{LIST}?limit=100{near}", 3)}
    with counting() as statements:
        assert len(lookup.active_sites()) == 3
    small["map"] = _cost(statements)
    more = _permits(factory, 27, start=3)
    _with_orders(client, factory, more)
    large = {"list": _statements(client, f"{LIST}?limit=100", 30),
             "near": _statements(client, f"{LIST}?limit=100{near}", 30)}
    with counting() as statements:
        sites = lookup.active_sites()
    large["map"] = _cost(statements)
    assert len(sites) == 30 and all(s["open_orders"] == {"count": 1, "kinds": ["controls"]} for s in sites)
    assert small == large, (small, large)
    # The count, the page (status day and certificate as subqueries), the page's open orders.
    assert large["list"][1] == large["near"][1] == 3 and large["map"][1] == 2
    cursor = client.get(f"{LIST}?limit=10").headers["X-Next-Cursor"]
    assert _statements(client, f"{LIST}?limit=10&cursor={cursor}", 10) == large["list"]
