"""Notification delivery against a floor measured in the same run.

    python benchmarks/notifications.py [--count N] [--pg postgresql://postgres@127.0.0.1:5432/postgres]

Both sides send the same N messages (a text and an HTML body and a 40 kB PDF each, one recipient
each) to one aiosmtpd server on 127.0.0.1 that discards them:

floor:   smtplib over one connection, the messages already built in memory (MAIL, RCPT, DATA each);
worker:  `worker.drain()`: claim in batches, renew the lease, read the attachment back from the blob
         store, build the message, send, record the reply, three short transactions a message.

Enqueueing is timed too (rendering both templates, storing the attachment once, one row each).
Only ratios mean anything on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import smtplib
import socket
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from benchmarks.throwaway import Throwaway  # noqa: E402
from inspect_api import create_app, import_models  # noqa: E402
from inspect_api.config import TestConfig  # noqa: E402
from inspect_api.extensions import db  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL"))
    args = parser.parse_args()
    from aiosmtpd.controller import Controller
    from aiosmtpd.handlers import Sink

    port = free_port()
    server = Controller(Sink(), hostname="127.0.0.1", port=port)
    server.start()
    folder = Path(tempfile.mkdtemp(prefix="notify-bench-"))
    target = Throwaway(args.pg, "notify_bench")
    url = target.url
    try:
        import_models()
        engine = sa.create_engine(url)
        db.metadata.create_all(engine)
        engine.dispose()
        app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=url, STORAGE_URL=(folder / "blobs").as_uri(),
                                    SMTP_URL=f"smtp://127.0.0.1:{port}", NOTIFY_BATCH=20,
                                    PUBLIC_BASE_URL="https://permits.example.org"))
        with app.app_context():
            run(app, args.count, port, "PostgreSQL" if args.pg else "SQLite")
            db.session.remove()
            db.engine.dispose()
    finally:
        server.stop()
        target.drop()
    return 0


def run(app, n: int, port: int, label: str) -> None:
    from inspect_api.notifications import delivery, outbox, worker
    from inspect_api.notifications.models import Notification
    from inspect_api.seed import run_all
    run_all()
    db.session.commit()
    permit = SimpleNamespace(id=None, number="LDP-2026-0001", site_address="40 Center Street", status="issued")
    order = SimpleNamespace(id=str(uuid.uuid4()), permit_id=None, number="ORD-2026-0001", deadline=date(2026, 5, 9),
                            requirements=[{"kind": "controls", "text": "Restake the silt fence"}],
                            __sync_entity__="order")
    pdf = b"%PDF-1.4\n" + os.urandom(40_000)
    context = {"order": order, "permit": permit, "record_label": "permit", "role_title": "property owner"}

    started = time.perf_counter()
    for i in range(n):
        outbox.enqueue("order_issued", order, [outbox.Recipient(f"Person {i}", f"p{i}@example.org", "owner")],
                       context, attachments=[outbox.Attachment("ORD-2026-0001.pdf", "application/pdf", pdf)],
                       required=True, link="#/permit/x")
    db.session.commit()
    enqueue_s = time.perf_counter() - started

    # The floor: the same messages, built once in memory, over one smtplib connection.
    rows = list(db.session.scalars(sa.select(Notification)))
    for row in rows:
        row.message_id = delivery.new_message_id()
    mails = [delivery.build(row) for row in rows]
    db.session.rollback()
    import email.policy
    started = time.perf_counter()
    smtp = smtplib.SMTP("127.0.0.1", port)
    smtp.ehlo()
    for mail, row in zip(mails, rows):
        smtp.mail("stormwater@example.org")
        smtp.rcpt(row.recipient_email)
        smtp.data(mail.as_bytes(policy=email.policy.SMTP))
    smtp.quit()
    floor_s = time.perf_counter() - started

    started = time.perf_counter()
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats
        profile = cProfile.Profile()
        tally = profile.runcall(worker.drain, "bench")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    else:
        tally = worker.drain("bench")
    drain_s = time.perf_counter() - started
    assert tally.sent == n, tally
    print(f"{label}, {n} messages with a 40 kB PDF each")
    print(f"  enqueue (render, store, insert): {1000 * enqueue_s / n:.2f} ms a message")
    print(f"  floor (smtplib, prebuilt):      {1000 * floor_s / n:.2f} ms a message")
    print(f"  worker drain:                   {1000 * drain_s / n:.2f} ms a message  ->  {drain_s / floor_s:.2f}x the floor")


if __name__ == "__main__":
    sys.exit(main())
