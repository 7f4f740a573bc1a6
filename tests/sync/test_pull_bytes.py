"""A pull page is bounded in bytes as well as in records (API.md "Sync", SYNC_PULL_MAX_BYTES):
junk-sized records cannot make one page tens of megabytes, and the early end skips nothing."""
from __future__ import annotations

import json

from .conftest import edit


def _page_bytes(page: dict) -> int:
    return sum(len(json.dumps(c, separators=(",", ":")).encode("utf-8")) + 1 for c in page["changes"])


def _big_entries(site, tablet, count: int) -> list[str]:
    # notes up to their maximum length: about 4 kB of JSON per record
    return [site.new_entry(tablet, notes=f"{n} " + "n" * 3990) for n in range(count)]


def test_pages_end_at_the_byte_cap_and_skip_nothing(site, app):
    app.config["SYNC_PULL_MAX_BYTES"] = 10_000
    writer = site.tablet()
    ids = _big_entries(site, writer, 10)
    reader = site.tablet()
    page = reader.pull_page(limit=500)
    assert page["has_more"] is True
    assert 1 < len(page["changes"]) < 10 and _page_bytes(page) <= 10_000
    reader.cursor = page["cursor"]
    for change in page["changes"]:
        reader.held[(change["entity"], change["id"])] = change
    # a record already sent and one not yet sent both change while the reader is mid-way
    sent = next(c["id"] for c in page["changes"] if c["entity"] == "entry_authorization")
    unsent = next(i for i in ids if ("entry_authorization", i) not in reader.held)
    for record_id in (sent, unsent):
        current = reader.held.get(("entry_authorization", record_id), {}).get("version", 1)
        assert writer.push([edit("entry_authorization", record_id, current, {"notes": "changed"})])[0]["status"] \
            == "applied"
    pages = 1
    while True:
        page = reader.pull_page(limit=500)
        pages += 1
        assert len(page["changes"]) == 1 or _page_bytes(page) <= 10_000
        for change in page["changes"]:
            reader.held[(change["entity"], change["id"])] = change
        reader.cursor = page["cursor"]
        if not page["has_more"]:
            break
    assert pages >= 4
    assert reader.ids("entry_authorization") == set(ids)
    assert reader.held[("entry_authorization", sent)]["data"]["notes"] == "changed"
    assert reader.held[("entry_authorization", unsent)]["data"]["notes"] == "changed"
    assert reader.pull_page()["changes"] == []


def test_a_record_larger_than_the_cap_goes_alone(site, app):
    app.config["SYNC_PULL_MAX_BYTES"] = 1_000
    writer = site.tablet()
    ids = _big_entries(site, writer, 3)
    reader = site.tablet()
    seen = []
    while True:
        page = reader.pull_page(limit=500)
        assert len(page["changes"]) <= 1 or _page_bytes(page) <= 1_000
        seen += [c["id"] for c in page["changes"]]
        reader.cursor = page["cursor"]
        if not page["has_more"]:
            break
    assert set(ids) <= set(seen) and len(seen) == len(set(seen))


def test_default_cap_is_five_megabytes(app):
    assert app.config["SYNC_PULL_MAX_BYTES"] == 5 * 1024 * 1024
