"""Thumbnails made after the upload answers: the photo_derivations outbox and its worker.

An upload stores the original once it is verified (photos/imaging.inspect: type, limits, a complete
container, EXIF; no pixel decoded) and writes one `queued` row here per distinct original, in the
upload's own transaction. `inspect-api worker` (beside the mail worker, or alone with --photos-only)
and the demo's thread make the display (1280) and small (320) JPEGs, in three short transactions
with none open while decoding, as the mail worker delivers:

1. claim: due queued rows, `SELECT ... FOR UPDATE SKIP LOCKED` on PostgreSQL (several workers never
   take the same row; SQLite serialises writers with BEGIN IMMEDIATE), marked as this worker's until
   `lease_until` and the attempt counted;
2. derive, no transaction: the original read from the store into a temporary file, decoded within
   MAX_IMAGE_DECODE_BYTES and one of IMAGE_WORKERS slots, both thumbnails put in the store (put_file
   never replaces, so a job done twice after a lost lease stores one pair);
3. record, only while the row is still this worker's: done; failed for good when the pixels cannot
   be decoded (the reason kept, the original still served); or queued again with backoff when the
   store was away, until PHOTO_DERIVE_MAX_ATTEMPTS.

A worker that dies mid-job leaves its lease to expire; another then takes the job. A job whose
attempts ran out while leased (a photo that kills its worker each time) is failed at the next claim.
PHOTO_DERIVE_INLINE makes the thumbnails within the upload request instead (tests, small installs).
"""
from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta, timezone
from pathlib import Path
from typing import Callable, Iterable

import sqlalchemy as sa
from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .. import clock
from ..errors import ApiError, NotFound
from ..extensions import db
from ..paging import chunks
from ..storage import get_storage
from ..uploads import HEAD_BYTES, TEMP_PREFIX, temp_dir
from . import imaging
from .models import PhotoDerivation

log = logging.getLogger(__name__)

SIZES = ("display", "small")


@dataclass
class Tally:
    done: int = 0
    failed: int = 0
    retrying: int = 0
    skipped: int = 0
    ids: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"thumbnails made {self.done}, failed {self.failed}, to retry {self.retrying}"


def _setting(name: str) -> int:
    return int(current_app.config[name])


def inline() -> bool:
    return bool(current_app.config.get("PHOTO_DERIVE_INLINE"))


def worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


# -- the upload's side -----------------------------------------------------------------------------
def enqueue(sha256: str, content_type: str, original_key: str, display_key: str, small_key: str, *,
            made: bool = False) -> None:
    """The job for these bytes, in the caller's transaction: done when the thumbnails were just made
    inline (`made`), else queued for the worker. The same bytes again (another photo, a report's
    photo) share the existing job."""
    if db.session.get(PhotoDerivation, sha256) is not None:
        return
    now = clock.now()
    job = PhotoDerivation(sha256=sha256, content_type=content_type, original_key=original_key,
                          display_key=display_key, small_key=small_key, attempts=0,
                          status="done" if made else "queued", next_attempt_at=None if made else now,
                          derived_at=now if made else None, created_at=now)
    try:
        with db.session.begin_nested():
            db.session.add(job)
    except IntegrityError:  # the same bytes arrived in another upload at the same moment: its job
        pass


def job_of(sha256: str) -> PhotoDerivation | None:
    """The job of these bytes; None for an original stored with its thumbnails before jobs existed."""
    return db.session.get(PhotoDerivation, sha256)


def jobs_of(sha256s: Iterable[str]) -> dict[str, PhotoDerivation]:
    wanted = sorted(set(sha256s))
    found: dict[str, PhotoDerivation] = {}
    for chunk in chunks(wanted):
        found.update((job.sha256, job) for job in db.session.scalars(
            select(PhotoDerivation).where(PhotoDerivation.sha256.in_(chunk))))
    return found


def ready(job: PhotoDerivation | None) -> bool:
    return job is None or job.status == "done"


# -- the worker's side -----------------------------------------------------------------------------
def backoff(attempts: int) -> timedelta:
    seconds = _setting("PHOTO_DERIVE_RETRY_SECONDS") * (2 ** max(attempts - 1, 0))
    return timedelta(seconds=min(seconds, 6 * 3600))


