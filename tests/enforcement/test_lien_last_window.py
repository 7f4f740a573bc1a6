"""R-O3 as corrected: the costs become a lien only once no recipient may still protest, i.e. after the
last recipient's window; a protest after its own recipient's window is refused, so a lien that has
attached never goes away again. The example of issue 29, each day computed by hand: the owner received
the notice on 23 March, the violator on 30 March; the windows end on 22 April and 29 April (received +
30); the lien attaches at the end of 29 April, so a statement of 29 April is still `due` and one of
30 April shows the lien."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from inspect_api.enforcement import rules
from inspect_api.enforcement.models import LienCertificate
from inspect_api.extensions import db

from ..pdf_support import pdf_text

from .test_costs import ITEMS, owner, patch, statement
from .test_orders import issue
from .test_recipients_and_rates import violator


@pytest.fixture
def march(client, cast, permit, town_clock):
    town_clock.set(date(2027, 2, 1))
    order = issue(client, cast, permit, deadline="2027-02-15")
    town_clock.set(date(2027, 3, 2))
    r = client.post("/api/v1/cost-recoveries", json={"order_id": order["id"], "abatement_completed_on": "2027-03-01",
                                                     "items": ITEMS}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    town_clock.set(date(2027, 4, 1))
    r = patch(client, cast, r.get_json(), recipients=[owner("2027-03-20", "2027-03-23"),
                                                      violator("2027-03-20", "2027-03-30")])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _protest(client, cast, record, role, town_clock, on):
    town_clock.set(on)
    notice = next(n for n in record["recipients"] if n["role"] == role)
    return client.post(f"/api/v1/cost-recoveries/{record['id']}/protest",
                       json={"text": "The costs are too high", "recipient_id": notice["id"]}, headers=cast.sup)


def test_no_lien_while_the_violator_may_still_protest(client, cast, march, town_clock):
    by_role = {n["role"]: n["protest_window_ends"] for n in march["recipients"]}
    assert by_role == {"owner": "2027-04-22", "violator": "2027-04-29"}
    assert march["protest_window_ends"] == "2027-04-29"          # the last recipient's: the lien follows it
    for day in ("2027-04-23", "2027-04-29"):                      # after the owner's window; the violator's last day
        s = statement(client, cast.sup, march, day)
        assert (s["lien_on"], s["status"], s["protest_window_ends"]) == ("2027-04-29", "due", "2027-04-29"), day
    s = statement(client, cast.sup, march, "2027-04-30")          # the day after the last window
    assert (s["lien_on"], s["lien_amount"], s["status"]) == ("2027-04-29", "3000.00", "lien")


def test_the_violator_protests_inside_their_window_the_owner_is_refused(client, cast, march, town_clock):
    r = _protest(client, cast, march, "owner", town_clock, date(2027, 4, 25))
    assert r.status_code == 409, r.get_json()
    assert r.get_json()["error"] == "protest_window_closed" and "2027-04-22" in r.get_json()["message"]
    r = _protest(client, cast, march, "violator", town_clock, date(2027, 4, 25))
    assert r.status_code == 201, r.get_json()
    assert (r.get_json()["status"], r.get_json()["lien_on"]) == ("protest_pending", None)


def test_a_lien_once_attached_is_not_undone_by_a_late_protest(client, cast, march, town_clock):
    town_clock.set(date(2027, 4, 30))
    before = statement(client, cast.sup, march, "2027-04-30")
    assert before["status"] == "lien"
    r = _protest(client, cast, march, "violator", town_clock, date(2027, 4, 30))
    assert r.status_code == 409 and r.get_json()["error"] == "protest_window_closed"
    assert "2027-04-29" in r.get_json()["message"]
    after = statement(client, cast.sup, march, "2027-04-30")
    assert (after["status"], after["lien_on"]) == ("lien", "2027-04-29")


def test_no_lien_while_a_recipient_has_not_received_the_notice(client, cast, march, town_clock):
    ids = {n["role"]: n["id"] for n in march["recipients"]}
    r = patch(client, cast, march, recipients=[{"id": ids["owner"]}, {"id": ids["violator"], "received_on": None}])
    assert r.status_code == 200, r.get_json()
    record = r.get_json()
    assert [n["received_on"] for n in record["recipients"]] == ["2027-03-23", None]
    s = statement(client, cast.sup, record, "2027-06-30")
    assert (s["lien_on"], s["status"]) == (None, "due")


def test_lien_day_is_the_end_of_the_last_window():
    """R-O3, pure: the last of the windows, once every recipient has received the notice."""
    notices = (rules.NoticeFacts("owner", date(2027, 3, 20), date(2027, 3, 23)),
               rules.NoticeFacts("violator", date(2027, 3, 20), date(2027, 3, 30)))
    assert rules.last_window_ends(notices) == date(2027, 4, 29)
    assert rules.last_window_ends(notices[:1]) == date(2027, 4, 22)
    assert rules.last_window_ends((notices[0], rules.NoticeFacts("violator", date(2027, 3, 20), None))) is None
    assert rules.last_window_ends(notices[1:]) is None            # no owner notified: no lien on their property


def test_a_lien_certificate_is_kept_and_marked_superseded_when_its_lien_date_moves(client, cast, march, town_clock):
    url = f"/api/v1/cost-recoveries/{march['id']}"
    town_clock.set(date(2027, 4, 30))
    first = client.get(url + "/lien-certificate.pdf", headers=cast.sup)
    assert first.status_code == 200 and first.mimetype == "application/pdf"
    assert "Lien attached at the end of April 29, 2027" in pdf_text(first.data)
    town_clock.set(date(2027, 5, 3))
    again = client.get(url + "/lien-certificate.pdf", headers=cast.sup)
    assert again.status_code == 200 and again.data == first.data      # the one produced, as it was
    [kept] = client.get(url, headers=cast.sup).get_json()["lien_certificates"]
    assert (kept["lien_on"], kept["lien_amount"], kept["produced_on"], kept["superseded"]) == (
        "2027-04-29", "3000.00", "2027-04-30", False)
    # The violator's receipt was recorded wrongly: received 2 April, so their window ends 2 May.
    ids = {n["role"]: n["id"] for n in march["recipients"]}
    record = client.get(url, headers=cast.sup).get_json()
    r = patch(client, cast, record, recipients=[{"id": ids["owner"]}, {"id": ids["violator"], "received_on": "2027-04-02"}])
    assert r.status_code == 200, r.get_json()
    [old] = r.get_json()["lien_certificates"]
    assert (old["id"], old["lien_on"], old["superseded"]) == (kept["id"], "2027-04-29", True)
    assert old["superseded_at"] is not None and r.get_json()["lien_on"] == "2027-05-02"
    new = client.get(url + "/lien-certificate.pdf", headers=cast.sup)
    assert new.status_code == 200 and "Lien attached at the end of May 2, 2027" in pdf_text(new.data)
    listed = client.get(url, headers=cast.sup).get_json()["lien_certificates"]
    assert [(c["lien_on"], c["superseded"]) for c in listed] == [("2027-04-29", True), ("2027-05-02", False)]
    r = client.get(old["pdf_url"], headers=cast.sup)
    assert r.status_code == 200 and r.data == first.data              # the superseded one is kept
    assert client.get(old["pdf_url"], headers=cast.app).status_code == 403


def test_a_certificate_stating_an_old_lien_date_reads_as_superseded(app, client, cast, march, town_clock):
    """Statements are computed when read, so a lien moved by the corrected rule shows the certificate
    produced under the old one (lien at the end of the owner's window, 22 April) as superseded."""
    db.session.add(LienCertificate(cost_recovery_id=march["id"], lien_on=date(2027, 4, 22),
                                   lien_amount=Decimal("3000.00"), produced_on=date(2027, 4, 23),
                                   sha256="0" * 64, storage_key=f"sha256/00/00/{'0' * 64}.pdf"))
    db.session.commit()
    town_clock.set(date(2027, 4, 30))
    [old] = client.get(f"/api/v1/cost-recoveries/{march['id']}", headers=cast.sup).get_json()["lien_certificates"]
    assert (old["lien_on"], old["superseded"]) == ("2027-04-22", True)
    r = client.get(f"/api/v1/cost-recoveries/{march['id']}/lien-certificate.pdf", headers=cast.sup)
    assert r.status_code == 200 and "Lien attached at the end of April 29, 2027" in pdf_text(r.data)
    listed = client.get(f"/api/v1/cost-recoveries/{march['id']}", headers=cast.sup).get_json()["lien_certificates"]
    assert [(c["lien_on"], c["superseded"], c["superseded_at"] is not None) for c in listed] == [
        ("2027-04-22", True, True), ("2027-04-29", False, False)]
