"""E-mail notices in the app (API.md "Notifications"): a supervisor issues an order on the close-out screen,
`inspect-api worker --once` delivers it to the suite's SMTP server, and the order then shows the
violator and the owner as e-mailed, with when (Town time); the applicant sees the notice sent to them."""
from __future__ import annotations

import hashlib

from sqlalchemy import select

from inspect_api.extensions import db
from inspect_api.notifications.models import Notification
from inspect_api.permits.models import Party

from ..notifications.conftest import smtp_factory, smtp_server  # noqa: F401  (fixtures)
from .conftest import PHONE
from .helpers import assert_accessible, release_db, sign_in, wait_synced

VIOLATOR = "Nguyễn Văn Đức"


def seed(factory):
    applicant = factory.user("applicant", name="Alex Builder")
    supervisor = factory.user("supervisor", name="Sam Reviewer")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=30000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "parcel_id": "18-033",
                                  "location": {"lat": 41.6402, "lon": -70.8998}})
    from inspect_api.permits.cases import add_party
    add_party(supervisor, permit, {"role": "violator", "name": VIOLATOR, "email": "duc@example.org",
                                   "mailing_address": "12 Bridge St, New Bedford"})
    owner = next(p for p in permit.parties if p.role == "owner")
    owner.user_id = applicant.id  # the owner signs in as the applicant: they see their own notice
    ids = (applicant.email, supervisor.email, permit.id)
    db.session.commit()
    db.session.close()
    return ids


