"""Orders through the API (R-O1): issue, numbers, visibility, deadline states, cease and desist, PDF."""
from __future__ import annotations

import io
import uuid
from datetime import date, datetime, time, timezone

import pytest
from pypdf import PdfReader

from inspect_api.extensions import db
from inspect_api.permits.models import Permit

from .conftest import make_finding


def order_body(permit, finding=None, **overrides):
    body = {"permit_id": permit.id, "kinds": ["controls"],
            "requirements": [{"kind": "controls", "text": "Re-install silt fence along the east swale"}],
            "finding_ids": [finding.id] if finding else [], "deadline": "2026-05-09"}
    body.update(overrides)
    return body


def issue(client, cast, permit, finding=None, **overrides):
    r = client.post("/api/v1/orders", json=order_body(permit, finding, **overrides), headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_supervisor_issues_numbered_order(client, cast, permit, finding, town_clock):
    body = issue(client, cast, permit, finding, service={"method": "hand", "served_at": "2026-05-04T14:03:00Z",
                                                        "served_to": "Pat Owner"})
    assert body["number"] == "ORD-2026-0001"
    assert body["status"] == "open" and body["overdue"] is False
    assert body["issued_on"] == "2026-05-04" and body["deadline"] == "2026-05-09"
    assert body["finding_ids"] == [finding.id] and body["version"] == 1
    assert body["service"] == {"method": "hand", "served_at": "2026-05-04T14:03:00+00:00", "served_to": "Pat Owner"}
    second = issue(client, cast, permit)
    assert second["number"] == "ORD-2026-0002"
    next_year = issue(client, cast, permit, issued_on="2027-01-02", deadline="2027-01-09")
    assert next_year["number"] == "ORD-2027-0001"


def test_service_time_sent_with_an_offset_answers_in_utc_as_a_later_read_does(client, cast, permit, town_clock):
    """An order's service time comes back in UTC in the answer to the write, as GET and the list give it."""
    body = issue(client, cast, permit, service={"method": "hand", "served_at": "2026-05-04T10:03:00-04:00",
                                               "served_to": "Pat Owner"})
    assert body["service"] == {"method": "hand", "served_at": "2026-05-04T14:03:00+00:00", "served_to": "Pat Owner"}
    db.session.expunge_all()
    read = client.get(f"/api/v1/orders/{body['id']}", headers=cast.sup).get_json()
    listed = next(o for o in client.get("/api/v1/orders", headers=cast.sup).get_json() if o["id"] == body["id"])
    assert read["service"] == listed["service"] == body["service"]


@pytest.mark.parametrize("role", ["inspector", "applicant", "admin"])
def test_only_supervisors_issue(client, cast, permit, role):
    headers = {"inspector": cast.insp, "applicant": cast.app, "admin": cast.adm}[role]
    r = client.post("/api/v1/orders", json=order_body(permit), headers=headers)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    assert client.get("/api/v1/orders", headers=cast.sup).get_json() == []


def test_idempotent_on_client_id(client, cast, permit, town_clock):
    oid = str(uuid.uuid4())
    first = client.post("/api/v1/orders", json=order_body(permit, id=oid), headers=cast.sup)
    again = client.post("/api/v1/orders", json=order_body(permit, id=oid), headers=cast.sup)
    other = client.post("/api/v1/orders", json=order_body(permit, id=oid, deadline="2026-05-20"), headers=cast.sup)
    assert (first.status_code, again.status_code, other.status_code) == (201, 200, 409)
    assert again.get_json()["number"] == first.get_json()["number"] == "ORD-2026-0001"
    assert other.get_json()["error"] == "conflict"
    assert len(client.get("/api/v1/orders", headers=cast.sup).get_json()) == 1


def test_validation(client, cast, permit, factory, town_clock):
    other_permit = factory.permit(cast.stranger, status="issued")
    foreign = make_finding(other_permit)
    r = client.post("/api/v1/orders", json=order_body(permit, foreign, deadline="2026-05-03",
                                                      kinds=["monitoring"]), headers=cast.sup)
    assert r.status_code == 422
    errors = r.get_json()["errors"]
    assert set(errors) == {"finding_ids", "deadline", "requirements"}
    r = client.post("/api/v1/orders", json={**order_body(permit), "deadline": None}, headers=cast.sup)
    assert r.status_code == 422 and "deadline" in r.get_json()["errors"]
    r = client.post("/api/v1/orders", json=order_body(permit, kinds=["fine"]), headers=cast.sup)
    assert r.status_code == 422 and "kinds" in r.get_json()["errors"]


def test_applicant_reads_own_orders_only(client, cast, permit, factory, town_clock):
    mine = issue(client, cast, permit)
    theirs = issue(client, cast, factory.permit(cast.stranger, status="issued"))
    r = client.get("/api/v1/orders", headers=cast.app)
    assert r.status_code == 200 and [o["id"] for o in r.get_json()] == [mine["id"]]
    assert client.get(f"/api/v1/orders/{mine['id']}", headers=cast.app).get_json()["number"] == mine["number"]
    for path in (f"/api/v1/orders/{theirs['id']}", f"/api/v1/orders/{theirs['id']}.pdf"):
        r = client.get(path, headers=cast.app)
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    r = client.post(f"/api/v1/orders/{theirs['id']}/responses", json={"note": "not mine"}, headers=cast.app)
    assert r.status_code == 404
    assert len(client.get("/api/v1/orders", headers=cast.insp).get_json()) == 2   # staff read all
    assert client.get("/api/v1/orders", headers=cast.adm).get_json() == []        # admins see no content


def test_applicant_answers_but_cannot_change(client, cast, permit, town_clock):
    order = issue(client, cast, permit)
    r = client.post(f"/api/v1/orders/{order['id']}/responses", json={"note": "Fence restaked on Tuesday."},
                    headers=cast.app)
    assert r.status_code == 201
    body = r.get_json()
    assert body["events"][-1]["kind"] == "response" and body["events"][-1]["note"] == "Fence restaked on Tuesday."
    assert body["version"] == 2
    r = client.post(f"/api/v1/orders/{order['id']}/status", json={"to": "complied"}, headers=cast.app)
    assert r.status_code == 403
    r = client.patch(f"/api/v1/orders/{order['id']}", json={"deadline": "2026-06-01", "version": 2}, headers=cast.app)
    assert r.status_code == 403
    r = client.post(f"/api/v1/orders/{order['id']}/responses", json={"note": "x"}, headers=cast.insp)
    assert r.status_code == 403
    from inspect_api.audit import AuditEntry
    trail = db.session.query(AuditEntry).filter_by(record_id=order["id"]).all()
    # The Town clock is pinned here, so the rows carry the same instant: compare them without an order.
    # The order's document was issued (and its hash recorded) as the order was.
    assert sorted((e.action, e.actor_id) for e in trail) == [("document.issued", cast.supervisor.id),
                                                             ("order.create", cast.supervisor.id),
                                                             ("order.response", cast.applicant.id)]


def test_deadline_states_follow_the_town_clock(client, cast, permit, town_clock):
    order = issue(client, cast, permit)   # deadline 2026-05-09
    path = f"/api/v1/orders/{order['id']}"

    def state():
        body = client.get(path, headers=cast.sup).get_json()
        return body["status"], body["overdue"]

    town_clock.set(date(2026, 5, 9), time(23, 59))
    assert state() == ("open", False)
    # The lists' statements are kept between requests (paging.page_of): the day is a value of each request.
    assert client.get("/api/v1/orders?status=overdue", headers=cast.sup).get_json() == []
    assert [o["id"] for o in client.get("/api/v1/orders?status=open", headers=cast.sup).get_json()] == [order["id"]]
    # 03:30 UTC on 10 May is still 9 May in Fairhaven: not overdue yet.
    town_clock.set_utc(datetime(2026, 5, 10, 3, 30, tzinfo=timezone.utc))
    assert state() == ("open", False)
    town_clock.set(date(2026, 5, 10), time(0, 1))
    assert state() == ("overdue", True)
    overdue = client.get("/api/v1/orders?status=overdue", headers=cast.sup).get_json()
    assert [o["id"] for o in overdue] == [order["id"]]
    assert client.get("/api/v1/orders?status=open", headers=cast.sup).get_json() == []
    r = client.post(f"{path}/status", json={"to": "complied", "note": "Verified on site"}, headers=cast.sup)
    assert r.status_code == 200
    assert r.get_json()["status"] == "complied" and r.get_json()["overdue"] is False
    assert r.get_json()["events"][-1] | {"at": None, "actor_id": None} == {
        "kind": "status", "from_status": "overdue", "to_status": "complied", "note": "Verified on site",
        "at": None, "actor_id": None}


def test_transitions(client, cast, permit, town_clock):
    order = issue(client, cast, permit)
    path = f"/api/v1/orders/{order['id']}/status"
    r = client.post(path, json={"to": "town_performed"}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    assert "only after the deadline" in r.get_json()["message"]
    r = client.post(path, json={"to": "overdue"}, headers=cast.sup)
    assert r.status_code == 409
    town_clock.set(date(2026, 5, 10))
    r = client.post(path, json={"to": "town_performed"}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["status"] == "town_performed"
    assert client.post(path, json={"to": "closed"}, headers=cast.sup).get_json()["status"] == "closed"
    r = client.post(path, json={"to": "complied"}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    r = client.patch(f"/api/v1/orders/{order['id']}", json={"deadline": "2026-06-01", "version": 3}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"


def test_update_needs_current_version(client, cast, permit, town_clock):
    order = issue(client, cast, permit)
    path = f"/api/v1/orders/{order['id']}"
    r = client.patch(path, json={"deadline": "2026-05-20"}, headers=cast.sup)
    assert r.status_code == 428
    r = client.patch(path, json={"deadline": "2026-05-20"}, headers={**cast.sup, "If-Match": "1"})
    assert r.status_code == 200 and r.get_json()["deadline"] == "2026-05-20" and r.get_json()["version"] == 2
    r = client.patch(path, json={"deadline": "2026-05-25", "version": 1}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "version_conflict"
    assert r.get_json()["errors"]["current"]["deadline"] == "2026-05-20"
    r = client.patch(path, json={"deadline": "2026-05-01", "version": 2}, headers=cast.sup)
    assert r.status_code == 422 and "deadline" in r.get_json()["errors"]
    r = client.patch(path, json={"version": 2, "referral_note": "Referred to Town Counsel for injunctive relief",
                                 "court_case_note": "Superior Court docket 2673CV00123"}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["version"] == 3
    assert r.get_json()["referral_note"] == "Referred to Town Counsel for injunctive relief"
    assert client.get(path, headers=cast.app).get_json()["court_case_note"] == "Superior Court docket 2673CV00123"


def _flag(permit_id):
    db.session.expire_all()
    return db.session.get(Permit, permit_id).cease_and_desist


def test_cease_and_desist_flags_the_permit_while_open(client, cast, permit, town_clock):
    version = permit.version
    cd = issue(client, cast, permit, kinds=["cease_and_desist", "controls"], requirements=[
        {"kind": "cease_and_desist", "text": "Stop all land-disturbing activity"},
        {"kind": "controls", "text": "Stabilize the stockpile"}])
    assert _flag(permit.id) is True
    assert db.session.get(Permit, permit.id).version == version + 1   # devices pull the flag
    cd2 = issue(client, cast, permit, kinds=["cease_and_desist"],
                requirements=[{"kind": "cease_and_desist", "text": "Stop work in the wetland buffer"}])
    client.post(f"/api/v1/orders/{cd['id']}/status", json={"to": "complied"}, headers=cast.sup)
    assert _flag(permit.id) is True                                   # another one still open
    town_clock.set(date(2026, 5, 12))
    assert _flag(permit.id) is True                                   # overdue is still in force
    client.post(f"/api/v1/orders/{cd2['id']}/status", json={"to": "closed"}, headers=cast.sup)
    assert _flag(permit.id) is False
    plain = issue(client, cast, permit, deadline="2026-05-20")
    assert _flag(permit.id) is False
    r = client.patch(f"/api/v1/orders/{plain['id']}", json={
        "kinds": ["cease_and_desist"], "requirements": [{"kind": "cease_and_desist", "text": "Stop"}], "version": 1},
        headers=cast.sup)
    assert r.status_code == 200 and _flag(permit.id) is True


def test_order_pdf(client, cast, permit, finding, town_clock):
    from pypdf import PdfReader
    order = issue(client, cast, permit, finding, kinds=["cease_and_desist", "controls"], requirements=[
        {"kind": "cease_and_desist", "text": "Stop all land-disturbing activity"},
        {"kind": "controls", "text": "Re-install silt fence along the east swale"}],
        service={"method": "certified_mail", "served_to": "Pat Owner"})
    r = client.get(f"/api/v1/orders/{order['id']}.pdf", headers=cast.app)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.headers["Content-Disposition"] == 'inline; filename="ORD-2026-0001.pdf"'
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.data)).pages).split())
    for expected in ("Enforcement Order ORD-2026-0001", permit.number, "May 9, 2026", "Cease and desist",
                     "Re-install silt fence along the east swale", "Silt fence down along the east swale",
                     "certified mail", "MGL c.59 §57"):
        assert expected in text, expected


def test_order_pdf_without_findings_or_provisions_says_none_is_named(client, cast, permit, town_clock):
    """R-O1b: the PDF never points at "the findings below" when there are none below."""
    order = issue(client, cast, permit)
    r = client.get(f"/api/v1/orders/{order['id']}.pdf", headers=cast.sup)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.data)).pages).split())
    assert "No provision, permit condition or finding is named in this order." in text
    assert "findings below" not in text and "Findings on which this order rests" not in text


