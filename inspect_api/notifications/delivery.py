"""Turning an outbox row into an e-mail and handing it over: over SMTP, or to an .eml file.

SMTP_URL `smtp://user:pass@host:port` upgrades with STARTTLS (RFC 3207) as SMTP_TLS says:
`required` (the default when SMTP_URL names a user) sends nothing, not even AUTH, unless the server
offers STARTTLS and its certificate verifies; `opportunistic` (the default without a user) upgrades
when the server offers STARTTLS and otherwise sends in clear; `off` never upgrades. A certificate
that does not verify is refused in every mode, never a reason to fall back to plain text: a network
in between can strip the offer of STARTTLS, but not forge a certificate. `smtps://` speaks TLS from
the first byte. Certificates are checked against the system's CAs, or against only those in
SMTP_CA_FILE (a private CA). User and password are URL-decoded, so a password with `@` or `/` is
written `%40`, `%2F`. Without SMTP_URL each message is written as an .eml file under MAIL_DIR
(default `<instance>/mail/`), the embedded default a demo user can open in any mail reader.
"""
from __future__ import annotations

import email.policy
import os
import re
import smtplib
import socket
import ssl
import tempfile
from dataclasses import dataclass
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from flask import current_app

from .. import clock
from ..storage import blob_key, get_storage
from .models import Notification
from .templating import one_line


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


TLS_MODES = ("required", "opportunistic", "off")


def parse_tls_mode(value: str) -> str:
    mode = (value or "").strip().lower()
    if mode not in TLS_MODES:
        raise ValueError("SMTP_TLS must be one of " + ", ".join(TLS_MODES))
    return mode


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """Certificate and host name checked (ssl's defaults); with `ca_file`, against that CA only."""
    if not ca_file:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"SMTP_CA_FILE must name a readable PEM file of CA certificates ({ca_file}: "
                         f"{exc.__class__.__name__})") from None


def parse_mail_from(value: str) -> Address:
    """MAIL_FROM as one structured address ("Name <box@domain>" or a bare address)."""
    try:
        addresses = email.policy.default.header_factory("From", value or "").addresses
    except (ValueError, IndexError, TypeError):
        addresses = ()
    if len(addresses) != 1 or not addresses[0].username or not addresses[0].domain:
        raise ValueError("MAIL_FROM must be one address: Name <box@domain> or box@domain")
    return addresses[0]


def envelope_sender() -> str:
    """The bare address of MAIL_FROM, for the SMTP envelope (the header keeps the display name)."""
    return parse_mail_from(current_app.config.get("MAIL_FROM") or "").addr_spec


def mail_domain() -> str:
    return parse_mail_from(current_app.config.get("MAIL_FROM") or "").domain or "localhost"


# RFC 5322 2.1.1: lines SHOULD be at most 78 characters. Headers are written here, already folded, and
# stored raw: the email package's own refolding (Python 3.11) drops the quotes of a display name
# with a comma when it folds, turning "Souza, Ana" <a@x> into two addresses, and drops the space
# between two encoded words of a subject ("São João" -> "SãoJoão").
_LINE = 78
_ATOMS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]+")  # RFC 5322 3.2.3 atext and spaces: a bare phrase


def _encoded(text: str, header: str) -> str:
    """RFC 2047 encoded words, each at most 75 characters, one a line: the text's spaces and any
    specials are inside the words, so a reader decodes exactly `text` and sees no structure in it."""
    return Header(text, "utf-8", header_name=header).encode(linesep="\r\n")


def mailbox_header(name: str | None, address: str, header: str) -> str:
    """`name <address>` for a From or To header: the address from a structured Address, the display
    name a single atom phrase, a quoted string, or encoded words, so no name can add an address, change
    this one, or begin another header. A bad address raises ValueError (the message is not built)."""
    addr_spec = Address(addr_spec=address).addr_spec
    name = one_line(name)
    if not name:
        return addr_spec
    if name.isascii() and "=?" not in name:
        phrase = name if _ATOMS.fullmatch(name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if len(header) + 2 + len(phrase) + 2 + len(addr_spec) + 1 <= _LINE:
            return f"{phrase} <{addr_spec}>"
    words = _encoded(name, header)
    last = words.rpartition("\n")[2]
    start = len(header) + 2 if "\n" not in words else 0
    return words + (" " if start + len(last) + len(addr_spec) + 3 <= _LINE else "\r\n ") + f"<{addr_spec}>"


def subject_header(subject: str) -> str:
    """The subject folded at its own spaces (RFC 5322 2.2.3: unfolding gives the text back exactly);
    non-ASCII text, or a word too long for a line, as encoded words. Never folded before its first
    word, so no subject begins with a space."""
    subject = one_line(subject)
    words = subject.split(" ")
    if not subject.isascii() or "=?" in subject or max(map(len, words)) > _LINE - len("Subject: "):
        return _encoded(subject, "Subject")
    lines = [words[0]]
    for word in words[1:]:
        room = _LINE - (len("Subject: ") if len(lines) == 1 else 0)
        if len(lines[-1]) + 1 + len(word) <= room:
            lines[-1] += " " + word
        else:
            lines.append(" " + word)
    return "\r\n".join(lines)


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
    sender = parse_mail_from(current_app.config["MAIL_FROM"])
    # Raw, already folded: see _LINE. Each value is made of one structured address or plain text.
    mail.set_raw("From", mailbox_header(sender.display_name, sender.addr_spec, "From"))
    mail.set_raw("To", mailbox_header(message.recipient_name, message.recipient_email, "To"))
    mail.set_raw("Subject", subject_header(message.subject))
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

    def __init__(self, url: str, timeout: float, tls: str | None = None, ca_file: str | None = None) -> None:
        self.settings = SmtpSettings.parse(url)
        self.timeout = timeout
        self.tls = parse_tls_mode(tls) if tls else "required" if self.settings.user else "opportunistic"
        self.context = tls_context(ca_file)
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        if s.implicit_tls:
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=self.timeout, context=self.context)
        else:
            smtp = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
        try:
            smtp.ehlo()
            if not s.implicit_tls and self.tls != "off":
                self._starttls(smtp)
            if s.user:
                smtp.login(s.user, s.password or "")
        except BaseException:
            smtp.close()  # never kept: a half-set-up session (no TLS, no login) sends nothing
            raise
        return smtp

    def _starttls(self, smtp: smtplib.SMTP) -> None:
        where = f"{self.settings.host}:{self.settings.port}"
        if not smtp.has_extn("starttls"):
            if self.tls == "opportunistic":
                return
            raise TemporaryFailure(f"not sent: the mail server at {where} offers no STARTTLS, and SMTP_TLS is "
                                   "required (credentials and notices are never sent in clear)")
        try:
            code, text = smtp.starttls(context=self.context)
        except ssl.SSLCertVerificationError as exc:
            raise TemporaryFailure(f"not sent: the certificate of the mail server at {where} was refused "
                                   f"(certificate verify failed: {exc.verify_message}); SMTP_CA_FILE names a "
                                   "private CA") from None
        if code != 220:  # smtplib returns a refused STARTTLS instead of raising; the session is still plain
            raise TemporaryFailure(f"not sent: the mail server at {where} refused STARTTLS: {_reply(code, text)}")
        smtp.ehlo()

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
        return SmtpTransport(cfg["SMTP_URL"], float(cfg.get("SMTP_TIMEOUT_SECONDS") or 30), cfg.get("SMTP_TLS"),
                             cfg.get("SMTP_CA_FILE"))
    return FileTransport(Path(cfg.get("MAIL_DIR") or Path(current_app.instance_path, "mail")))
