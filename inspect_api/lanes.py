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
from collections import deque
from contextlib import contextmanager
from typing import Callable, Iterator

from flask import Flask, g

from .errors import ApiError
from .extensions import db


class _Waiter:
    __slots__ = ("given", "woken")

    def __init__(self) -> None:
        self.given = False
        self.woken = threading.Event()


class Lane:
    """`size` turns; requests that find none wait in line, first come first served: a turn given back
    goes straight to the first in line, so a request that arrives at that moment cannot take it
    ahead of one that has waited."""

    def __init__(self, size: int, waiting: int | None) -> None:
        self.size, self.waiting = max(1, size), waiting
        self._lock = threading.Lock()
        self._free = self.size
        self._line: deque[_Waiter] = deque()

    @property
    def in_line(self) -> int:
        with self._lock:
            return len(self._line)

    def acquire(self, wait_seconds: float) -> bool:
        """A turn now, or after waiting in line at most `wait_seconds`; False when the line is full
        or the wait ran out."""
        return self.take(wait_seconds) is not None

    def take(self, wait_seconds: float) -> bool | None:
        """As acquire, saying how the turn came: False at once, True after waiting in line (what the
        caller read before may have changed meanwhile); None: no turn."""
        with self._lock:
            if self._free and not self._line:
                self._free -= 1
                return False
            if wait_seconds <= 0 or (self.waiting is not None and len(self._line) >= self.waiting):
                return None
            me = _Waiter()
            self._line.append(me)
        me.woken.wait(wait_seconds)
        with self._lock:
            if me.given:  # given, if only as the wait ran out
                return True
            self._line.remove(me)
            return None

    def release(self) -> None:
        with self._lock:
            if self._line:
                first = self._line.popleft()
                first.given = True
                first.woken.set()
            elif self._free < self.size:
                self._free += 1
            else:
                raise ValueError("a turn given back that was not taken")


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
                          waiting: int | None = None) -> bool:
    """A turn held until the request ends, after its COMMIT (released at teardown). What the request
    read so far (signing in) is rolled back first, so while it waits it holds no transaction: no
    connection, snapshot or SQLite write lock is kept from the turn's holder or anyone else. True
    when the turn came after a wait in line: what was read before may have changed meanwhile."""
    db.session.rollback()
    held = lane(name, size, waiting)
    waited = held.take(wait_seconds)
    if waited is None:
        raise busy()
    g.setdefault(_HELD, []).append(held)
    return waited


def register(app: Flask) -> None:
    @app.teardown_request
    def _release_turns(_exc):
        for held in reversed(g.pop(_HELD, [])):
            held.release()
