"""The inspector's day in the app (R-I1): due and overdue inspections at the assigned sites, by due time
and then distance, worked out on the device from synced records and kept working offline; a storm
pulled in the morning puts every active assigned site on the list, and "overdue" follows the device's
clock in Town time, not the moment of the sync."""
from __future__ import annotations

from datetime import datetime, time, timedelta

from inspect_api import clock

from .api_seed import storm_yesterday
from .conftest import TABLET_LANDSCAPE
from .helpers import Network, release_db, sign_in, wait_for_service_worker, wait_synced
from .seed import SITE


def _sites(factory):
    """Two active sites commenced 20 days ago (near and farther), one approved not yet commenced, and one
    active site assigned to someone else."""
    from inspect_api.extensions import db
    from inspect_api.program import inspection_requests
    inspector = factory.user("inspector", name="Ines Ortiz")
    other_inspector = factory.user("inspector", name="Omar Other")
    applicant = factory.user("applicant", name="Alex Builder")
    commenced = clock.today() - timedelta(days=20)
    near = factory.permit(applicant, status="active", disturbed_area_sqft=32000,
                          site={"address": "40 Center Street, Fairhaven, MA 02719", "location": SITE})
    far = factory.permit(applicant, status="active", disturbed_area_sqft=40000,
                         site={"address": "300 Sconticut Neck Road, Fairhaven, MA 02719",
                               "location": {"lat": 41.5902, "lon": -70.8801}})
    waiting = factory.permit(applicant, status="approved", disturbed_area_sqft=9000,
                             site={"address": "12 Fort Street, Fairhaven, MA 02719",
                                   "location": {"lat": 41.6325, "lon": -70.9012}})
    elsewhere = factory.permit(applicant, status="active", disturbed_area_sqft=9000)
    for permit in (near, far, elsewhere):
        permit.work_commenced_on = commenced
    db.session.commit()
    for permit in (near, far, waiting):
        factory.assign(permit, inspector)
    factory.assign(elsewhere, other_inspector)
    request, _ = inspection_requests.create_inspection_request(applicant, {
        "permit_id": near.id, "kind": "re_inspection", "preferred_dates": [clock.today()],
        "note": "Silt fence re-set along the east line"})
    db.session.commit()
    email = inspector.email
    ids = {"applicant_email": applicant.email, "near": near.id, "far": far.id, "waiting": waiting.id, "elsewhere": elsewhere.id, "request": request.id}
    db.session.close()
    return email, ids


def rows(page) -> list[tuple[str, str]]:
    found = page.locator("[data-test=today] a.row")
    return [(found.nth(i).get_attribute("data-permit"), found.nth(i).get_attribute("data-kind"))
            for i in range(found.count())]


def test_inspector_day_offline_with_a_morning_storm(live_server, new_context, factory, app):
    email, ids = _sites(factory)
    release_db()
    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.click("#nav a:has-text('My day')")
    page.wait_for_selector("[data-test=today] a.row")
    near, far, waiting = ids["near"], ids["far"], ids["waiting"]
    # Commenced 20 days ago, never inspected: post-installation and routine are overdue; the pre-construction
    # inspection can no longer happen (missed, counted for the MS4 report) and is not listed.
    overdue_first = [(near, "post_installation"), (far, "post_installation"), (near, "routine"), (far, "routine")]
    before_storm = rows(page)
    assert before_storm[:4] == overdue_first
    assert (near, "pre_construction") not in before_storm and (far, "pre_construction") not in before_storm
    assert (waiting, "pre_construction") in before_storm and (near, "follow_up") == before_storm[-1]
    assert ids["elsewhere"] not in {p for p, _k in before_storm}
    assert not any(k == "storm_event" for _p, k in before_storm)
    assert page.locator(f"[data-test=today] a.row[data-permit='{waiting}'] [data-test=due]").inner_text() == \
        "Before work starts"

    # The morning's rain data arrives; one sync later, every active assigned site owes a storm inspection.
    storm_yesterday(app, "0.25")
    page.click("#syncbar button[aria-label='Sync now']")
    wait_synced(page)
    page.wait_for_selector("[data-test=today] a.row[data-kind=storm_event]")
    network = Network(context, live_server.url)
    network.offline()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    page.wait_for_selector("[data-test=today] a.row[data-kind=storm_event]")
    day = rows(page)
    assert day[:4] == overdue_first
    # Same due time (end of today): nearest site first; the near site's request follows its storm.
    assert day[-3:] == [(near, "storm_event"), (near, "follow_up"), (far, "storm_event")]
    assert page.locator("[data-test=today] a.row[data-kind=storm_event] [data-test=overdue]").count() == 0
    assert "preferred" in page.inner_text(f"[data-test=today] a.row[data-permit='{near}'][data-kind=follow_up]")

    # Tomorrow morning, still offline: the device's own clock makes the storm inspections overdue.
    tomorrow = datetime.combine(clock.today() + timedelta(days=1), time(8, 0), tzinfo=clock.town_zone())
    page.clock.set_fixed_time(tomorrow)
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    page.wait_for_selector("[data-test=today] a.row[data-kind=storm_event]")
    assert page.locator("[data-test=today] a.row[data-kind=storm_event] [data-test=overdue]").count() == 2
    title = page.text_content("[data-test=today-title]")
    assert title.startswith(f"Today, {(clock.today() + timedelta(days=1)).strftime('%a, %b %-d')} (") and title.endswith(", 7 overdue)")
    assert errors == []


