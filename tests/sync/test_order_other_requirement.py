"""R-O1 through sync: an order pushed from the office's device may hold another requirement stated in
words (kind `other`), and one whose `other` has no words is rejected as the REST API rejects it."""
from __future__ import annotations

import uuid
from datetime import timedelta

from inspect_api import clock

from .conftest import API, create


def _push_order(site, requirements, kinds):
    office = site.tablet(site.supervisor)
    today = clock.today()
    order_id = str(uuid.uuid4())
    result = office.push([create("order", {
        "permit_id": site.permit.id, "kinds": kinds, "requirements": requirements,
        "issued_on": today.isoformat(), "deadline": (today + timedelta(days=7)).isoformat()}, order_id)])[0]
    return order_id, result


def test_an_order_with_another_requirement_in_words_syncs(site, client):
    words = "Remove the loam stockpile from the wetland buffer"
    order_id, result = _push_order(site, [{"kind": "other", "text": words}], ["other"])
    assert result["status"] == "applied", result
    r = client.get(f"{API}/orders/{order_id}", headers=site.headers(site.supervisor))
    assert r.status_code == 200
    assert (r.get_json()["kinds"], r.get_json()["requirements"]) == (["other"], [{"kind": "other", "text": words}])


def test_an_order_of_kind_other_without_its_words_is_rejected(site, client):
    order_id, result = _push_order(site, [{"kind": "controls", "text": "Fix fence"}], ["controls", "other"])
    assert result["status"] == "rejected", result
    assert result["errors"] == {"requirements": ["Kind other needs the requirement stated in words."]}
    assert client.get(f"{API}/orders/{order_id}", headers=site.headers(site.supervisor)).status_code == 404
