"""inspect_api.uploads: bodies spooled to disk in chunks, hashed on the way, never held whole."""
from __future__ import annotations

import hashlib
import io
import tracemalloc

import pytest
from werkzeug.exceptions import ClientDisconnected
from werkzeug.wsgi import LimitedStream

from inspect_api.errors import PayloadTooLarge
from inspect_api.uploads import receive_to_tempfile


class Body:
    """A body that arrives in small reads and never exists whole in memory."""

    def __init__(self, size: int) -> None:
        self.left, self.block = size, bytes(range(256)) * 32

    def read(self, size: int = -1) -> bytes:
        n = min(self.left, len(self.block), size if size > 0 else len(self.block))
        self.left -= n
        return self.block[:n]


def test_digests_size_and_head(tmp_path):
    data = bytes(range(256)) * 1000
    with receive_to_tempfile(io.BytesIO(data), 10**6, dir=tmp_path, algorithms=["sha1"]) as received:
        assert received.size == len(data) and received.path.read_bytes() == data
        assert received.sha256 == hashlib.sha256(data).hexdigest()
        assert received.digests["sha1"] == hashlib.sha1(data).hexdigest()
        assert received.head == data[:64]
    assert list(tmp_path.iterdir()) == []


def test_exactly_the_limit_passes_and_one_more_byte_is_413(tmp_path):
    with receive_to_tempfile(io.BytesIO(b"x" * 100), 100, dir=tmp_path) as received:
        assert received.size == 100
    with pytest.raises(PayloadTooLarge):
        receive_to_tempfile(io.BytesIO(b"x" * 101), 100, dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_short_body_removes_the_temporary_file(tmp_path):
    stream = LimitedStream(io.BytesIO(b"x" * 500), 1000)  # says 1000, delivers 500: the client left
    with pytest.raises(ClientDisconnected):
        receive_to_tempfile(stream, 10**6, dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def _peak(size: int, folder) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    with receive_to_tempfile(LimitedStream(Body(size), size), 64 << 20, dir=folder):
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_does_not_grow_with_the_body(tmp_path):
    small, large = _peak(1 << 20, tmp_path), _peak(16 << 20, tmp_path)
    assert large < 2 * small + (64 << 10)  # sixteen times the bytes, about the same memory
    assert large < (1 << 20)  # far below even the small body's size
