"""Town-performed work and cost recovery through the API (R-O2, R-O3): windows, protest, decisions,
interest, payments, liens; money as two-decimal strings; who may do what."""
from __future__ import annotations

from datetime import date

import pytest

from .test_orders import issue

ITEMS = [{"category": "labor", "description": "DPW crew, 2 x 6 h", "amount": "720.00"},
         {"category": "equipment", "description": "Excavator, 4 h", "amount": "480.00"},
         {"category": "materials", "description": "Silt fence and stakes", "amount": 134.5},
         {"category": "contractor", "description": "Hydroseeding", "amount": "1500.00"},
         {"category": "administrative", "description": "Notice and supervision", "amount": "165.50"}]
TOTAL = "3000.00"


@pytest.fixture
def recovery(client, cast, permit, town_clock):
    """Order deadline 9 May passed unmet; the Town finished the work on 18 May."""
    order = issue(client, cast, permit)
    town_clock.set(date(2026, 5, 20))
    r = client.post("/api/v1/cost-recoveries", json={"order_id": order["id"], "abatement_completed_on": "2026-05-18",
                                                     "description": "Town re-installed the controls", "items": ITEMS},
                    headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    town_clock.set(date(2026, 6, 5))
    return r.get_json()


def patch(client, cast, record, **changes):
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", json={**changes, "version": record["version"]},
                     headers=cast.sup)
    return r


def owner(sent=None, received=None, **more):
    return {"role": "owner", "name": "Ana Souza", "method": "certified_mail", "sent_on": sent, "received_on": received,
            **more}


def noticed(client, cast, record, sent="2026-06-01", received="2026-06-03"):
    r = patch(client, cast, record, recipients=[owner(sent, received)])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def statement(client, headers, record, on):
    r = client.get(f"/api/v1/cost-recoveries/{record['id']}/statement?on={on}", headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_record_town_work(client, cast, recovery):
    assert recovery["costs_total"] == TOTAL and recovery["amount_due"] == TOTAL
    assert [i["amount"] for i in recovery["items"]] == ["720.00", "480.00", "134.50", "1500.00", "165.50"]
    assert recovery["notice_due_by"] == "2026-06-17" and recovery["notice_late"] is False
    assert recovery["status"] == "not_noticed" and recovery["order_number"] == "ORD-2026-0001"
    order = client.get(f"/api/v1/orders/{recovery['order_id']}", headers=cast.app).get_json()
    assert order["status"] == "town_performed"


def test_town_work_only_after_the_deadline(client, cast, permit, town_clock):
    order = issue(client, cast, permit)
    body = {"order_id": order["id"], "abatement_completed_on": "2026-05-09", "items": ITEMS}
    town_clock.set(date(2026, 5, 12))
    r = client.post("/api/v1/cost-recoveries", json=body, headers=cast.sup)
    assert r.status_code == 422 and "abatement_completed_on" in r.get_json()["errors"]
    for headers in (cast.insp, cast.app):
        r = client.post("/api/v1/cost-recoveries", json={**body, "abatement_completed_on": "2026-05-10"},
                        headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


@pytest.mark.parametrize("amount, message", [("12.345", "At most two decimal places."), ("-5.00", None),
                                             ("0.00", None), ("abc", "Not an amount of money."), (True, None)])
def test_money_is_validated_not_rounded(client, cast, permit, town_clock, amount, message):
    order = issue(client, cast, permit)
    town_clock.set(date(2026, 5, 12))
    items = [{"category": "labor", "description": "crew", "amount": amount}]
    r = client.post("/api/v1/cost-recoveries", json={"order_id": order["id"], "abatement_completed_on": "2026-05-11",
                                                     "items": items}, headers=cast.sup)
    assert r.status_code == 422
    errors = r.get_json()["errors"]["items"]["0"]["amount"]
    assert message is None or errors == [message]


def test_late_notice_is_flagged(client, cast, recovery, town_clock):
    r = patch(client, cast, recovery, recipients=[owner("2026-06-06")])
    assert r.status_code == 422 and r.get_json()["errors"] == {"recipients.0.sent_on": ["Cannot be in the future."]}
    town_clock.set(date(2026, 6, 20))
    on_time = patch(client, cast, recovery, recipients=[owner("2026-06-17")]).get_json()   # day 30
    assert on_time["notice_late"] is False and on_time["recipients"][0]["notice_late"] is False
    notice_id = on_time["recipients"][0]["id"]
    late = patch(client, cast, on_time, recipients=[{"id": notice_id, "sent_on": "2026-06-18"}]).get_json()  # day 31
    assert late["notice_late"] is True and late["notice_sent_on"] == "2026-06-18"
    assert late["recipients"][0]["id"] == notice_id and late["recipients"][0]["notice_late"] is True


def test_costs_are_fixed_once_notified(client, cast, recovery):
    record = noticed(client, cast, recovery)
    r = patch(client, cast, record, items=ITEMS[:1])
    assert r.status_code == 409 and r.get_json()["error"] == "notice_already_sent"
    notice_id = record["recipients"][0]["id"]
    r = patch(client, cast, record, recipients=[{"id": notice_id, "received_on": "2026-05-30"}])
    assert r.status_code == 422 and "recipients.0.received_on" in r.get_json()["errors"]
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", json={"version": record["version"],
                                                                      "court_case_note": "x"}, headers=cast.app)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