def claim(worker: str, limit: int) -> list[str]:
    """Mark up to `limit` due jobs as this worker's (their attempt counted); other workers skip the
    rows locked here. A job out of attempts whose lease ran out is failed instead."""
    now = clock.now()
    query = (select(PhotoDerivation)
             .where(PhotoDerivation.status == "queued", PhotoDerivation.next_attempt_at <= now,
                    sa.or_(PhotoDerivation.lease_until.is_(None), PhotoDerivation.lease_until < now))
             .order_by(PhotoDerivation.next_attempt_at, PhotoDerivation.sha256).limit(limit)
             .with_for_update(skip_locked=True))
    jobs = list(db.session.scalars(query))
    lease = now + timedelta(seconds=_setting("PHOTO_DERIVE_LEASE_SECONDS"))
    claimed = []
    for job in jobs:
        if job.attempts >= _setting("PHOTO_DERIVE_MAX_ATTEMPTS"):
            job.status, job.next_attempt_at, job.claimed_by, job.lease_until = "failed", None, None, None
            job.last_error = job.last_error or f"The thumbnails could not be made in {job.attempts} attempts."
            continue
        job.claimed_by, job.lease_until, job.attempts = worker, lease, job.attempts + 1
        claimed.append(job.sha256)
    db.session.commit()
    return claimed


def _record(sha256: str, worker: str, outcome: str, reason: str | None = None) -> str:
    job = db.session.get(PhotoDerivation, sha256, with_for_update=True, populate_existing=True)
    if job is None or job.claimed_by != worker or job.status != "queued":
        db.session.rollback()  # our lease ran out and another worker took the job: it records
        return "skipped"
    now = clock.now()
    job.claimed_by, job.lease_until = None, None
    if outcome == "done":
        job.status, job.derived_at, job.next_attempt_at, job.last_error = "done", now, None, None
    elif outcome == "temporary" and job.attempts < _setting("PHOTO_DERIVE_MAX_ATTEMPTS"):
        job.next_attempt_at, job.last_error = now + backoff(job.attempts), reason
        outcome = "retrying"
    else:
        job.status, job.next_attempt_at, job.last_error = "failed", None, reason
        outcome = "failed"
    db.session.commit()
    return outcome


def _download(key: str) -> tuple[Path, bytes]:
    """The stored original copied to a temporary file (a decoder needs to seek); its path and head."""
    folder = temp_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".original", dir=str(folder))
    try:
        with os.fdopen(fd, "wb") as out, get_storage().open(key) as source:
            shutil.copyfileobj(source, out, 1 << 20)
        with open(name, "rb") as copy:
            head = copy.read(HEAD_BYTES)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name), head


def make(original_key: str, *, store_as: tuple[str, str] | None = None) -> imaging.Derived:
    """Decode a stored original and make both thumbnails (temporary files the caller cleans up);
    with `store_as` (display key, small key) they are also put in the store. No transaction may be
    open: this is the slow part."""
    config = current_app.config
    path, head = _download(original_key)
    try:
        with imaging.slot(config["IMAGE_WORKERS"], max(config["IMAGE_WAIT_SECONDS"], 60)):
            derived = imaging.derive(path, head, max_pixels=config["MAX_IMAGE_PIXELS"],
                                     max_decode_bytes=config["MAX_IMAGE_DECODE_BYTES"], work_dir=temp_dir(),
                                     default_tz=timezone.utc)
    finally:
        path.unlink(missing_ok=True)
    if store_as is not None:
        try:
            store = get_storage()
            # Temporary files of this call: the local store may take them by hard link.
            store.put_file(derived.display_path, store_as[0], "image/jpeg", owned=True)
            store.put_file(derived.small_path, store_as[1], "image/jpeg", owned=True)
        except BaseException:
            derived.cleanup()
            raise
    return derived


