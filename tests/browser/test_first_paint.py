"""The first paint does not wait for the app's modules: index.html draws the sign-in form itself (inert)
on a device where no one is signed in, and "Loading…" on one where someone is (theme_boot.js reads the
mark auth.js keeps), so a phone on a slow link sees the screen it will use while some eighty modules
load. The modules are held back here (their entry point refused) to look at the page as drawn."""
from __future__ import annotations

from .helpers import release_db, sign_in

MARK = "inspect-field.signed-in"


def _without_the_app(context):
    page = context.new_page()
    page.route("**/js/app.js", lambda route: route.abort())
    return page


def test_a_device_with_no_session_sees_the_sign_in_form_before_any_module_runs(live_server, new_context):
    page = _without_the_app(new_context())
    page.goto(live_server.url + "/")
    heading = page.get_by_role("heading", name="Sign in")
    heading.wait_for()
    assert page.get_by_label("E-mail").is_disabled() and page.get_by_label("Password").is_disabled()
    assert page.get_by_role("button", name="Sign in").is_disabled()
    assert not page.locator("main p.loading").is_visible()
    assert page.locator("html[data-ready]").count() == 0  # no module ran
    assert page.locator("form.login").count() == 0  # form.login is only ever the app's live form


def test_a_link_to_another_screen_shows_loading_not_the_sign_in_form(live_server, new_context):
    page = _without_the_app(new_context())
    page.goto(live_server.url + "/#/register")
    page.locator("main p.loading").wait_for()
    assert not page.get_by_role("heading", name="Sign in").is_visible()


def test_a_device_with_a_session_sees_loading_not_a_form_it_will_not_use(live_server, new_context):
    context = new_context()
    context.add_init_script(f"localStorage.setItem('{MARK}', '1')")
    page = _without_the_app(context)
    page.goto(live_server.url + "/")
    page.locator("main p.loading").wait_for()
    assert page.locator("main p.loading").inner_text() == "Loading…"
    assert not page.get_by_role("heading", name="Sign in").is_visible()
    assert page.evaluate("document.documentElement.dataset.loading") == "on"


def test_signing_in_sets_the_mark_and_signing_out_clears_it(live_server, new_context, factory):
    email = factory.user("applicant").email
    release_db()
    page = new_context().new_page()
    page.goto(live_server.url + "/")
    page.wait_for_selector("html[data-ready=true]")
    # The app's live form replaced the page's own: one sign-in form, enabled.
    assert page.locator("form.login").count() == 1 and page.get_by_label("E-mail").is_enabled()
    assert page.evaluate(f"localStorage.getItem('{MARK}')") is None
    sign_in(page, live_server.url, email)
    assert page.evaluate(f"localStorage.getItem('{MARK}')") == "1"
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert page.evaluate("document.documentElement.dataset.loading") == "on"
    page.goto(f"{live_server.url}/#/account")
    page.get_by_role("button", name="Sign out").click()
    page.locator("h1:has-text('Sign in')").wait_for()
    assert page.evaluate(f"localStorage.getItem('{MARK}')") is None
