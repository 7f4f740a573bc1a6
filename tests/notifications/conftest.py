"""The suite's SMTP server (smtp_server.py) as a fixture: a separate process on 127.0.0.1."""
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

    def received(self) -> list[tuple[dict, email.message.EmailMessage]]:
        """(envelope, message) for each accepted message, in arrival order."""
        found = []
        for eml in sorted(self.out.glob("*.eml")):
            envelope = json.loads(eml.with_suffix(".json").read_text())
            found.append((envelope, email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)))
        return found

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_smtp(tmp_path: Path, *args: str, user: str | None = None, password: str | None = None) -> SmtpServer:
    port = free_port()
    out = tmp_path / f"smtp-{port}"
    extra = ["--user", user, "--password", password] if user else []
    process = subprocess.Popen([sys.executable, "-m", "tests.notifications.smtp_server", "--port", str(port),
                                "--out", str(out), *args, *extra], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if line.strip() != "ready":
        process.kill()
        raise RuntimeError(f"test SMTP server did not start: {line!r}")
    return SmtpServer(url=f"smtp://127.0.0.1:{port}", out=out, process=process)


@pytest.fixture
def smtp_factory(tmp_path):
    """start(*args, user=, password=) -> SmtpServer; every server started is stopped afterwards."""
    started: list[SmtpServer] = []

    def start(*args: str, **kwargs) -> SmtpServer:
        server = start_smtp(tmp_path, *args, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def smtp_server(smtp_factory):
    return smtp_factory()
