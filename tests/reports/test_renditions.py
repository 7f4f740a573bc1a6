"""The stored rendition mechanism on its own (inspect_api/renditions.py): one key per kind, audience
and inputs; the first bytes stored under a key stand; bytes a renderer marks incomplete are not kept."""
from __future__ import annotations

import pytest

from inspect_api import renditions
from inspect_api.storage import get_storage


def test_the_key_follows_kind_audience_and_inputs_not_their_order(app):
    key = renditions.rendition_key("inspection-report", "staff", {"records": [["finding", "a", 1]], "x": 1})
    assert key == renditions.rendition_key("inspection-report", "staff", {"x": 1, "records": [["finding", "a", 1]]})
    assert key != renditions.rendition_key("inspection-report", "applicant", {"records": [["finding", "a", 1]], "x": 1})
    assert key != renditions.rendition_key("inspection-report", "staff", {"records": [["finding", "a", 2]], "x": 1})
    assert key != renditions.rendition_key("order", "staff", {"records": [["finding", "a", 1]], "x": 1})
    assert renditions.blob_name("inspection-report", key) == f"renditions/inspection-report/{key[:2]}/{key}.pdf"
    with pytest.raises(ValueError):
        renditions.rendition_key("../etc", "staff", {})


def test_renders_once_and_the_first_bytes_stored_stand(app):
    calls = []

    def render(data):
        def make():
            calls.append(data)
            return data
        return make

    key, first = renditions.kept("demo", "staff", {"v": 1}, render(b"%PDF-first"))
    assert first == b"%PDF-first" and calls == [b"%PDF-first"]
    assert renditions.kept("demo", "staff", {"v": 1}, render(b"%PDF-second")) == (key, b"%PDF-first")
    assert calls == [b"%PDF-first"]
    # Two requests rendering one key at once: the later write finds the key taken and answers the
    # bytes stored first, so one ETag never names two byte sequences.
    name = renditions.blob_name("demo", key)
    assert renditions._store(name, b"%PDF-racing", "application/pdf") == b"%PDF-first"
    assert get_storage().exists(name)


def test_bytes_marked_incomplete_are_answered_and_not_kept(app):
    _, data = renditions.kept("demo", "staff", {"v": 2}, lambda: renditions.Rendered(b"%PDF-partial", keep=False))
    assert data == b"%PDF-partial"
    key = renditions.rendition_key("demo", "staff", {"v": 2})
    assert not get_storage().exists(renditions.blob_name("demo", key))
    _, data = renditions.kept("demo", "staff", {"v": 2}, lambda: b"%PDF-whole")
    assert data == b"%PDF-whole"