def test_order_issued_in_the_app_is_emailed_and_shown_sent(app, live_server, new_context, factory, smtp_server):
    app.config.update(SMTP_URL=smtp_server.url, PUBLIC_BASE_URL=live_server.url)
    applicant_email, supervisor_email, permit_id = seed(factory)
    release_db()
    office = new_context().new_page()
    sign_in(office, live_server.url, supervisor_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/closeout/{permit_id}")
    form = office.locator("form:has(h3:has-text('Issue order'))")
    form.get_by_label("Install or maintain controls").check()
    form.get_by_label("Requirement").fill("Re-trench and restake the silt fence along the east swale")
    form.get_by_label("Section or plan item").fill("§194-21(C)")
    form.get_by_role("button", name="Issue order").click()
    office.get_by_role("dialog").get_by_role("button", name="Issue order").click()
    deliveries = office.locator("[data-deliveries='Order e-mailed to']")
    deliveries.locator("li[data-delivery=queued]").nth(1).wait_for()
    assert "Waiting to send" in deliveries.inner_text()

    release_db()
    from inspect_api.cli import main
    result = app.test_cli_runner().invoke(main, ["worker", "--once"])
    assert result.exit_code == 0 and result.output.strip() == "sent 2, failed 0, to retry 0", result.output
    release_db()

    office.reload()
    sent = office.locator("[data-deliveries='Order e-mailed to'] li[data-delivery=sent]")
    sent.nth(1).wait_for()
    text = office.inner_text("[data-deliveries='Order e-mailed to']")
    assert f"{VIOLATOR} (violator)" in text and "Pat Owner (property owner)" in text
    assert text.count("E-mailed") == 2 and "To duc@example.org. Sent " in text
    rows = db.session.scalars(select(Notification).order_by(Notification.recipient_role)).all()
    assert [r.status for r in rows] == ["sent", "sent"]
    assert_accessible(office, "close-out with e-mailed order")
    # The Town's time: each row prints its sent_at in America/New_York, as the browser's Intl writes it.
    from inspect_api import clock
    plain = text.replace("\u202f", " ")
    for row in rows:
        local = row.sent_at.astimezone(clock.town_zone())
        stamp = f"{local:%b} {local.day}, {local.year}, {local.hour % 12 or 12}:{local:%M} {local:%p} {local:%Z}"
        assert f"To {row.recipient_email}. Sent {stamp}." in plain, (stamp, plain)

    received = {env["rcpt_tos"][0]: mail for env, mail in smtp_server.received()}
    assert set(received) == {"owner@example.org", "duc@example.org"}
    for row in rows:
        mail = received[row.recipient_email]
        [attachment] = list(mail.iter_attachments())
        assert attachment.get_content_type() == "application/pdf" and attachment.get_filename().endswith(".pdf")
        assert hashlib.sha256(attachment.get_content()).hexdigest() == row.attachments[0]["sha256"]
        assert f"{live_server.url}/#/permit/{permit_id}" in mail.get_body(("plain",)).get_content()
    release_db()

    owner_page = new_context(PHONE).new_page()
    sign_in(owner_page, live_server.url, applicant_email)
    wait_synced(owner_page)
    owner_page.goto(f"{live_server.url}/#/permit/{permit_id}")
    mine = owner_page.locator("[data-test=my-notices]")
    mine.locator("li[data-delivery=sent]").wait_for()
    assert mine.locator("li").count() == 1  # the owner's notice, not the violator's
    assert "Enforcement order ORD-" in mine.inner_text() and "E-mailed" in mine.inner_text()
    assert_accessible(owner_page, "applicant's notices")


def test_party_without_email_shows_why_on_the_order(app, live_server, new_context, factory):
    applicant_email, supervisor_email, permit_id = seed(factory)
    db.session.scalar(select(Party).where(Party.role == "violator")).email = None
    db.session.commit()
    release_db()
    office = new_context(PHONE).new_page()
    sign_in(office, live_server.url, supervisor_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/closeout/{permit_id}")
    form = office.locator("form:has(h3:has-text('Issue order'))")
    form.get_by_label("Remediation").check()
    form.get_by_label("Requirement").fill("Stabilize the slope")
    form.get_by_label("Section or plan item").fill("§194-21(C)")
    form.get_by_role("button", name="Issue order").click()
    office.get_by_role("dialog").get_by_role("button", name="Issue order").click()
    failed = office.locator("[data-deliveries='Order e-mailed to'] li[data-delivery=failed]")
    failed.wait_for()
    assert "Not delivered" in failed.inner_text()
    assert f"No e-mail address on file for {VIOLATOR} (violator); serve the notice another way." in failed.inner_text()
    assert_accessible(office, "close-out with an unreachable party")
    # Sent again while there is still no address: the office is told why, and nothing is written.
    failed.get_by_role("button", name="Send again").click()
    office.locator("[role=alert]:has-text('Record an address first.')").wait_for()
    # Once the address is on file, sending it again queues a new message in its place on the screen.
    db.session.scalar(select(Party).where(Party.role == "violator")).email = "duc@example.org"
    db.session.commit()
    release_db()
    failed.get_by_role("button", name="Send again").click()
    row = office.locator("[data-deliveries='Order e-mailed to'] li:has-text('(violator)')")
    row.locator("text=Waiting to send").wait_for()
    assert "To duc@example.org." in row.inner_text()
    assert db.session.scalar(select(Notification).where(Notification.resent_from.is_not(None))).status == "queued"
    release_db()


def test_notice_of_costs_shows_each_recipient_on_the_order(app, client, live_server, new_context, factory):
    from datetime import timedelta
    from inspect_api import clock
    from inspect_api.auth.models import User
    applicant_email, supervisor_email, permit_id = seed(factory)
    supervisor = db.session.scalar(select(User).where(User.email == supervisor_email))
    headers = factory.headers(supervisor)
    today = clock.today()
    parties = {p["role"]: p for p in client.get(f"/api/v1/permits/{permit_id}", headers=headers).get_json()["parties"]}
    r = client.post("/api/v1/orders", headers=headers, json={
        "permit_id": permit_id, "kinds": ["controls"], "issued_on": (today - timedelta(days=20)).isoformat(),
        "deadline": (today - timedelta(days=10)).isoformat(), "requirements": [{"kind": "controls", "text": "Fence"}]})
    assert r.status_code == 201, r.get_json()
    r = client.post("/api/v1/cost-recoveries", headers=headers, json={
        "order_id": r.get_json()["id"], "abatement_completed_on": (today - timedelta(days=2)).isoformat(),
        "items": [{"category": "labor", "description": "DPW crew", "amount": "720.00"}]})
    assert r.status_code == 201, r.get_json()
    record = r.get_json()
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=headers, json={
        "version": record["version"], "recipients": [
            {"party_id": parties["owner"]["id"], "method": "email", "sent_on": today.isoformat()},
            {"party_id": parties["violator"]["id"], "method": "certified_mail"}]})
    assert r.status_code == 200, r.get_json()
    release_db()
    office = new_context(PHONE).new_page()
    sign_in(office, live_server.url, supervisor_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/closeout/{permit_id}")
    costs = office.locator("[data-deliveries='Notice of costs e-mailed to']")
    costs.locator("li").nth(1).wait_for()
    text = costs.inner_text()
    assert "Pat Owner (property owner)" in text and "Waiting to send" in text
    assert f"{VIOLATOR} (violator)" in text and "No e-mail" in text  # recorded, not yet sent: no message
    assert_accessible(office, "close-out with a notice of costs")
