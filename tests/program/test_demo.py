"""The demo shows the program: yesterday's rain puts every active assigned site on the inspector's list."""
from __future__ import annotations

from inspect_api import demo
from inspect_api.entry.demo_data import field_sites
from inspect_api.program import services


def test_demo_storm_obliges_every_active_assigned_site_and_the_request_is_listed(app):
    ctx = demo.build_demo_data({"applicant": "pw-applicant-1", "inspector": "pw-inspector-1", "supervisor": "pw-supervisor-1",
                                "admin": "pw-admin-demo-1"})
    items, total = services.list_due(ctx.users["inspector"], {"assigned_to": "me", "limit": 500, "offset": 0})
    sites = {permit.id for _key, permit in field_sites(ctx)}
    assert sites and {i["permit_id"] for i in items if i["kind"] == "storm_event"} == sites
    assert total == len(items)
    assert any(i["source"] == "request" and i["kind"] == "follow_up" for i in items)
