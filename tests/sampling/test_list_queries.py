"""The sample list loads the findings its samples raised for the whole page at once (README "Layers",
"One serialiser style"): a list of three runs the same SQL statements as a list of one."""
from __future__ import annotations

from datetime import timedelta

from tests.sql_count import list_statements

from .conftest import T0, sample_body

URL = "/api/v1/samples"


def _statements(client, headers, expected: int) -> list[str]:
    return list_statements(client, URL, headers, expected)


def test_sample_list(site, client):
    counts = {}
    for n in (1, 2, 3):
        # pH 9.1 is over the action level (R-S2): each sample raises a finding of its own.
        body = sample_body(site, sampled_at=(T0 + timedelta(hours=n)).isoformat(),
                           parameters=[{"name": "ph", "value": 9.1, "unit": "SU"}])
        r = client.post(URL, json=body, headers=site.headers)
        assert r.status_code == 201 and len(r.get_json()["finding_ids"]) == 1, r.get_json()
        if n != 2:
            counts[n] = _statements(client, site.headers, n)
    assert len(counts[1]) == len(counts[3]), "\n".join(s[:120] for s in counts[3])