def test_supervisor_sees_overdue_inspections_on_the_deadlines_screen(live_server, new_context, factory):
    _email, ids = _sites(factory)
    supervisor = factory.user("supervisor", name="Sam Reyes")
    email = supervisor.email
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.click("#nav a[href='#/deadlines']")
    row = page.locator(f"a.row[data-deadline='{ids['near']}']").first
    row.wait_for()
    text = row.inner_text()
    assert "Inspection overdue" in text and "post-installation inspection" in text
    assert "pre-construction inspection" not in page.inner_text("main")  # missed, not a deadline to chase
    # Both active sites (and the other inspector's) owe overdue inspections; the approved one does not yet.
    listed = page.eval_on_selector_all("a.row[data-deadline]", "els => els.map(e => e.dataset.deadline)")
    assert {ids["near"], ids["far"], ids["elsewhere"]} <= set(listed) and ids["waiting"] not in listed


def test_applicant_asks_for_a_reinspection_and_sees_when_it_was_done(live_server, new_context, factory, app):
    from inspect_api.extensions import db
    from inspect_api.inspections.models import Inspection
    from inspect_api.program.models import InspectionRequest
    _email, ids = _sites(factory)
    applicant_email = ids["applicant_email"]
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, applicant_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{ids['near']}/requests")
    page.wait_for_selector("h1:has-text('Inspection requests')")
    page.get_by_label("Inspection").select_option("re_inspection")
    tomorrow = (clock.today() + timedelta(days=1)).isoformat()
    page.locator("fieldset input[type=date]").first.fill(tomorrow)
    page.get_by_label("Note for the inspector").fill("Inlet protection replaced at the north catch basin.")
    page.get_by_role("button", name="Ask for the inspection").click()
    # The request goes into the outbox first and reaches the server with the next sync run: wait for the
    # server's copy, not for a sync bar that may still show the run before the click.
    made = None
    for _ in range(150):
        with app.app_context():
            made = db.session.scalars(db.select(InspectionRequest).where(
                InspectionRequest.note == "Inlet protection replaced at the north catch basin.")).one_or_none()
            if made is not None:
                assert (made.kind, made.preferred_dates, made.permit_id) == ("re_inspection", [tomorrow], ids["near"])
                request_id = made.id
            db.session.close()
        if made is not None:
            break
        page.wait_for_timeout(200)
    assert made is not None, "the request never reached the server"
    wait_synced(page)
    assert page.locator(f"[data-request='{request_id}'] [data-test=open]").count() == 1
    # The inspector's follow-up, recorded after the request, meets it; the applicant's next sync shows when.
    with app.app_context():
        from inspect_api.entry.models import EntryAuthorization
        started = clock.now()  # after the request reached the server
        entry = EntryAuthorization(permit_id=ids["near"], basis="permit_condition", granted_by_name="Condition 12",
                                   granted_by_relation="permit condition", scope=["examination"],
                                   valid_from=started - timedelta(days=1), valid_to=started + timedelta(days=1))
        db.session.add(entry)
        db.session.flush()
        db.session.add(Inspection(permit_id=ids["near"], entry_authorization_id=entry.id, kind="follow_up",
                                  started_at=started, status="submitted", submitted_at=clock.now()))
        db.session.commit()
        db.session.close()
    page.click("#syncbar button[aria-label='Sync now']")
    wait_synced(page)
    page.locator(f"[data-request='{request_id}'] [data-test=done]").wait_for()
    assert page.inner_text(f"[data-request='{request_id}'] [data-test=done]").startswith("Inspected ")


def test_a_returned_inspection_heads_my_day_with_the_supervisors_words(live_server, new_context, factory, client):
    """R-I5: a returned inspection goes back to the inspector; My day lists it first, with what to change,
    and leads to it."""
    from .api_seed import inspected_field_day
    from .conftest import camera_jpeg
    people, _headers, inspection = inspected_field_day(factory, client, [camera_jpeg(SITE["lat"], SITE["lon"], seed=3)])
    _supervisor, sup = factory.as_role("supervisor")
    returned = client.post(f"/api/v1/inspections/{inspection['id']}/review", headers=sup, json={
        "decision": "returned", "comment": "Photograph the inlet protection on Fort Street.", "version": inspection["version"]})
    assert returned.status_code == 200, returned.get_json()
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/day")
    row = page.locator(f"[data-test=returned] a.row[data-returned='{inspection['id']}']")
    row.wait_for()
    assert "“Photograph the inlet protection on Fort Street.”" in row.inner_text()
    assert people.site_address in row.inner_text() and "Returned: correct and submit" in row.inner_text()
    row.click()
    page.locator("text=Returned by the supervisor: Photograph the inlet protection on Fort Street.").wait_for()
