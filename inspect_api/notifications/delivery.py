"""Turning an outbox row into an e-mail and handing it over: over SMTP, or to an .eml file.

SMTP_URL `smtp://user:pass@host:port` upgrades with STARTTLS whenever the server offers it;
`smtps://` speaks TLS from the first byte. User and password are URL-decoded, so a password with
`@` or `/` is written `%40`, `%2F`. Without SMTP_URL each message is written as an .eml file under
MAIL_DIR (default `<instance>/mail/`), the embedded default a demo user can open in any mail reader.
"""
from __future__ import annotations

import email.policy
import os
import smtplib
import socket
import ssl
import tempfile
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from flask import current_app

from .. import clock
from ..storage import blob_key, get_storage
from .models import Notification


class TemporaryFailure(Exception):
    """Try again later: a 4xx reply, a refused or dropped connection, a timeout."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


class PermanentFailure(Exception):
    """Do not try again: a 5xx reply (no such mailbox, refused content)."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    implicit_tls: bool
    user: str | None
    password: str | None

    @classmethod
    def parse(cls, url: str) -> "SmtpSettings":
        parsed = urlparse(url)
        if parsed.scheme not in ("smtp", "smtps") or not parsed.hostname:
            raise ValueError("SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://...")
        implicit = parsed.scheme == "smtps"
        return cls(host=parsed.hostname, port=parsed.port or (465 if implicit else 25), implicit_tls=implicit,
                   user=unquote(parsed.username) if parsed.username else None,
                   password=unquote(parsed.password) if parsed.password is not None else None)


def envelope_sender() -> str:
    """The bare address of MAIL_FROM, for the SMTP envelope (the header keeps the display name)."""
    return parseaddr(current_app.config.get("MAIL_FROM") or "")[1]


def mail_domain() -> str:
    address = parseaddr(current_app.config.get("MAIL_FROM") or "")[1]
    return address.rpartition("@")[2] or "localhost"


def new_message_id() -> str:
    """A Message-ID on the MAIL_FROM domain, recorded before the first attempt so every retry of one
    message carries the same id (a recipient's mail system can tell a resend from a new notice)."""
    return make_msgid(domain=mail_domain())


def build(message: Notification) -> EmailMessage:
    """The e-mail exactly as recorded: subject and bodies as rendered at enqueue, attachments read
    back from the blob store by their SHA-256."""
    # Built under the SMTP policy (CRLF line ends) from the start: serialising it for DATA then needs no
    # second pass over every header under another policy.
    mail = EmailMessage(policy=email.policy.SMTP)
    mail["From"] = current_app.config["MAIL_FROM"]
    mail["To"] = formataddr((message.recipient_name, message.recipient_email))
    mail["Subject"] = message.subject
    mail["Date"] = format_datetime(clock.now())
    mail["Message-ID"] = message.message_id
    mail["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to the Town's notices
    mail.set_content(message.body_text)
    if message.body_html:
        mail.add_alternative(message.body_html, subtype="html")
    store = get_storage()
    for item in message.attachments or []:
        with store.open(blob_key(item["sha256"])) as blob:
            data = blob.read()
        maintype, _, subtype = item["content_type"].partition("/")
        mail.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream", filename=item["name"])
    return mail


def _reply(code: int, text: bytes | str) -> str:
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {text}".strip()


class SmtpTransport:
    """One connection for a batch, opened on first use and reopened after a failure."""

    def __init__(self, url: str, timeout: float) -> None:
        self.settings = SmtpSettings.parse(url)
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        if s.implicit_tls:
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=self.timeout, context=context)
        else:
            smtp = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
        smtp.ehlo()
        if not s.implicit_tls and smtp.has_extn("starttls"):
            smtp.starttls(context=context)
            smtp.ehlo()
        if s.user:
            smtp.login(s.user, s.password or "")
        return smtp

    def send(self, mail: EmailMessage, sender: str, recipient: str, *, name: str = "") -> str:
        """Hand one message over and return the server's reply to DATA ("250 2.0.0 queued as ...");
        raise TemporaryFailure or PermanentFailure with the reply otherwise. The envelope is spoken
        step by step (smtplib's sendmail keeps the DATA reply to itself), one recipient a message."""
        try:
            if self._smtp is None:
                self._smtp = self._connect()
            smtp = self._smtp
            for step in (lambda: smtp.mail(sender), lambda: smtp.rcpt(recipient)):
                code, text = step()
                if code not in (250, 251):
                    self._reset_after_refusal()
                    raise (TemporaryFailure if 400 <= code < 500 else PermanentFailure)(_reply(code, text))
            code, text = smtp.data(mail.as_bytes())
            if code != 250:
                raise (TemporaryFailure if 400 <= code < 500 else PermanentFailure)(_reply(code, text))
            return _reply(code, text)
        except smtplib.SMTPAuthenticationError as exc:
            # The worker's own credentials are wrong: the message is not at fault, so it waits.
            self.close()
            raise TemporaryFailure("authentication failed: " + _reply(exc.smtp_code, exc.smtp_error)) from None
        except smtplib.SMTPResponseException as exc:
            self._reset_after_refusal()
            failure = TemporaryFailure if 400 <= exc.smtp_code < 500 else PermanentFailure
            raise failure(_reply(exc.smtp_code, exc.smtp_error)) from None
        except (smtplib.SMTPException, OSError, socket.timeout) as exc:
            self.close()
            raise TemporaryFailure(f"connection failed: {exc.__class__.__name__}: {exc}") from None

    def _reset_after_refusal(self) -> None:
        try:
            if self._smtp is not None:
                self._smtp.rset()
        except (smtplib.SMTPException, OSError):
            self.close()

    def close(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                pass
            self._smtp = None


class FileTransport:
    """Writes `<MAIL_DIR>/<message id>.eml`; the name is the outbox row's own UUID, never user input."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)

    def send(self, mail: EmailMessage, sender: str, recipient: str, *, name: str) -> str:
        target = self.folder / f"{name}.eml"
        fd, tmp = tempfile.mkstemp(dir=str(self.folder), prefix=".writing-")
        with os.fdopen(fd, "wb") as out:
            out.write(mail.as_bytes())
        os.replace(tmp, target)  # a reader never sees half a message
        return f"written to {target}"

    def close(self) -> None:
        pass


def transport() -> Any:
    cfg = current_app.config
    if cfg.get("SMTP_URL"):
        return SmtpTransport(cfg["SMTP_URL"], float(cfg.get("SMTP_TIMEOUT_SECONDS") or 30))
    return FileTransport(Path(cfg.get("MAIL_DIR") or Path(current_app.instance_path, "mail")))
