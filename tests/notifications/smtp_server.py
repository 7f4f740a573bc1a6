"""A real SMTP server for the suite, run as its own process: `python -m tests.notifications.smtp_server
--port N --out DIR [--refuse CODE --refuse-count K] [--user U --password P]`.

It is aiosmtpd's Controller on 127.0.0.1 with a handler that keeps each accepted message as
`<DIR>/<n>.eml` beside `<n>.json` (the envelope: MAIL FROM, RCPT TO, the login used). `--refuse 451
--refuse-count 1` answers the first RCPT with 451 and then accepts (a temporary failure); `--refuse 550`
without a count refuses every RCPT for good. It prints "ready" once listening and stops on SIGTERM.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import warnings
import sys
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

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse and (self.left is None or self.left > 0):
            if self.left is not None:
                self.left -= 1
            return REPLIES.get(self.refuse, f"{self.refuse} refused")
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            self.count += 1
            n = self.count
        (self.out / f"{n:04d}.eml").write_bytes(envelope.original_content or envelope.content)
        auth = getattr(session, "auth_data", None)
        login = auth.login.decode() if isinstance(auth, LoginPassword) else None
        (self.out / f"{n:04d}.json").write_text(json.dumps(
            {"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "login": login}))
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
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # AUTH without TLS is what this test server is for
    args.out.mkdir(parents=True, exist_ok=True)
    kwargs = {}
    if args.user:
        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and (auth_data.login.decode(), auth_data.password.decode()) \
                == (args.user, args.password)
            return AuthResult(success=ok, auth_data=auth_data, handled=False)  # False: aiosmtpd answers 535
        kwargs = {"authenticator": authenticate, "auth_require_tls": False, "auth_required": True,
                  "auth_exclude_mechanism": ["LOGIN"]}  # smtplib and aiosmtpd disagree on LOGIN's first line
    controller = Controller(Handler(args.out, args.refuse, args.refuse_count, args.delay), hostname="127.0.0.1",
                            port=args.port, **kwargs)
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
