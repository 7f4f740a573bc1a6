"""Mail private in transit (README "Notifications", RFC 3207 STARTTLS): with credentials in SMTP_URL
the worker never speaks AUTH or hands over a notice without TLS, trusts a private CA through
SMTP_CA_FILE, and a refusal leaves the message queued and retried like any temporary failure."""
from __future__ import annotations

from datetime import timedelta

import pytest

from inspect_api.notifications import worker

from .test_worker import NOW, pinned, queue, rows  # noqa: F401  (pinned is a fixture)

SENT_IN_CLEAR = {"AUTH", "MAIL", "RCPT", "DATA"}


def with_login(url: str, user: str = "town", password: str = "s3cret") -> str:
    return url.replace("smtp://", f"smtp://{user}:{password}@")


def assert_kept_and_retried(app, mid, pinned, server, reply_part):  # noqa: F811
    row = rows([mid])[0]
    assert (row.status, row.attempts) == ("queued", 1)
    assert reply_part in row.smtp_reply
    assert row.next_attempt_at == NOW + timedelta(seconds=60)
    pinned["now"] = row.next_attempt_at
    assert worker.drain("w1").retrying == 1  # tried again when due, refused again
    row = rows([mid])[0]
    assert (row.status, row.attempts) == ("queued", 2) and reply_part in row.smtp_reply
    assert server.received() == []


def test_credentials_and_notices_never_cross_in_clear_without_starttls(app, factory, smtp_factory, pinned):  # noqa: F811
    server = smtp_factory(user="town", password="s3cret", tls="none")
    app.config.update(SMTP_URL=with_login(server.url), NOTIFY_RETRY_SECONDS=60)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    assert not SENT_IN_CLEAR & {c["command"] for c in server.commands()}
    assert_kept_and_retried(app, mid, pinned, server, "offers no STARTTLS")
    assert rows([mid])[0].smtp_reply.startswith("not sent: ")
    assert server.commands() == []


def test_required_refuses_a_server_without_starttls_even_without_credentials(app, factory, smtp_factory,
                                                                             pinned):  # noqa: F811
    server = smtp_factory(tls="none")
    app.config.update(SMTP_URL=server.url, SMTP_TLS="required", NOTIFY_RETRY_SECONDS=60)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    assert_kept_and_retried(app, mid, pinned, server, "offers no STARTTLS")
    assert server.commands() == []


@pytest.mark.parametrize("login", [False, True])
def test_opportunistic_sends_to_a_server_without_starttls(app, factory, smtp_factory, pinned, login):  # noqa: F811
    server = smtp_factory(tls="none", **({"user": "town", "password": "s3cret"} if login else {}))
    # Without a user opportunistic is the default; with one it has to be asked for.
    app.config.update(SMTP_URL=with_login(server.url) if login else server.url,
                      SMTP_TLS="opportunistic" if login else None)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [(envelope, _mail)] = server.received()
    assert envelope["tls"] is False and envelope["login"] == ("town" if login else None)
    assert rows([mid])[0].status == "sent"


def test_an_untrusted_certificate_is_refused_and_the_message_kept(app, factory, smtp_factory, pinned):  # noqa: F811
    server = smtp_factory(user="town", password="s3cret", tls="untrusted")
    app.config.update(SMTP_URL=with_login(server.url), NOTIFY_RETRY_SECONDS=60)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    assert_kept_and_retried(app, mid, pinned, server, "certificate verify failed")
    assert server.commands() == []


@pytest.mark.parametrize("mode", ["required", "opportunistic"])
def test_an_untrusted_certificate_is_never_downgraded_to_plain_text(app, factory, smtp_factory, pinned,
                                                                    mode):  # noqa: F811
    server = smtp_factory(tls="untrusted")
    app.config.update(SMTP_URL=server.url, SMTP_TLS=mode)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    assert rows([mid])[0].status == "queued" and server.commands() == [] and server.received() == []


def test_a_private_ca_in_smtp_ca_file_is_trusted(app, factory, smtp_factory, pinned):  # noqa: F811
    server = smtp_factory(user="town", password="s3cret", require_starttls=True)
    app.config.update(SMTP_URL=with_login(server.url), SMTP_CA_FILE=server.ca_file)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [(envelope, _mail)] = server.received()
    assert envelope["tls"] is True and envelope["login"] == "town"
    assert {c["tls"] for c in server.commands()} == {True}
    assert rows([mid])[0].status == "sent"


def test_without_the_private_ca_the_same_server_is_refused(app, factory, smtp_factory, pinned):  # noqa: F811
    server = smtp_factory(user="town", password="s3cret")
    app.config.update(SMTP_URL=with_login(server.url), SMTP_CA_FILE=None)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    assert "certificate verify failed" in rows([mid])[0].smtp_reply and server.received() == []


def test_off_never_starts_tls(app, factory, smtp_factory, pinned):  # noqa: F811
    server = smtp_factory()  # offers STARTTLS; a relay on the same host may be told not to bother
    app.config.update(SMTP_URL=server.url, SMTP_TLS="off", SMTP_CA_FILE=None)
    queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [(envelope, _mail)] = server.received()
    assert envelope["tls"] is False


@pytest.mark.parametrize("settings, named", [
    ({"SMTP_TLS": "sometimes"}, "SMTP_TLS"),
    ({"SMTP_CA_FILE": "/nonexistent/ca.pem"}, "SMTP_CA_FILE"),
])
def test_bad_tls_settings_stop_the_app(settings, named, tmp_path):
    from inspect_api import create_app
    from inspect_api.config import TestConfig
    with pytest.raises(RuntimeError, match=named):
        create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", **settings))


def test_a_ca_file_that_is_not_pem_stops_the_app(tmp_path):
    from inspect_api import create_app
    from inspect_api.config import TestConfig
    junk = tmp_path / "ca.pem"
    junk.write_text("not a certificate")
    with pytest.raises(RuntimeError, match="SMTP_CA_FILE"):
        create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", SMTP_CA_FILE=str(junk)))
