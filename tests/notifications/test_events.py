"""The two events wired end to end through the API (API.md "Notifications"): an issued order goes to
each recipient party with its PDF (R-O1, §B(3)); a cost notice recorded as sent goes to that recipient
with its own notice (R-O3). Who sees the delivery evidence, and a failed request sending nothing."""
from __future__ import annotations

import hashlib
import io
from datetime import date

from pypdf import PdfReader
from sqlalchemy import func, select

from inspect_api.enforcement.models import Order
from inspect_api.extensions import db
from inspect_api.notifications import worker
from inspect_api.notifications.models import Notification
from inspect_api.permits.models import Party

from ..enforcement.conftest import cast, town_clock  # noqa: F401  (fixtures)
from ..enforcement.test_costs import ITEMS

VIOLATOR = {"role": "violator", "name": "Nguyễn Văn Đức", "mailing_address": "12 Bridge St, New Bedford, MA 02740",
            "email": "duc@example.org"}


def open_case(client, factory, cast, violator=VIOLATOR):
    body = factory.permit_payload(parties=[violator], proposed_use="unpermitted clearing",
                                  owner={"name": "Ana Souza", "email": "ana@example.org",
                                         "mailing_address": "3 Fort St, Fairhaven, MA 02719"})
    r = client.post("/api/v1/permits", json=body, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def issue(client, cast, permit_id, deadline="2026-05-15"):
    r = client.post("/api/v1/orders", json={
        "permit_id": permit_id, "kinds": ["remediation"], "deadline": deadline,
        "requirements": [{"kind": "remediation", "text": "Stabilize the cleared slope with seed and mulch"}],
        "violated": [{"provision_kind": "bylaw", "provision": "§194-21(A)"}]}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def messages(client, headers, **query):
    r = client.get("/api/v1/notifications", query_string=query, headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_issued_order_is_queued_to_violator_and_owner_with_its_pdf(app, client, factory, cast, town_clock):
    app.config["PUBLIC_BASE_URL"] = "https://permits.example.org"
    case = open_case(client, factory, cast)
    order = issue(client, cast, case["id"])
    found = messages(client, cast.sup, record_id=order["id"])
    assert sorted((m["recipient"]["role"], m["recipient"]["email"], m["status"]) for m in found) == [
        ("owner", "ana@example.org", "queued"), ("violator", "duc@example.org", "queued")]
    for m in found:
        assert (m["event"], m["record_type"], m["permit_id"], m["required"]) == ("order_issued", "order", case["id"],
                                                                                True)
        assert m["subject"] == ("Enforcement order ORD-2026-0001: " + case["site"]["address"]
                                + " - act by Friday, May 15, 2026")
        assert m["link"] == f"https://permits.example.org/#/permit/{case['id']}"
        assert (m["attempts"], m["sent_at"], m["message_id"]) == (0, None, None)
        [attachment] = m["attachments"]
        assert (attachment["name"], attachment["content_type"]) == ("ORD-2026-0001.pdf", "application/pdf")
    # One PDF for both, stored once, and it is the order.
    assert found[0]["attachments"] == found[1]["attachments"]
    from inspect_api.storage import blob_key, get_storage
    with get_storage().open(blob_key(found[0]["attachments"][0]["sha256"])) as blob:
        data = blob.read()
    assert hashlib.sha256(data).hexdigest() == found[0]["attachments"][0]["sha256"]
    assert len(data) == found[0]["attachments"][0]["bytes"]
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    assert "Enforcement Order ORD-2026-0001" in text and "Nguyễn Văn Đức" in text
    row = db.session.scalar(select(Notification).where(Notification.recipient_role == "violator"))
    assert "Stabilize the cleared slope with seed and mulch" in row.body_text
    assert "Friday, May 15, 2026" in row.body_text and "enforcement case ENF-2026-0001" in row.body_text
    assert "Town Hall, 40 Center Street" in row.body_text


def test_party_without_email_is_recorded_failed_not_dropped(client, factory, cast, town_clock):
    case = open_case(client, factory, cast, violator={**VIOLATOR, "email": None})
    order = issue(client, cast, case["id"])
    by_role = {m["recipient"]["role"]: m for m in messages(client, cast.sup, record_id=order["id"])}
    assert by_role["violator"]["status"] == "failed" and by_role["violator"]["recipient"]["email"] is None
    assert by_role["violator"]["failure_reason"] == ("No e-mail address on file for Nguyễn Văn Đức (violator); "
                                                     "serve the notice another way.")
    assert by_role["owner"]["status"] == "queued"
    assert [m["recipient"]["role"] for m in messages(client, cast.sup, record_id=order["id"], status="failed")] == [
        "violator"]


def test_who_sees_which_message(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    owner = db.session.scalar(select(Party).where(Party.permit_id == case["id"], Party.role == "owner"))
    owner.user_id = cast.applicant.id  # the owner has an account: the applicant's
    db.session.commit()
    order = issue(client, cast, case["id"])
    assert len(messages(client, cast.sup, record_id=order["id"])) == 2
    mine = messages(client, cast.app, record_id=order["id"])
    assert [(m["recipient"]["role"], m["recipient"]["user_id"]) for m in mine] == [("owner", cast.applicant.id)]
    assert messages(client, cast.app, permit_id=case["id"]) == mine
    for headers in (cast.other, cast.insp, cast.adm):
        assert messages(client, headers, record_id=order["id"]) == []
        assert messages(client, headers) == []


def test_paging_filters_and_validation(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    first, second = issue(client, cast, case["id"]), issue(client, cast, case["id"], deadline="2026-05-20")
    r = client.get("/api/v1/notifications", query_string={"permit_id": case["id"], "limit": 3}, headers=cast.sup)
    assert r.status_code == 200 and r.headers["X-Total-Count"] == "4" and len(r.get_json()) == 3
    assert {m["record_id"] for m in messages(client, cast.sup, record_id=second["id"])} == {second["id"]}
    assert len(messages(client, cast.sup, event="order_issued")) == 4
    assert messages(client, cast.sup, event="cost_notice_sent") == []
    r = client.get("/api/v1/notifications?record_id=not-a-uuid", headers=cast.sup)
    assert r.status_code == 422 and r.get_json()["error"] == "validation_error" and "record_id" in r.get_json()["errors"]
    r = client.get("/api/v1/notifications?limit=501", headers=cast.sup)
    assert r.status_code == 422
    assert client.get("/api/v1/notifications").status_code == 401
    assert first["id"] != second["id"]


def test_request_failing_after_the_service_leaves_nothing_in_the_outbox(app, client, factory, cast, town_clock,
                                                                        monkeypatch):
    case = open_case(client, factory, cast)
    from inspect_api.enforcement import routes, services
    real = services.create_order

    def create_then_fail(*args, **kwargs):
        result = real(*args, **kwargs)
        assert db.session.scalar(select(func.count()).select_from(Notification)) == 2  # enqueued ...
        raise RuntimeError("forced failure after the service call")

    monkeypatch.setattr(routes.services, "create_order", create_then_fail)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    r = client.post("/api/v1/orders", json={"permit_id": case["id"], "kinds": ["controls"], "deadline": "2026-05-15",
                                            "requirements": [{"kind": "controls", "text": "Fence"}]},
                    headers=cast.sup)
    assert r.status_code == 500 and r.get_json()["code"] == 500
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Notification)) == 0  # ... and rolled back with it
    assert db.session.scalar(select(func.count()).select_from(Order)) == 0


def test_cost_notice_sent_goes_to_each_recipient_once_with_its_notice(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    parties = {p["role"]: p for p in case["parties"]}
    order = issue(client, cast, case["id"])
    town_clock.set(date(2026, 5, 20))
    r = client.post("/api/v1/cost-recoveries", json={"order_id": order["id"], "abatement_completed_on": "2026-05-18",
                                                     "items": ITEMS}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    record = r.get_json()
    recipients = [{"party_id": parties["owner"]["id"], "method": "email", "sent_on": "2026-05-20"},
                  {"party_id": parties["violator"]["id"], "method": "certified_mail"}]
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", json={"recipients": recipients,
                                                                      "version": record["version"]},
                     headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    record = r.get_json()
    found = messages(client, cast.sup, record_id=record["id"])
    assert [(m["event"], m["recipient"]["role"], m["recipient"]["email"], m["record_type"]) for m in found] == [
        ("cost_notice_sent", "owner", "ana@example.org", "cost_recovery")]
    assert found[0]["subject"].startswith("Notice of costs for order ORD-2026-0001: $3,000.00")
    [attachment] = found[0]["attachments"]
    assert attachment["name"] == "notice-of-costs-ORD-2026-0001.pdf"
    from inspect_api.storage import blob_key, get_storage
    with get_storage().open(blob_key(attachment["sha256"])) as blob:
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(blob.read())).pages)
    assert "Notice of Costs" in text and "Ana Souza" in text and "$3,000.00" in text
    # The violator's notice is recorded sent later: that recipient now, and the owner not again.
    by_party = {n["party_id"]: n for n in record["recipients"]}
    again = [{"id": by_party[parties["owner"]["id"]]["id"], "received_on": "2026-05-20"},
             {"id": by_party[parties["violator"]["id"]]["id"], "sent_on": "2026-05-20"}]
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", json={"recipients": again,
                                                                      "version": record["version"]},
                     headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    found = messages(client, cast.sup, record_id=record["id"])
    assert sorted(m["recipient"]["role"] for m in found) == ["owner", "violator"]


def test_issued_order_reaches_the_smtp_server(app, client, factory, cast, town_clock, smtp_server):
    app.config["SMTP_URL"] = smtp_server.url
    case = open_case(client, factory, cast)
    order = issue(client, cast, case["id"])
    assert worker.drain("w1").sent == 2
    found = messages(client, cast.sup, record_id=order["id"])
    assert {m["status"] for m in found} == {"sent"} and all(m["sent_at"] for m in found)
    received = {env["rcpt_tos"][0]: mail for env, mail in smtp_server.received()}
    assert set(received) == {"ana@example.org", "duc@example.org"}
    for m in found:
        mail = received[m["recipient"]["email"]]
        assert mail["Message-ID"] == m["message_id"] and mail["Subject"] == m["subject"]
        [attachment] = list(mail.iter_attachments())
        assert hashlib.sha256(attachment.get_content()).hexdigest() == m["attachments"][0]["sha256"]


def test_an_order_sent_again_with_its_id_is_not_mailed_again(client, factory, cast, town_clock):
    import uuid
    case = open_case(client, factory, cast)
    body = {"id": str(uuid.uuid4()), "permit_id": case["id"], "kinds": ["controls"], "deadline": "2026-05-15",
            "requirements": [{"kind": "controls", "text": "Fence"}]}
    assert client.post("/api/v1/orders", json=body, headers=cast.sup).status_code == 201
    assert client.post("/api/v1/orders", json=body, headers=cast.sup).status_code == 200
    assert len(messages(client, cast.sup, record_id=body["id"])) == 2


def test_an_order_pushed_from_a_device_is_mailed_once(client, factory, cast, town_clock):
    import uuid
    case = open_case(client, factory, cast)
    order_id = str(uuid.uuid4())
    mutation = {"mutation_id": str(uuid.uuid4()), "entity": "order", "id": order_id, "op": "upsert",
                "base_version": None, "data": {"permit_id": case["id"], "kinds": ["controls"], "deadline": "2026-05-15",
                                               "requirements": [{"kind": "controls", "text": "Fence"}]}}
    for expected in ("applied", "duplicate"):
        r = client.post("/api/v1/sync/push", json={"device_id": "office-tablet", "mutations": [mutation]},
                        headers=cast.sup)
        assert r.status_code == 200 and r.get_json()["results"][0]["status"] == expected, r.get_json()
    found = messages(client, cast.sup, record_id=order_id)
    assert sorted(m["recipient"]["role"] for m in found) == ["owner", "violator"]


def test_a_party_added_to_an_order_later_is_sent_it_and_the_others_not_again(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    parties = {p["role"]: p for p in case["parties"]}
    r = client.post("/api/v1/orders", json={"permit_id": case["id"], "kinds": ["controls"], "deadline": "2026-05-15",
                                            "requirements": [{"kind": "controls", "text": "Fence"}],
                                            "recipient_party_ids": [parties["owner"]["id"]]}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    order = r.get_json()
    assert [m["recipient"]["role"] for m in messages(client, cast.sup, record_id=order["id"])] == ["owner"]
    r = client.patch(f"/api/v1/orders/{order['id']}", json={
        "recipient_party_ids": [parties["owner"]["id"], parties["violator"]["id"]], "version": order["version"]},
        headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    found = messages(client, cast.sup, record_id=order["id"])
    assert sorted(m["recipient"]["role"] for m in found) == ["owner", "violator"]
    r = client.patch(f"/api/v1/orders/{order['id']}", json={"deadline": "2026-05-20",
                                                             "version": r.get_json()["version"]}, headers=cast.sup)
    assert r.status_code == 200 and len(messages(client, cast.sup, record_id=order["id"])) == 2


def test_a_failed_message_is_sent_again_once_the_address_is_recorded(client, factory, cast, town_clock):
    case = open_case(client, factory, cast, violator={**VIOLATOR, "email": None})
    order = issue(client, cast, case["id"])
    failed = next(m for m in messages(client, cast.sup, record_id=order["id"]) if m["status"] == "failed")
    resend = f"/api/v1/notifications/{failed['id']}/resend"
    r = client.post(resend, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "no_address"
    assert r.get_json()["message"] == ("No e-mail address on file for Nguyễn Văn Đức (violator); serve the notice "
                                       "another way. Record an address first.")
    party_id = failed["recipient"]["party_id"]
    r = client.patch(f"/api/v1/permits/{case['id']}/parties/{party_id}", json={"email": "duc@example.org"},
                     headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    for headers, status in ((cast.app, 403), (cast.insp, 403), (cast.adm, 403)):
        assert client.post(resend, headers=headers).status_code == status
    r = client.post(resend, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    again = r.get_json()
    assert (again["status"], again["recipient"]["email"], again["resent_from"]) == ("queued", "duc@example.org",
                                                                                    failed["id"])
    assert (again["subject"], again["attachments"], again["record_id"]) == (failed["subject"], failed["attachments"],
                                                                           order["id"])
    r = client.post(resend, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "already_resent"
    r = client.post(f"/api/v1/notifications/{again['id']}/resend", headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    assert client.post("/api/v1/notifications/0b7c6f3e-8d6e-4a37-9a55-3f0e6f2b1a01/resend",
                       headers=cast.sup).status_code == 404
    by_status = sorted(m["status"] for m in messages(client, cast.sup, record_id=order["id"]))
    assert by_status == ["failed", "queued", "queued"]  # the failed one stays, as evidence