def test_protest_on_the_last_day(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery)          # received 3 June: day 30 is 3 July
    assert record["protest_window_ends"] == "2026-07-03"
    town_clock.set(date(2026, 7, 3))
    r = client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "The crew hours are wrong."},
                    headers=cast.app)
    assert r.status_code == 201
    body = r.get_json()
    assert body["recipients"][0]["protest"]["filed_on"] == "2026-07-03" and body["status"] == "protest_pending"
    assert body["lien_on"] is None
    r = client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "again"}, headers=cast.app)
    assert r.status_code == 409 and r.get_json()["error"] == "protest_exists"


def test_protest_on_day_31_is_refused(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery)
    town_clock.set(date(2026, 7, 4))
    r = client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "Too much."}, headers=cast.app)
    assert r.status_code == 409
    assert r.get_json()["error"] == "protest_window_closed"
    assert "2026-07-03" in r.get_json()["message"]


def test_paper_protest_recorded_by_a_supervisor(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery)
    town_clock.set(date(2026, 7, 10))
    path = f"/api/v1/cost-recoveries/{record['id']}/protest"
    r = client.post(path, json={"text": "By mail", "filed_on": "2026-07-04"}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "protest_window_closed"
    r = client.post(path, json={"text": "By mail", "filed_on": "2026-07-01"}, headers=cast.app)
    assert r.status_code == 403                      # applicants cannot backdate
    r = client.post(path, json={"text": "By mail", "filed_on": "2026-07-03"}, headers=cast.sup)
    assert r.status_code == 201 and r.get_json()["recipients"][0]["protest"]["filed_on"] == "2026-07-03"
    record = r.get_json()
    notice_id = record["recipients"][0]["id"]
    r = patch(client, cast, record, recipients=[{"id": notice_id, "received_on": None}])
    assert r.status_code == 422 and "recipients.0.received_on" in r.get_json()["errors"]
    r = patch(client, cast, record, recipients=[{"id": notice_id, "received_on": "2026-06-02"}])  # protest late
    assert r.status_code == 422 and "recipients.0.received_on" in r.get_json()["errors"]
    r = patch(client, cast, record, recipients=[])                     # the protester's notice stays
    assert r.status_code == 422 and "recipients" in r.get_json()["errors"]


def test_who_may_protest(client, cast, recovery, factory):
    record = noticed(client, cast, recovery)
    path = f"/api/v1/cost-recoveries/{record['id']}/protest"
    r = client.post(path, json={"text": "x"}, headers=cast.other)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.other).status_code == 404
    assert client.get(f"/api/v1/cost-recoveries/{record['id']}/statement", headers=cast.other).status_code == 404
    assert client.get("/api/v1/cost-recoveries", headers=cast.other).get_json() == []
    r = client.post(path, json={"text": "x"}, headers=cast.insp)
    assert r.status_code == 403
    assert client.get(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.app).get_json()["id"] == record["id"]


def test_protest_needs_a_notice(client, cast, recovery):
    r = client.post(f"/api/v1/cost-recoveries/{recovery['id']}/protest", json={"text": "x"}, headers=cast.app)
    assert r.status_code == 409 and r.get_json()["error"] == "notice_not_sent"


