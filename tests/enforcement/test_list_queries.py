"""The cost recovery list loads its records' items, payments, recipients and orders for the whole
page at once (README "Layers", "One serialiser style"): a list of three runs the same SQL statements
as a list of one."""
from __future__ import annotations

from datetime import date

from tests.sql_count import list_statements

from .test_costs import ITEMS, owner
from .test_orders import issue

URL = "/api/v1/cost-recoveries"


def _statements(client, headers, expected: int) -> list[str]:
    return list_statements(client, URL, headers, expected)


def test_cost_recovery_list(client, cast, permit, town_clock):
    counts = {}
    for n in (1, 2, 3):
        town_clock.set(date(2026, 5, 4))
        order = issue(client, cast, permit)
        town_clock.set(date(2026, 5, 20))
        r = client.post(URL, headers=cast.sup, json={"order_id": order["id"], "abatement_completed_on": "2026-05-18",
                                                     "description": "Town re-installed the controls", "items": ITEMS})
        assert r.status_code == 201, r.get_json()
        record = r.get_json()
        town_clock.set(date(2026, 6, 5))
        r = client.patch(f"{URL}/{record['id']}", headers=cast.sup, json={
            "version": record["version"], "recipients": [owner("2026-05-21", "2026-05-22")]})
        assert r.status_code == 200, r.get_json()
        r = client.post(f"{URL}/{record['id']}/payments", headers=cast.sup,
                        json={"paid_on": "2026-05-25", "amount": "100.00"})
        assert r.status_code == 201, r.get_json()
        if n != 2:
            counts[n] = _statements(client, cast.app, n)
    assert len(counts[1]) == len(counts[3]), "\n".join(s[:120] for s in counts[3])