def test_concurrent_orders_never_share_a_number(app, cast, permit, town_clock):
    """Eight supervisors' requests at once: numbers 1-8, each once (the counter row is locked)."""
    import threading

    bodies = [order_body(permit, deadline="2026-05-20") for _ in range(8)]
    db.session.commit()   # end this thread's transaction (on SQLite it would hold the write lock)
    results: list = []
    barrier = threading.Barrier(len(bodies))

    def post(body):
        client = app.test_client()
        barrier.wait()
        r = client.post("/api/v1/orders", json=body, headers=cast.sup)
        results.append((r.status_code, r.get_json().get("number")))

    threads = [threading.Thread(target=post, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [(201, f"ORD-2026-{n:04d}") for n in range(1, 9)]


def test_an_order_takes_a_bounded_number_of_bounded_responses(client, cast, permit, town_clock, app):
    """ORDER_RESPONSES_MAX answers per order (20), each of at most 4,000 characters: an order is pulled
    by every device with its events, so what one party writes cannot grow it without end."""
    order = issue(client, cast, permit)
    url = f"/api/v1/orders/{order['id']}/responses"
    r = client.post(url, json={"note": "x" * 4001}, headers=cast.app)
    assert r.status_code == 422 and set(r.get_json()["errors"]) == {"note"}, r.get_json()
    assert app.config["ORDER_RESPONSES_MAX"] == 20
    for n in range(20):
        headers = cast.app if n % 2 else cast.sup   # a paper answer recorded by a supervisor counts too
        r = client.post(url, json={"note": "y" * 4000}, headers=headers)
        assert r.status_code == 201, (n, r.get_json())
    r = client.post(url, json={"note": "one more"}, headers=cast.app)
    assert r.status_code == 409 and r.get_json()["error"] == "too_many_responses", r.get_json()
    assert "20" in r.get_json()["message"]
    got = client.get(f"/api/v1/orders/{order['id']}", headers=cast.sup).get_json()
    assert sum(e["kind"] == "response" for e in got["events"]) == 20 and got["version"] == 21
    # The Town may set another bound: answers already given stay, no more are taken.
    app.config["ORDER_RESPONSES_MAX"] = 5
    other = issue(client, cast, permit)
    for _ in range(5):
        assert client.post(f"/api/v1/orders/{other['id']}/responses", json={"note": "ok"},
                           headers=cast.app).status_code == 201
    r = client.post(f"/api/v1/orders/{other['id']}/responses", json={"note": "sixth"}, headers=cast.app)
    assert r.status_code == 409 and r.get_json()["error"] == "too_many_responses"


def test_an_order_may_hold_another_requirement_stated_in_words(client, cast, permit, town_clock):
    """R-O1: the list (a)-(d) "may include"; another requirement stated in words is an order too, through
    the API and on the order's PDF; kind `other` needs its words."""
    words = "Remove the stockpile of loam from the wetland buffer and restore the grade"
    order = issue(client, cast, permit, kinds=["controls", "other"], requirements=[
        {"kind": "controls", "text": "Re-install silt fence along the east swale"}, {"kind": "other", "text": words}])
    assert order["kinds"] == ["controls", "other"]
    assert order["requirements"][1] == {"kind": "other", "text": words}
    r = client.get(f"/api/v1/orders/{order['id']}", headers=cast.app)
    assert r.status_code == 200 and r.get_json()["requirements"][1]["text"] == words
    r = client.get(f"/api/v1/orders/{order['id']}.pdf", headers=cast.app)
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.data)).pages).split())
    assert "Another requirement, stated in words below" in text and words in text
    r = client.post("/api/v1/orders", json=order_body(permit, kinds=["other"], requirements=[
        {"kind": "other", "text": "   "}]), headers=cast.sup)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"] == {"requirements": ["A requirement of kind other states it in words."]}
    r = client.post("/api/v1/orders", json=order_body(permit, kinds=["controls", "other"]), headers=cast.sup)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"] == {"requirements": ["Kind other needs the requirement stated in words."]}


