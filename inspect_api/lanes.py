"""Turns for heavy work: at most a few requests of one kind work at once in this process, a few more
wait for a turn, and the rest are told to come back (503 with Retry-After) at once.

A process serves many requests with a few threads (gunicorn gthread). Work that is CPU-bound and
can wait, such as applying a tablet's batch of a hundred changes or reading a camera image, would
otherwise take every thread and every core at the moments many devices send at once, and a person
reading a list would wait behind it. A lane keeps that work to `size` at a time and `waiting` in line
per process, so the other threads stay free for everyone else; a request past the line is refused
before it does anything, and its client (the app's sync, the outbox) sends it again after Retry-After.

Each lane is one per process, by name, sized from the settings the first request passes (a change of
size, as tests make, gives the lane anew).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from flask import Flask, g

from .errors import ApiError
from .extensions import db


class Lane:
    def __init__(self, size: int, waiting: int | None) -> None:
        self.size, self.waiting = max(1, size), waiting
        self._turns = threading.BoundedSemaphore(self.size)
        self._lock = threading.Lock()
        self._in_line = 0

    def acquire(self, wait_seconds: float) -> bool:
        """A turn now, or after waiting in line at most `wait_seconds`; False when the line is full
        or the wait ran out."""
        if self._turns.acquire(blocking=False):
            return True
        with self._lock:
            if self.waiting is not None and self._in_line >= self.waiting:
                return False
            self._in_line += 1
        try:
            return wait_seconds > 0 and self._turns.acquire(timeout=wait_seconds)
        finally:
            with self._lock:
                self._in_line -= 1

    def release(self) -> None:
        self._turns.release()


_lanes: dict[str, Lane] = {}
_lanes_lock = threading.Lock()
_HELD = "lanes_held"


def lane(name: str, size: int, waiting: int | None = None) -> Lane:
    with _lanes_lock:
        found = _lanes.get(name)
        if found is None or found.size != max(1, size) or found.waiting != waiting:
            found = _lanes[name] = Lane(size, waiting)
        return found


@contextmanager
def turn(name: str, size: int, wait_seconds: float, busy: Callable[[], ApiError],
         waiting: int | None = None) -> Iterator[None]:
    """Hold a turn of lane `name` for the block; raise `busy()` if none comes."""
    held = lane(name, size, waiting)
    if not held.acquire(wait_seconds):
        raise busy()
    try:
        yield
    finally:
        held.release()


def take_turn_for_request(name: str, size: int, wait_seconds: float, busy: Callable[[], ApiError],
                          waiting: int | None = None) -> None:
    """A turn held until the request ends, after its COMMIT (released at teardown). What the request
    read so far (signing in) is rolled back first, so while it waits it holds no transaction: no
    connection, snapshot or SQLite write lock is kept from the turn's holder or anyone else."""
    db.session.rollback()
    held = lane(name, size, waiting)
    if not held.acquire(wait_seconds):
        raise busy()
    g.setdefault(_HELD, []).append(held)


def register(app: Flask) -> None:
    @app.teardown_request
    def _release_turns(_exc):
        for held in reversed(g.pop(_HELD, [])):
            held.release()
