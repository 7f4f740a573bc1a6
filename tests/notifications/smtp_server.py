"""A real SMTP server for the suite, run as its own process: `python -m tests.notifications.smtp_server
--port N --out DIR [--refuse CODE --refuse-count K] [--user U --password P] [--cert PEM --key PEM
[--require-starttls]]`.

It is aiosmtpd's Controller on 127.0.0.1 with a handler that keeps each accepted message as
`<DIR>/<n>.eml` beside `<n>.json` (the envelope: MAIL FROM, RCPT TO, the login used, whether the
session was under TLS). `--refuse 451 --refuse-count 1` answers the first RCPT with 451 and then accepts
(a temporary failure); `--refuse 550` without a count refuses every RCPT for good. `--cert`/`--key`
offer STARTTLS (RFC 3207) with that certificate; without them the server offers none, like a server
(or a network in between) that speaks only plain text. Every AUTH, MAIL, RCPT and DATA it hears is
logged to `<DIR>/commands.jsonl` with whether it came under TLS, so a test can tell what crossed the
wire in clear. It prints "ready" once listening and stops on SIGTERM.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import ssl
import sys
import warnings
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

REPLIES = {451: "451 4.3.0 Mailbox temporarily unavailable, try again later",
           550: "550 5.1.1 No such mailbox here"}


class Handler:
    def __init__(self, out: Path, refuse: int | None, refuse_count: int | None, delay: float = 0) -> None:
        self.out, self.delay = out, delay
        self.refuse, self.left = refuse, refuse_count
        self.count = 0
        self.lock = threading.Lock()

    def note(self, session, command: str) -> None:
        with self.lock, (self.out / "commands.jsonl").open("a") as log:
            log.write(json.dumps({"command": command, "tls": session.ssl is not None}) + "\n")

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        self.note(session, "MAIL")
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        self.note(session, "RCPT")
        if self.refuse and (self.left is None or self.left > 0):
            if self.left is not None:
                self.left -= 1
            return REPLIES.get(self.refuse, f"{self.refuse} refused")
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        self.note(session, "DATA")
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            self.count += 1
            n = self.count
        (self.out / f"{n:04d}.eml").write_bytes(envelope.original_content or envelope.content)
        auth = getattr(session, "auth_data", None)
        login = auth.login.decode() if isinstance(auth, LoginPassword) else None
        (self.out / f"{n:04d}.json").write_text(json.dumps(
            {"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "login": login,
             "tls": session.ssl is not None}))
        return f"250 2.0.0 Ok: queued as TEST{n:04d}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--refuse", type=int)
    parser.add_argument("--refuse-count", type=int)
    parser.add_argument("--delay", type=float, default=0, help="seconds to take over each DATA")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--cert", help="PEM server certificate: offer STARTTLS with it")
    parser.add_argument("--key", help="PEM private key of --cert")
    parser.add_argument("--require-starttls", action="store_true", help="refuse MAIL and AUTH before STARTTLS")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # AUTH without TLS is what this test server is for
    args.out.mkdir(parents=True, exist_ok=True)
    handler = Handler(args.out, args.refuse, args.refuse_count, args.delay)
    kwargs: dict = {}
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        kwargs.update(tls_context=context, require_starttls=args.require_starttls)
    if args.user:
        def authenticate(server, session, envelope, mechanism, auth_data):
            handler.note(session, "AUTH")
            ok = isinstance(auth_data, LoginPassword) and (auth_data.login.decode(), auth_data.password.decode()) \
                == (args.user, args.password)
            return AuthResult(success=ok, auth_data=auth_data, handled=False)  # False: aiosmtpd answers 535
        # AUTH is allowed in clear here so a test can see a client that would send it so.
        kwargs.update(authenticator=authenticate, auth_require_tls=False, auth_required=True,
                      auth_exclude_mechanism=["LOGIN"])  # smtplib and aiosmtpd disagree on LOGIN's first line
    controller = Controller(handler, hostname="127.0.0.1", port=args.port, **kwargs)
    controller.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("ready", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
