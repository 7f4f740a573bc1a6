"""Sign-up says the server's password rule (12 characters or more, hard to guess) before the user
tries, and shows the server's reason when a long password is still too easy to guess."""
from __future__ import annotations

from sqlalchemy import select

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .conftest import PHONE
from .helpers import release_db


def test_sign_up_states_the_rule_the_server_holds(live_server, new_context):
    page = new_context(PHONE).new_page()
    page.goto(live_server.url + "/#/register")
    page.locator("form.login").wait_for()
    assert "At least 12 characters, and hard to guess" in page.locator("#" + page.get_by_label("Password", exact=True).get_attribute("aria-describedby")).inner_text()
    page.get_by_label("Your name").fill("Robin Applicant")
    page.get_by_label("E-mail").fill("robin@example.org")
    page.get_by_label("Password", exact=True).fill("eleven-char")
    page.get_by_label("Password again").fill("eleven-char")
    page.get_by_role("button", name="Create account").click()
    assert "at least 12 characters" in page.locator("form.login .banner.error").inner_text()

    # Twelve characters, but a common pattern: the server's reason is shown, no account is made.
    page.get_by_label("Password", exact=True).fill("password1234")
    page.get_by_label("Password again").fill("password1234")
    page.get_by_role("button", name="Create account").click()
    page.locator("form.login .banner.error:has-text('Password: ')").wait_for()
    assert db.session.scalar(select(User).filter_by(email="robin@example.org")) is None
    release_db()

    page.get_by_label("Password", exact=True).fill("heron marsh lantern quietly")
    page.get_by_label("Password again").fill("heron marsh lantern quietly")
    page.get_by_role("button", name="Create account").click()
    page.locator("h1:has-text('My permits'), h1:has-text('permits')").first.wait_for()
    created = db.session.execute(select(User.role).filter_by(email="robin@example.org")).all()
    release_db()
    assert created == [("applicant",)]
