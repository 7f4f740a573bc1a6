"""CPython's garbage collector in a process that serves the app, settled once the app is built.

A serving process holds about 280,000 objects from its start (modules, mappers, schemas, compiled
dumpers and statements) that live as long as it does. CPython's collector walks every one of them in
each full collection: measured on a list of 100 permits, a full collection took about 160 ms and came
every ten such requests, and the young collections took another 5 ms of each. Two settings change
that (README "Lists against their floor"):

- `gc.freeze()` once the app is built moves what the start made to the permanent generation, which
  collections never walk (the objects stay alive as before; whatever the start left unreachable is
  collected first);
- a young-generation threshold of `GC_YOUNG_THRESHOLD` container objects (CPython's default is 700),
  so a request's records, which live until the answer is written, are not walked over and over
  while they are being read and dumped. Objects freed by their reference count, nearly all of them,
  go as before; only garbage in reference cycles waits for a collection, and at most that many new
  objects pile up before one comes.

The test configuration leaves the collector alone (the suite builds thousands of apps in one process,
and freezing each one's leftovers would keep them for good).
"""
from __future__ import annotations

import gc


def settle(young_threshold: int) -> None:
    """Collect once, freeze what is left, and set the young generation's threshold."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(young_threshold, middle, old)
