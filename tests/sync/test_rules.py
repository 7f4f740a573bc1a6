"""The pure sync rules: cursors, expiry, payloads and differing fields."""
from __future__ import annotations

import pytest

from inspect_api.sync import rules

KEY = b"k" * 32


def _cursor(**kw) -> rules.Cursor:
    return rules.Cursor(**{"seq": 10, "user_id": "u1", "role": "inspector", **kw})


def test_cursor_round_trip():
    for cursor in (_cursor(), _cursor(fresh_through=99), _cursor(expand_at=11, expand_after=None),
                   _cursor(expand_at=11, expand_after=4)):
        assert rules.decode_cursor(rules.encode_cursor(cursor, KEY), KEY) == cursor


@pytest.mark.parametrize("token", ["", "abc", "a.b.c", "eyJ2IjoxfQ.AAAA", "!!!.???"])
def test_garbage_cursor_is_invalid(token):
    with pytest.raises(rules.CursorInvalid):
        rules.decode_cursor(token, KEY)


def test_cursor_signed_with_another_key_is_invalid():
    with pytest.raises(rules.CursorInvalid):
        rules.decode_cursor(rules.encode_cursor(_cursor(), b"other"), KEY)


def test_advancing_past_the_first_sync_point_drops_it():
    cursor = _cursor(seq=0, fresh_through=50)
    assert cursor.advanced(20).fresh_through == 50
    assert cursor.advanced(50).fresh_through is None
    assert cursor.advanced(5, expand=(6, 3)) == _cursor(seq=5, fresh_through=50, expand_at=6, expand_after=3)


def test_expiry_edges():
    assert not rules.cursor_expired(_cursor(seq=10), 10)
    assert rules.cursor_expired(_cursor(seq=10), 11)
    assert not rules.cursor_expired(_cursor(seq=3, fresh_through=20), 20)  # a first sync needs no old deletes
    assert rules.cursor_expired(_cursor(seq=3, fresh_through=20), 21)


def test_clamp_limit():
    assert rules.clamp_limit(None, 500, 1000) == 500
    assert rules.clamp_limit(None, 500, 100) == 100
    assert rules.clamp_limit(5000, 500, 1000) == 1000
    assert rules.clamp_limit(0, 500, 1000) == 1


def test_payloads_drop_bookkeeping():
    data = {"id": "X", "version": 3, "created_at": "t", "notes": "n", "device_created_at": "d"}
    assert rules.create_payload("R", data) == {"id": "R", "notes": "n", "device_created_at": "d"}
    assert rules.update_payload(data) == {"notes": "n"}
    assert rules.id_mismatch("R", {"id": "X"}) and not rules.id_mismatch("R", {"id": "r"})


def test_differing_fields_ignore_spelling():
    server = {"id": "1", "version": 4, "valid_from": "2026-05-04T13:00:00+00:00", "temperature": 58.0,
              "scope": ["a", "b"], "notes": "x", "weather": {"t": 1}}
    device = {"version": 2, "valid_from": "2026-05-04T09:00:00-04:00", "temperature": 58, "scope": ["a", "b"],
              "notes": "y", "weather": {"t": 2}, "write_only": "w"}
    assert rules.differing_fields(device, server) == ["notes", "weather"]
    assert rules.differing_fields({"notes": "y"}, None) == ["notes"]
    assert rules.normalise("2026-05-04") == "2026-05-04"  # dates stay dates
    assert rules.take_device_changes(device, ["notes", "missing"]) == {"notes": "y"}
