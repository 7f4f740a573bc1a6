"""R-O3 per recipient: the violator and the owner are each notified, each protest window runs from that
recipient's own receipt, and the lien follows the last of them; the MGL c.59 §57 rate is configuration with
effective dates. Every date and amount below is computed by hand from the bylaw text."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

import pytest

from inspect_api.enforcement import rules

from .test_costs import owner, patch, recovery, statement  # noqa: F401  (recovery: fixture)


def violator(sent=None, received=None, **more):
    return {"role": "violator", "name": "Nguyễn Văn Đức", "mailing_address": "12 Bridge St, New Bedford, MA",
            "method": "certified_mail", "sent_on": sent, "received_on": received, **more}


@pytest.fixture
def two_notices(client, cast, recovery, town_clock):
    town_clock.set(date(2026, 6, 12))
    # Owner received 3 June (window: 4 June .. 3 July); violator received 10 June (window ends 10 July).
    r = patch(client, cast, recovery, recipients=[owner("2026-06-01", "2026-06-03"),
                                                   violator("2026-06-01", "2026-06-10")])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_each_recipient_has_its_own_window_and_the_lien_follows_the_last(client, cast, two_notices):
    by_role = {n["role"]: n for n in two_notices["recipients"]}
    assert by_role["owner"]["protest_window_ends"] == "2026-07-03"
    assert by_role["violator"]["protest_window_ends"] == "2026-07-10"
    assert by_role["violator"]["name"] == "Nguyễn Văn Đức" and by_role["violator"]["method"] == "certified_mail"
    assert two_notices["protest_window_ends"] == "2026-07-10"            # the last recipient's (R-O3)
    s = statement(client, cast.sup, two_notices, "2026-07-04")
    # Due from the first receipt (3 June); interest from day 31 = 4 July: 3000.00 x 0.14 / 365 = 1.15.
    assert (s["due_on"], s["interest_from"], s["interest"]) == ("2026-06-03", "2026-07-04", "1.15")
    # The owner's window ended 3 July, but the violator may protest until 10 July: no lien before its end.
    assert (s["lien_on"], s["status"]) == ("2026-07-10", "due")
    s = statement(client, cast.sup, two_notices, "2026-07-11")
    assert (s["lien_on"], s["status"]) == ("2026-07-10", "lien")


def test_violator_protests_on_their_own_day_30_the_owner_cannot_on_day_31(client, cast, two_notices, town_clock):
    by_role = {n["role"]: n for n in two_notices["recipients"]}
    path = f"/api/v1/cost-recoveries/{two_notices['id']}/protest"
    town_clock.set(date(2026, 7, 10))                                   # violator's day 30, owner's day 37
    r = client.post(path, json={"text": "Paper protest", "filed_on": "2026-07-04",
                                "recipient_id": by_role["owner"]["id"]}, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "protest_window_closed"
    assert "2026-07-03" in r.get_json()["message"]
    r = client.post(path, json={"text": "Paper protest"}, headers=cast.sup)
    assert r.status_code == 422 and "recipient_id" in r.get_json()["errors"]   # two recipients: say whose
    r = client.post(path, json={"text": "The crew hours are wrong", "recipient_id": by_role["violator"]["id"]},
                    headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["status"] == "protest_pending" and body["lien_on"] is None
    protested = {n["role"]: n["protest"] for n in body["recipients"]}
    assert protested["violator"]["filed_on"] == "2026-07-10" and protested["owner"] is None


def test_an_applicant_protests_only_a_notice_addressed_to_them(client, cast, two_notices, town_clock):
    by_role = {n["role"]: n for n in two_notices["recipients"]}
    path = f"/api/v1/cost-recoveries/{two_notices['id']}/protest"
    r = client.post(path, json={"text": "x", "recipient_id": by_role["violator"]["id"]}, headers=cast.app)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    r = client.post(path, json={"text": "For the owner", "recipient_id": by_role["owner"]["id"]}, headers=cast.app)
    assert r.status_code == 201


def test_recipient_from_a_party_of_the_permit(client, cast, recovery, permit):
    owner_party = next(p for p in permit.parties if p.role == "owner")
    r = patch(client, cast, recovery, recipients=[{"party_id": owner_party.id, "method": "hand",
                                                   "sent_on": "2026-06-01", "received_on": "2026-06-01"}])
    assert r.status_code == 200, r.get_json()
    notice = r.get_json()["recipients"][0]
    assert (notice["role"], notice["name"], notice["party_id"]) == ("owner", owner_party.name, owner_party.id)
    r = patch(client, cast, r.get_json(), recipients=[{"party_id": "not-a-party", "sent_on": "2026-06-01"}])
    assert r.status_code == 422 and "recipients.0.party_id" in r.get_json()["errors"]


# --- R-O3: the interest rate is configuration with effective dates --------------------------------
def test_parse_rates_and_rate_on():
    rates = rules.parse_rates("2027-01-01=0.10, 1900-01-01=0.14")
    assert rates == ((date(1900, 1, 1), D("0.14")), (date(2027, 1, 1), D("0.10")))
    assert rules.rate_on(rates, date(2026, 12, 31)) == D("0.14")
    assert rules.rate_on(rates, date(2027, 1, 1)) == D("0.10")
    for bad in ("", "2027-01-01", "2027-13-01=0.1", "2027-01-01=1.5", "2027-01-01=0.1,2027-01-01=0.2"):
        with pytest.raises(ValueError):
            rules.parse_rates(bad)


def test_interest_follows_the_rate_in_force_each_day():
    rates = rules.parse_rates("1900-01-01=0.14,2027-01-01=0.10")
    # 22-31 Dec 2026: 10 days x 3650.00 x 0.14 / 365 = 14.00; 1-10 Jan 2027: 10 days x 0.10 = 10.00.
    assert rules.accrued_interest(D("3650.00"), [], date(2026, 12, 22), date(2027, 1, 10), rates) == D("24.00")
    # The statutory 14 % on $1,000 over 365 days is $140.00 with the default schedule.
    assert rules.accrued_interest(D("1000.00"), [], date(2026, 1, 1), date(2026, 12, 31)) == D("140.00")


def test_statement_uses_the_configured_rates(app, client, cast, two_notices, monkeypatch):
    monkeypatch.setitem(app.config, "COST_INTEREST_RATES", "1900-01-01=0.14,2026-07-14=0.0730")
    # 4-13 July: 10 days x 3000.00 x 0.14 / 365 = 11.506...; 14-23 July: 10 days x 0.073 = 6.00; total 17.51.
    s = statement(client, cast.sup, two_notices, "2026-07-23")
    assert (s["interest"], s["interest_rate"]) == ("17.51", "0.0730")
    assert s["interest_rates"] == [{"effective_from": "1900-01-01", "rate": "0.14"},
                                   {"effective_from": "2026-07-14", "rate": "0.0730"}]


def test_a_malformed_rate_setting_stops_the_app_at_start():
    from inspect_api import create_app
    from inspect_api.config import TestConfig
    with pytest.raises(RuntimeError, match="COST_INTEREST_RATES"):
        create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", COST_INTEREST_RATES="2027-01-01=14%"))
