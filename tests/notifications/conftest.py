"""The suite's SMTP server (smtp_server.py) as a fixture: a separate process on 127.0.0.1, offering
STARTTLS with a certificate from a CA made for the test (pki.py), which the test's app trusts through
SMTP_CA_FILE, as a Town trusts its private CA."""
from __future__ import annotations

import email
import email.policy
import json
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .pki import make_server_certificate

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class SmtpServer:
    url: str
    out: Path
    process: subprocess.Popen
    ca_file: str | None = None  # the CA of the certificate it offers with STARTTLS, if it offers one

    def received(self) -> list[tuple[dict, email.message.EmailMessage]]:
        """(envelope, message) for each accepted message, in arrival order."""
        found = []
        for eml in sorted(self.out.glob("*.eml")):
            envelope = json.loads(eml.with_suffix(".json").read_text())
            found.append((envelope, email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)))
        return found

    def commands(self) -> list[dict]:
        """Each AUTH, MAIL, RCPT and DATA the server heard, with whether it came under TLS."""
        log = self.out / "commands.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_smtp(tmp_path: Path, *args: str, user: str | None = None, password: str | None = None,
               tls: str = "trusted", require_starttls: bool = False) -> SmtpServer:
    """`tls`: "trusted" offers STARTTLS with a certificate of the test's CA (`ca_file`); "untrusted"
    with one of another CA, whose chain the app cannot verify; "none" offers no STARTTLS."""
    port = free_port()
    out = tmp_path / f"smtp-{port}"
    extra = ["--user", user, "--password", password] if user else []
    ca_file = None
    if tls != "none":
        trusted = make_server_certificate(tmp_path / "pki", "trusted")
        offered = trusted if tls == "trusted" else make_server_certificate(tmp_path / "pki", "untrusted")
        extra += ["--cert", str(offered.cert_file), "--key", str(offered.key_file)]
        extra += ["--require-starttls"] if require_starttls else []
        ca_file = str(trusted.ca_file)
    process = subprocess.Popen([sys.executable, "-m", "tests.notifications.smtp_server", "--port", str(port),
                                "--out", str(out), *args, *extra], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if line.strip() != "ready":
        process.kill()
        raise RuntimeError(f"test SMTP server did not start: {line!r}")
    return SmtpServer(url=f"smtp://127.0.0.1:{port}", out=out, process=process, ca_file=ca_file)


@pytest.fixture
def smtp_factory(tmp_path, request):
    """start(*args, user=, password=, tls=, require_starttls=) -> SmtpServer; every server started is
    stopped afterwards. The test's app, if it has one, trusts the server's CA (SMTP_CA_FILE)."""
    started: list[SmtpServer] = []

    def start(*args: str, **kwargs) -> SmtpServer:
        server = start_smtp(tmp_path, *args, **kwargs)
        started.append(server)
        if server.ca_file and "app" in request.fixturenames:
            request.getfixturevalue("app").config["SMTP_CA_FILE"] = server.ca_file
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def smtp_server(smtp_factory):
    return smtp_factory()