def test_a_page_of_orders_counts_orders_and_carries_each_ones_events(client, cast, permit, town_clock):
    """The list loads each order's events in the same statement as the orders: a page still holds
    `limit` orders however many events they have, each with all its events in the order they
    happened, as the order itself answers them."""
    orders = [issue(client, cast, permit, deadline=f"2026-05-{day:02d}") for day in (9, 10, 11, 12)]
    minute = 0
    for n, order in enumerate(orders):
        for k in range(n + 1):
            minute += 1
            town_clock.set(date(2026, 5, 4), time(12, minute))
            r = client.post(f"/api/v1/orders/{order['id']}/responses", json={"note": f"Answer {k} to {n}"},
                            headers=cast.app)
            assert r.status_code == 201, r.get_json()
    r = client.get("/api/v1/orders?limit=2&offset=1", headers=cast.sup)
    assert r.status_code == 200 and r.headers["X-Total-Count"] == "4"
    page = r.get_json()
    assert [o["id"] for o in page] == [orders[1]["id"], orders[2]["id"]]
    for listed in page:
        assert listed == client.get(f"/api/v1/orders/{listed['id']}", headers=cast.sup).get_json()
    assert [[e["note"] for e in o["events"]] for o in page] == [
        ["Answer 0 to 1", "Answer 1 to 1"], ["Answer 0 to 2", "Answer 1 to 2", "Answer 2 to 2"]]
