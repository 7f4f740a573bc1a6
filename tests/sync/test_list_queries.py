"""The conflict list loads the names of its authors and devices for the whole page at once (README
"Layers", "One serialiser style"): a list of three conflicts from three devices runs the same SQL
statements as a list of one."""
from __future__ import annotations

from tests.sql_count import list_statements

from .conftest import API, edit


def _statements(site, headers, expected: int) -> list[str]:
    return list_statements(site.client, f"{API}/sync/conflicts", headers, expected)


def test_conflict_list(site):
    headers = site.headers(site.supervisor)
    counts = {}
    for n in (1, 2, 3):
        # Two devices edit the same authorization from version 1: the second push is a conflict.
        first, second = site.tablet(), site.tablet()
        record_id = site.new_entry(first)
        assert first.push([edit("entry_authorization", record_id, 1, {"notes": "from A"})])[0]["status"] == "applied"
        assert second.push([edit("entry_authorization", record_id, 1, {"notes": "from B"})])[0]["status"] == "conflict"
        if n != 2:
            counts[n] = _statements(site, headers, n)
    assert len(counts[1]) == len(counts[3]), "\n".join(s[:120] for s in counts[3])
