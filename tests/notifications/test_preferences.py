"""Preferences: a user switches optional messages off; notices the bylaw requires
are always sent and cannot be switched off; each user reads and changes only their own."""
from __future__ import annotations

from inspect_api.notifications import catalogue

from .events_support import rows

URL = "/api/v1/me/notification-preferences"


def test_each_role_sees_its_own_optional_messages_all_on_by_default(client, factory):
    _, app_h = factory.as_role("applicant")
    _, sup_h = factory.as_role("supervisor")
    _, adm_h = factory.as_role("admin")
    applicant = client.get(URL, headers=app_h)
    assert applicant.status_code == 200
    body = applicant.get_json()
    assert [p["event"] for p in body["preferences"]] == [e.name for e in catalogue.switchable("applicant")]
    assert all(p["enabled"] for p in body["preferences"]) and "inspection_approved" in {
        p["event"] for p in body["preferences"]}
    assert {a["event"]: a["required_by_bylaw"] for a in body["always_sent"]} == {
        "application_decided": True, "order_issued": True, "cost_notice_sent": True, "protest_decided": True,
        "citation_written": True, "device_revoked": False}
    supervisor = client.get(URL, headers=sup_h).get_json()
    assert [p["event"] for p in supervisor["preferences"]] == [
        "reminder_cost_notice_due", "reminder_certificate_waiting", "reminder_bond_release_waiting"]
    admin = client.get(URL, headers=adm_h).get_json()
    assert admin == {"preferences": [], "always_sent": [
        {"event": "device_revoked", "label": "A device of yours was revoked", "required_by_bylaw": False}]}


def test_switching_one_off_changes_only_that_one_and_only_for_me(client, factory):
    _, me = factory.as_role("applicant")
    _, other = factory.as_role("applicant")
    r = client.put(URL, headers=me, json={"preferences": [{"event": "inspection_approved", "enabled": False}]})
    assert r.status_code == 200, r.get_json()
    mine = {p["event"]: p["enabled"] for p in r.get_json()["preferences"]}
    assert mine["inspection_approved"] is False and mine["application_received"] is True
    assert client.get(URL, headers=me).get_json() == r.get_json()
    assert all(p["enabled"] for p in client.get(URL, headers=other).get_json()["preferences"])
    back = client.put(URL, headers=me, json={"preferences": [{"event": "inspection_approved", "enabled": True}]})
    assert {p["event"]: p["enabled"] for p in back.get_json()["preferences"]}["inspection_approved"] is True


def test_required_or_foreign_messages_cannot_be_switched(client, factory):
    _, me = factory.as_role("applicant")
    for event, message in (("order_issued", "This notice is always sent; it cannot be switched off."),
                           ("reminder_cost_notice_due", "Not a message you receive."),
                           ("nonsense", "Not a message you receive.")):
        r = client.put(URL, headers=me, json={"preferences": [
            {"event": "application_received", "enabled": False}, {"event": event, "enabled": False}]})
        body = r.get_json()
        assert r.status_code == 422 and body["error"] == "validation_error", body
        assert body["errors"] == {"preferences": {"1": {"event": [message]}}}
    # Nothing of a refused request was kept.
    assert all(p["enabled"] for p in client.get(URL, headers=me).get_json()["preferences"])
    assert client.put(URL, headers=me, json={"preferences": [{"event": "x"}]}).status_code == 422


def test_switched_off_event_skips_me_but_a_required_one_still_arrives(client, factory):
    applicant, app_h = factory.as_role("applicant", email="ann@example.org")
    _, sup_h = factory.as_role("supervisor")
    assert client.put(URL, headers=app_h, json={"preferences": [
        {"event": "application_received", "enabled": False}]}).status_code == 200
    permit = factory.permit(applicant, disturbed_area_sqft=12000, plans=True)
    for headers, to in ((app_h, "submitted"), (sup_h, "under_review"), (sup_h, "approved")):
        r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": to}, headers=headers)
        assert r.status_code == 200, r.get_json()
    assert rows() == [("ann@example.org", "applicant", "application_decided", True, "queued")]