def process(sha256: str, worker: str) -> str:
    """Make one claimed job's thumbnails; returns done | failed | retrying | skipped."""
    job = db.session.get(PhotoDerivation, sha256, populate_existing=True)
    if job is None or job.claimed_by != worker:
        db.session.rollback()
        return "skipped"
    original_key, keys = job.original_key, (job.display_key, job.small_key)
    db.session.rollback()  # no transaction stays open while the image is decoded
    try:
        make(original_key, store_as=keys).cleanup()
    except imaging.ImageBusy:
        return _record(sha256, worker, "temporary", "Other images were being read.")
    except ApiError as exc:  # image_invalid, image_too_large: these bytes will never decode
        return _record(sha256, worker, "permanent", exc.message)
    except NotFound:
        return _record(sha256, worker, "temporary", "The original is not in the store (yet).")
    except Exception as exc:  # noqa: BLE001  the store or the disk was away: try again later
        log.warning("thumbnails of %s not made; will retry", sha256, exc_info=True)
        return _record(sha256, worker, "temporary", f"{type(exc).__name__}: {exc}"[:500])
    return _record(sha256, worker, "done")


def drain(worker: str | None = None, *, stop: Callable[[], bool] = lambda: False, limit: int | None = None) -> Tally:
    """Make every due job's thumbnails (a few claimed at a time), then return."""
    worker = worker or worker_name()
    tally = Tally()
    try:
        while not stop():
            ids = claim(worker, 2)
            if not ids:
                break
            for sha256 in ids:
                if stop():
                    break  # the claimed rest go back when their lease runs out
                outcome = process(sha256, worker)
                setattr(tally, outcome, getattr(tally, outcome) + 1)
                tally.ids.append(sha256)
            if limit is not None and len(tally.ids) >= limit:
                break
    finally:
        db.session.rollback()
    return tally


def loop(stop: threading.Event, echo: Callable[[str], None] | None = None) -> Tally:
    """Drain every PHOTO_POLL_SECONDS until `stop` is set, finishing the photo in hand."""
    worker, total = worker_name(), Tally()
    while not stop.is_set():
        try:
            tally = drain(worker, stop=stop.is_set)
        except Exception:  # the database or the store was away: log, wait, try again
            log.exception("photo worker pass failed")
            db.session.rollback()
            tally = Tally()
        if tally.ids and echo:
            echo(str(tally))
        for name in ("done", "failed", "retrying"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        stop.wait(max(_setting("PHOTO_POLL_SECONDS"), 0.1))
    return total


def run(echo: Callable[[str], None] = print) -> Tally:
    """`inspect-api worker --photos-only`: the loop in this thread until SIGTERM or SIGINT."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda _signum, _frame: stop.set())
    echo(f"photo worker making thumbnails every {_setting('PHOTO_POLL_SECONDS')} s; stop with Ctrl-C or SIGTERM")
    return loop(stop, echo)


def start_thread(app, stop: threading.Event, echo: Callable[[str], None] | None = None) -> threading.Thread:
    """The loop on a thread of its own (beside the mail worker, or in the demo's process)."""
    def target() -> None:
        with app.app_context():
            loop(stop, echo)

    thread = threading.Thread(target=target, name="photo-worker", daemon=True)
    thread.start()
    return thread


# -- readers of thumbnails -------------------------------------------------------------------------
def thumbnail_bytes(sha256: str, original_key: str, size: str, key: str) -> tuple[bytes, bool]:
    """A thumbnail's bytes for a server-side rendition (a report, an annotated image), and whether
    they are the stored ones. Before the worker made them, they are made here from the original (and
    not stored: the caller keeps its rendition only when every part was stored). NotFound when
    there is nothing to show (thumbnail_failed: the image does not decode)."""
    try:
        with get_storage().open(key) as handle:
            return handle.read(), True
    except NotFound:
        job = job_of(sha256)
        if job is not None and job.status == "failed":
            raise NotFound("This photo's image could not be decoded, so it has no thumbnails; its original is kept.",
                           error="thumbnail_failed", errors={"reason": [job.last_error or "not readable"]}) from None
        if job is None:
            raise
    derived = make(original_key)
    try:
        return (derived.display_path if size == "display" else derived.small_path).read_bytes(), False
    finally:
        derived.cleanup()


def wait_for(sha256s: Iterable[str], timeout: float = 30.0) -> bool:
    """Until each job is done or failed (tests, scripts); True when none is left queued."""
    deadline = time.monotonic() + timeout
    wanted = list(sha256s)
    while True:
        db.session.rollback()
        if all(job.status != "queued" for job in jobs_of(wanted).values()):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


__all__ = ["SIZES", "Tally", "claim", "drain", "enqueue", "inline", "job_of", "jobs_of", "loop", "make",
           "process", "ready", "run", "start_thread", "thumbnail_bytes"]