def test_decision_reduce_then_lien_and_interest(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery)
    town_clock.set(date(2026, 6, 20))
    client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "Too much"}, headers=cast.app)
    path = f"/api/v1/cost-recoveries/{record['id']}/decision"
    r = client.post(path, json={"decision": "affirm", "decided_on": "2026-06-21"}, headers=cast.sup)
    assert r.status_code == 422 and "decided_on" in r.get_json()["errors"]      # not in the future
    town_clock.set(date(2026, 7, 1))
    r = client.post(path, json={"decision": "reduce", "amount": "3000.00"}, headers=cast.sup)
    assert r.status_code == 422 and "amount" in r.get_json()["errors"]
    r = client.post(path, json={"decision": "reduce", "amount": "1825.00"}, headers=cast.app)
    assert r.status_code == 403
    r = client.post(path, json={"decision": "reduce", "amount": "1825.00", "decided_on": "2026-07-01",
                                "reason": "Crew hours corrected"}, headers=cast.sup)
    assert r.status_code == 200
    body = r.get_json()
    assert body["decision"]["decision"] == "reduce" and body["decision"]["amount"] == "1825.00"
    assert body["amount_due"] == "1825.00" and body["lien_on"] == "2026-07-31"
    r = client.post(path, json={"decision": "void"}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    # Due since receipt (3 June); interest from day 31 (4 July) on the reduced 1825.00 = 0.70 a day.
    s = statement(client, cast.app, record, "2026-07-31")
    assert (s["principal"], s["interest"], s["total_due"], s["status"]) == ("1825.00", "19.60", "1844.60", "due")
    assert s["interest_from"] == "2026-07-04" and s["lien_amount"] == "1825.00"
    assert statement(client, cast.app, record, "2026-08-01")["status"] == "lien"


def test_statement_interest_day_30_and_31_and_payments(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery, received="2026-06-03")
    day30 = statement(client, cast.app, record, "2026-07-03")
    assert (day30["interest"], day30["total_due"], day30["status"]) == ("0.00", TOTAL, "due")
    assert (day30["due_on"], day30["interest_from"], day30["lien_on"]) == ("2026-06-03", "2026-07-04", "2026-07-03")
    assert (day30["interest_rate"], day30["day_count"]) == ("0.14", "actual/365")
    day31 = statement(client, cast.app, record, "2026-07-04")
    # 3000.00 x 0.14 / 365 = 1.1506... -> 1.15
    assert (day31["interest"], day31["total_due"], day31["status"]) == ("1.15", "3001.15", "lien")
    town_clock.set(date(2026, 8, 1))
    r = client.post(f"/api/v1/cost-recoveries/{record['id']}/payments",
                    json={"paid_on": "2026-07-14", "amount": "1000.00", "reference": "check 1043"}, headers=cast.sup)
    assert r.status_code == 201 and r.get_json()["payments"][0]["amount"] == "1000.00"
    # 4-13 July on 3000.00 (10 days), 14-23 July on 2000.00 (10 days): 50000 x 0.14 / 365 = 19.178... -> 19.18
    s = statement(client, cast.app, record, "2026-07-23")
    assert (s["principal_outstanding"], s["payments_total"], s["interest"], s["total_due"]) == (
        "2000.00", "1000.00", "19.18", "2019.18")
    assert s["payments"] == [{"id": r.get_json()["payments"][0]["id"], "paid_on": "2026-07-14", "amount": "1000.00",
                              "reference": "check 1043"}]
    r = client.post(f"/api/v1/cost-recoveries/{record['id']}/payments",
                    json={"paid_on": "2026-07-15", "amount": "5.00"}, headers=cast.app)
    assert r.status_code == 403


def test_statement_defaults_to_today(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery, received="2026-06-03")
    town_clock.set(date(2026, 7, 4))
    s = client.get(f"/api/v1/cost-recoveries/{record['id']}/statement", headers=cast.sup).get_json()
    assert s["on"] == "2026-07-04" and s["interest"] == "1.15"


def test_court_decision(client, cast, recovery, town_clock):
    record = noticed(client, cast, recovery)
    town_clock.set(date(2026, 6, 20))
    client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "Too much"}, headers=cast.app)
    record = client.get(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.sup).get_json()
    r = patch(client, cast, record, court_amount="2000.00")
    assert r.status_code == 422 and "court_amount" in r.get_json()["errors"]
    town_clock.set(date(2026, 10, 2))
    r = patch(client, cast, record, court_decision_on="2026-09-01", court_amount="2000.00",
              court_case_note="New Bedford District Court, affirmed in part")
    assert r.status_code == 200
    # R-O3 (corrected): "within 30 days following ... a final decision of a court": 1 Sep + 30 = 1 Oct, not 1 Sep.
    assert (r.get_json()["amount_due"], r.get_json()["lien_on"], r.get_json()["status"]) == (
        "2000.00", "2026-10-01", "lien")
    assert statement(client, cast.sup, record, "2026-10-01")["status"] == "due"      # the lien attaches at its end
    assert statement(client, cast.sup, record, "2026-09-30")["lien_on"] == "2026-10-01"
