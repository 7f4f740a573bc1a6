"""The office's program screen (R-I4 and the MS4 report): a supervisor records a storm and imports a NOAA
daily CSV in the app, sees the active sites that then owe a storm-event inspection, reads the MS4
annual report's figures for a period and downloads the exports; each checked through the API."""
from __future__ import annotations

from datetime import timedelta

from inspect_api import clock
from inspect_api.extensions import db

from .conftest import TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sign_in

CDO = '''"STATION","NAME","DATE","PRCP","SNOW","TMAX"
"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","{day}","1.40","0.0","61"
"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","{before}","0.05","0.0","60"
'''


def test_supervisor_records_and_imports_storms_and_reads_the_reports(live_server, new_context, factory, client, tmp_path,
                                                                    screenshot):
    supervisor, sup = factory.as_role("supervisor")
    applicant = factory.user("applicant")
    sites = [factory.permit(applicant, status="active", disturbed_area_sqft=30000) for _ in range(2)]
    factory.permit(applicant, status="submitted", disturbed_area_sqft=30000)  # not active: owes nothing
    for site in sites:  # R-I4 obliges sites where work has commenced
        site.work_commenced_on = clock.today() - timedelta(days=10)
    db.session.commit()
    addresses = [p.site_address for p in sites]
    email = supervisor.email
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.click("#nav a[href='#/program']")
    storms = page.locator("[data-test=storms]")
    storms.wait_for()
    assert "No storm recorded." in storms.inner_text()

    # A storm typed in, refused in words until complete, then recorded: both active sites owe an inspection.
    storms.get_by_role("button", name="Record storm").click()
    assert "Give when the storm ended" in storms.inner_text() and "Give the rain in inches" in storms.inner_text()
    # Two hours ago on the tablet's own clock and zone, as the inspector's tablet would show it.
    ended = page.evaluate("""() => { const d = new Date(Date.now() - 2 * 3600e3);
      const p = (n) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; }""")
    storms.get_by_label("Ended at").fill(ended)
    storms.get_by_label("Rain (inches)").fill("1.25")
    storms.get_by_role("button", name="Record storm").click()
    confirm(page, "every active site then owes a storm-event inspection")
    page.locator("main .banner.ok:has-text('Storm recorded')").wait_for()
    due = page.locator("[data-test=storm-due]")
    assert "(2)" in due.locator("h3").inner_text()
    assert all(a in due.inner_text() for a in addresses)
    recorded = client.get("/api/v1/storm-events", headers=sup).get_json()
    release_db()
    assert [(e["inches"], e["source"]) for e in recorded] == [("1.25", "Town rain gauge")]

    # A NOAA daily file in inches: one day over the threshold is a storm, the other is not.
    today = clock.today()
    csv = tmp_path / "cdo.csv"
    csv.write_text(CDO.format(day=(today - timedelta(days=1)).isoformat(), before=(today - timedelta(days=2)).isoformat()))
    storms.get_by_role("button", name="Import file").click()
    assert "Choose the NOAA daily CSV file first" in storms.inner_text()
    storms.locator("input[type=file]").set_input_files(str(csv))
    storms.get_by_role("button", name="Import file").click()
    page.locator("main .banner.ok:has-text('Imported 2 days: 1 storms recorded')").wait_for()
    imported = client.get("/api/v1/storm-events", headers=sup).get_json()
    release_db()
    assert sorted(e["inches"] for e in imported) == ["1.25", "1.40"]
    assert page.locator("[data-storm]").count() == 2

    # The MS4 annual report for a period, and an export downloaded with the sign-in.
    reports = page.locator("[data-test=reports]")
    reports.get_by_label("First day").fill((today - timedelta(days=30)).isoformat())
    reports.get_by_label("Last day").fill(today.isoformat())
    reports.get_by_role("button", name="Show the MS4 annual report").click()
    figures = page.locator("[data-test=ms4-figures]")
    figures.locator("dl").wait_for()
    expected = client.get(f"/api/v1/exports/ms4-annual-report?from={(today - timedelta(days=30)).isoformat()}&to={today.isoformat()}",
                          headers=sup).get_json()
    release_db()
    assert f"Applications received{expected['site_plan_reviews']['received']}" in figures.inner_text().replace("\n", "")
    assert page.locator("[data-test=ms4-download][href^='blob:']").count() == 1
    with page.expect_download() as sent:
        reports.get_by_role("button", name="Inspections (CSV)").click()
    assert sent.value.suggested_filename == "inspections.csv"
    assert open(sent.value.path(), encoding="utf-8").readline().startswith("id,")
    page.locator("main .banner.ok:has-text('Inspections (CSV) downloaded')").wait_for()
    assert_accessible(page, "program and reports")
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, "supervisor-program", sizes=("tablet",))
