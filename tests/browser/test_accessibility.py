"""Every screen of every role, at phone and tablet size: axe-core (from node_modules, injected by
the test; the app never serves it) finds no serious or critical violation, every control is at
least 44x44 px, body text is at least 16 px and secondary text at least 14 px, and nothing makes
the page scroll sideways.

The three themes (css/app.css): light at both sizes; dark (the device's prefers-color-scheme, nothing
chosen) and outdoor (chosen on this device) at the phone size only, which keeps the run's length in
bounds while every screen's colours are checked in each theme. Outdoor is held to WCAG AAA: axe's
color-contrast-enhanced rule (7:1, large text 4.5:1) is on and every control is at least 56x56 px."""
from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from inspect_api import clock
from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization, submitted_inspection, town_costs
from .conftest import PHONE, TABLET_LANDSCAPE, camera_jpeg
from .helpers import (axe_violations, BLOCKING, OUTDOOR_TAP, release_db, sideways_scroll, sign_in, small_text,
                      theme_chosen_before, undersized_controls, wait_synced)
from .seed import SITE, field_day

SIZES = {"phone": PHONE, "tablet": TABLET_LANDSCAPE}


def check_screen(page, url: str, ready: str, problems: list[str]) -> None:
    page.goto(url)
    page.locator(ready).first.wait_for()
    page.wait_for_timeout(250)  # late parts (thumbnails, server determinations) settle
    where = url.split("#", 1)[-1] or "/"
    outdoor = page.evaluate("() => document.documentElement.dataset.theme") == "outdoor"
    enable = ("color-contrast-enhanced",) if outdoor else ()
    blocking = [v for v in axe_violations(page, enable) if v["impact"] in BLOCKING]
    problems += [f"{where}: axe {v['id']} ({v['impact']}) {v['nodes']}" for v in blocking]
    problems += [f"{where}: small target {c}" for c in undersized_controls(page, OUTDOOR_TAP if outdoor else 44)]
    problems += [f"{where}: small text {t}" for t in small_text(page)]
    problems += [f"{where}: sideways {e}" for e in sideways_scroll(page)]


def e_mailed_order(factory, client, permit, applicant, supervisor_email) -> None:
    """An order on the close-out permit whose e-mails show each state: sent to the owner, not deliverable
    to a violator with no address; and a notice to the applicant still waiting to be sent."""
    from inspect_api import clock
    from inspect_api.enforcement.models import Order
    from inspect_api.notifications import outbox
    from inspect_api.notifications.models import Notification
    from inspect_api.permits.models import Party
    db.session.add(Party(permit_id=permit.id, role="violator", name="Lee Clearing Co."))
    db.session.commit()
    supervisor = db.session.query(User).filter_by(email=supervisor_email).one()
    r = client.post("/api/v1/orders", headers=factory.headers(supervisor), json={
        "permit_id": permit.id, "kinds": ["controls"], "deadline": (clock.today() + timedelta(days=7)).isoformat(),
        "requirements": [{"kind": "controls", "text": "Restake the silt fence"}]})
    assert r.status_code == 201, r.get_json()
    owner = db.session.query(Notification).filter_by(recipient_role="owner", event="order_issued",
                                                        record_id=r.get_json()["id"]).one()
    owner.status, owner.attempts, owner.sent_at, owner.smtp_reply = "sent", 1, clock.now(), "250 2.0.0 Ok"
    order = db.session.get(Order, r.get_json()["id"])
    outbox.enqueue("order_issued", order, [outbox.Recipient.from_user(applicant, role="applicant")],
                   {"order": order, "permit": permit, "record_label": "permit", "role_title": "applicant"})
    db.session.commit()


@pytest.fixture
def town(factory, client, monkeypatch):
    from tests.closeout.conftest import Closeout
    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    headers = factory.headers(inspector)
    template = client.get("/api/v1/checklist-templates/esc", headers=headers).get_json()
    ea = entry_authorization(client, headers, people.site_id)
    inspection = submitted_inspection(client, headers, people.site_id, ea["id"], template,
                                      [camera_jpeg(SITE["lat"], SITE["lon"], seed=1)])
    applicant = db.session.query(User).filter_by(email=people.applicant_email).one()
    closeout = Closeout(factory, client)
    ldp = closeout.permit("permit", status="work_complete", applicant=applicant)
    draft = factory.permit(applicant, status="draft", disturbed_area_sqft=26000)
    supervisor = db.session.query(User).filter_by(email=people.supervisor_email).one()
    today = clock.today()
    costs = town_costs(client, factory.headers(supervisor), ldp.id, monkeypatch, abated=today - timedelta(days=10),
                       received=today - timedelta(days=5))
    e_mailed_order(factory, client, ldp, applicant, people.supervisor_email)
    ids = {"people": people, "inspection": inspection["id"], "ldp": ldp.id, "draft": draft.id, "costs": costs["id"]}
    release_db()
    return ids


# (size, theme): light at both sizes, the other themes at the phone size.
RUNS = [("phone", "light"), ("tablet", "light"), ("phone", "dark"), ("phone", "outdoor")]
# The page's background in each theme (css/app.css --bg), to know the theme was applied.
BACKGROUND = {"light": "rgb(238, 243, 245)", "dark": "rgb(14, 23, 28)", "outdoor": "rgb(255, 255, 255)"}


@pytest.mark.parametrize("size,theme", RUNS, ids=["-".join(run) if run[1] != "light" else run[0] for run in RUNS])
def test_every_screen_of_every_role(live_server, new_context, town, size, theme):
    people, base = town["people"], live_server.url
    problems: list[str] = []

    def new_device():
        # Dark as the device asks for it; outdoor as chosen on the Account screen before.
        context = new_context(SIZES[size], has_touch=size == "phone", is_mobile=size == "phone",
                              color_scheme="dark" if theme == "dark" else "light")
        if theme == "outdoor":
            theme_chosen_before(context, theme)
        return context

    context = new_device()
    page = context.new_page()
    page.goto(base + "/")
    page.wait_for_selector("html[data-ready=true]")
    assert page.evaluate("() => getComputedStyle(document.documentElement).backgroundColor") == BACKGROUND[theme]
    # The check can fail: an image without a text alternative is a critical violation to axe.
    page.evaluate("() => { const i = document.createElement('img'); i.id = 'probe'; i.src = '/static/pwa/icons/icon.svg'; document.body.append(i); }")
    assert "image-alt" in [v["id"] for v in axe_violations(page) if v["impact"] in BLOCKING]
    page.evaluate("() => document.getElementById('probe').remove()")
    check_screen(page, base + "/#/login", "form.login", problems)
    check_screen(page, base + "/#/register", "form.login", problems)

    sign_in(page, base, people.inspector_email)
    wait_synced(page)
    site = people.site_id
    for path, ready in [("/sites", "a.row"), ("/map", ".leaflet-marker-pane .site-pin"), (f"/site/{site}", "[data-test=site-map] .site-pin"),
                        (f"/site/{site}/entry", "canvas.signature"), (f"/site/{site}/sample/{uuid.uuid4()}", "h1:has-text('New sample')"),
                        (f"/site/{site}/inspection/{town['inspection']}", "[data-item]"), ("/issues", "h1"), ("/account", "h1")]:
        check_screen(page, base + "/#" + path, ready, problems)
    page.goto(base + f"/#/site/{site}")
    page.get_by_role("button", name="Start inspection").click()
    page.locator("[data-item]").first.wait_for()
    check_screen(page, page.url, "[data-item]", problems)

    office = new_device().new_page()
    sign_in(office, base, people.supervisor_email)
    wait_synced(office)
    for path, ready in [("/applications", "a.row"), (f"/application/{people.far_site_id}", "[data-test=decision]"),
                        ("/review", "a.row"), (f"/review/{town['inspection']}", "svg.sitemap"), ("/deadlines", "h1"),
                        (f"/closeout/{town['ldp']}", "[data-deliveries] li[data-delivery=failed]"), ("/sites", "a.row"),
                        ("/map", ".leaflet-marker-pane .site-pin"),
                        (f"/site/{site}", "[data-test=office-links]"), (f"/site/{site}/parties", "[data-test=party-list]"),
                        ("/cases/new", "[data-test=new-case]"), ("/program", "[data-test=storms]"),
                        (f"/closeout/{town['ldp']}/costs/{town['costs']}", "[data-test=cost-recipients]"),
                        ("/issues", "h1"), ("/account", "h1")]:
        check_screen(office, base + "/#" + path, ready, problems)

    applicant = new_device().new_page()
    sign_in(applicant, base, people.applicant_email)
    wait_synced(applicant)
    for path, ready in [("/permits", "a.row"), (f"/permit/{town['draft']}", "[data-test=documents]"), ("/apply", "[data-test=level]"),
                        (f"/permit/{site}/completion", "h1"), (f"/permit/{town['ldp']}", "[data-test=my-notices] li"),
                        (f"/permit/{town['ldp']}/final-report", "[data-test=report-documents]"),
                        (f"/permit/{town['ldp']}/costs/{town['costs']}", "[data-test=cost-recipients]"), ("/issues", "h1"), ("/account", "h1")]:
        check_screen(applicant, base + "/#" + path, ready, problems)
    assert problems == [], "\n".join(problems)
