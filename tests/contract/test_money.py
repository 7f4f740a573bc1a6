"""THE Money field (inspect_api.schemas.Money) on every path that takes money: two decimals out, at most
two in, never rounded; amounts the database cannot hold are a 422, not a crash; one published shape."""
from __future__ import annotations

import re
import uuid

import pytest

from decimal import Decimal

API = "/api/v1"
# Each of these raised decimal.InvalidOperation (a 500) or was rounded before the one Money field.
BAD = ["1E+30", "1" + "0" * 28, 1e30, "NaN", "Infinity", "-Infinity", "12.345", 12.345, "1_000.00", "1e3", " ", [], {}]


@pytest.fixture
def sup(factory):
    return factory.as_role("supervisor")[1]


@pytest.mark.parametrize("amount", BAD)
def test_fine_schedule_refuses_amounts_it_cannot_hold(client, sup, amount):
    body = {"first_offense": "50.00", "second_offense": "150.00", "third_and_subsequent": amount}
    r = client.put(f"{API}/fine-schedule", json=body, headers=sup)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["error"] == "validation_error" and list(r.get_json()["errors"]) == ["third_and_subsequent"]


@pytest.mark.parametrize("amount", BAD)
def test_bond_refuses_amounts_it_cannot_hold(client, sup, factory, amount):
    permit = factory.permit(status="issued", disturbed_area_sqft=30000)
    r = client.post(f"{API}/bonds", json={"permit_id": permit.id, "form": "cash", "amount": amount}, headers=sup)
    assert r.status_code == 422, r.get_json()
    assert "amount" in r.get_json()["errors"]


def test_phase_bond_amount_is_money_not_rounded(client, factory):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant)
    url = f"{API}/permits/{permit.id}/phases"
    r = client.post(url, json={"name": "Clearing", "bond_amount": "12.345"}, headers=headers)
    assert r.status_code == 422 and r.get_json()["errors"] == {"bond_amount": ["At most two decimal places."]}
    for amount in ("1E+30", "1" + "0" * 28, "NaN"):
        r = client.post(url, json={"name": "Clearing", "bond_amount": amount}, headers=headers)
        assert r.status_code == 422 and "bond_amount" in r.get_json()["errors"], r.get_json()
    r = client.post(url, json={"name": "Clearing", "bond_amount": "999999999999.99"}, headers=headers)
    assert r.status_code == 201 and r.get_json()["bond_amount"] == "999999999999.99"
    r = client.post(url, json={"name": "Grading", "bond_amount": 12.5}, headers=headers)
    assert r.status_code == 201 and r.get_json()["bond_amount"] == "12.50"


def test_cost_recovery_payment_refuses_amounts_it_cannot_hold(client, factory):
    r = client.post(f"{API}/cost-recoveries/{uuid.uuid4()}/payments", json={"paid_on": "2026-07-14", "amount": "1E+30"},
                    headers=factory.as_role("supervisor")[1])
    # Validation comes before the lookup: the amount alone is refused, whatever the record.
    assert r.status_code == 422 and "amount" in r.get_json()["errors"], r.get_json()


def test_sync_push_bond_with_a_bad_amount_is_rejected_not_an_internal_error(client, factory):
    supervisor = factory.user("supervisor")
    permit = factory.permit(status="issued", disturbed_area_sqft=30000)
    headers = factory.headers(supervisor, device_id="office-1")
    for amount in ("1E+30", "12.345"):
        mutation = {"mutation_id": str(uuid.uuid4()), "entity": "bond", "id": str(uuid.uuid4()), "op": "upsert",
                    "base_version": None, "data": {"permit_id": permit.id, "form": "cash", "amount": amount}}
        r = client.post(f"{API}/sync/push", json={"device_id": "office-1", "mutations": [mutation]}, headers=headers)
        assert r.status_code == 200, r.get_json()
        result = r.get_json()["results"][0]
        assert result["status"] == "rejected" and result["error"] == "validation_error", result
        assert "amount" in result["errors"]


def test_every_money_field_in_the_document_is_the_one_money_type(client):
    from inspect_api.schemas import money_pattern
    spec = client.get(f"{API}/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    phase = schemas["PermitPhase"]["properties"]["bond_amount"]
    # In: the decimal string (the pattern) or a JSON number (minimum, maximum); out: always the string.
    assert phase["type"] == ["string", "number", "null"] and phase["pattern"] == money_pattern(Decimal("0"), Decimal("999999999999.99"))
    assert re.fullmatch(phase["pattern"], "999999999999.99") and not re.fullmatch(phase["pattern"], "1000000000000.00")
    schedule = schemas["FineSchedule"]["properties"]["third_and_subsequent"]
    assert re.fullmatch(schedule["pattern"], "300.00") and not re.fullmatch(schedule["pattern"], "300.01")
    assert not re.fullmatch(schedule["pattern"], "0.00") and re.fullmatch(schedule["pattern"], "0.01")
    decimals = [(name, prop) for name, s in schemas.items() for prop, p in s.get("properties", {}).items()
                if p.get("format") == "decimal" or "amount" in prop or prop.endswith("_usd")]
    assert decimals
    for name, prop in decimals:
        p = schemas[name]["properties"][prop]
        if (name, prop) == ("StormEvent", "inches"):  # an answer only: always the decimal string
            assert p["type"] == "string" and p["pattern"].startswith("^"), p
            continue
        assert p.get("type") in (["string", "number"], ["string", "number", "null"]), (name, prop, p)
        assert p.get("pattern", "").startswith("^"), (name, prop, p)
        assert p["minimum"] >= 0 and p["maximum"] > p["minimum"], (name, prop, p)


def test_money_field_round_trip_and_bounds():
    from inspect_api.schemas import Money
    field = Money(minimum="0.01", maximum="300.00")
    assert field.deserialize("300") == Decimal("300.00") and field.deserialize(0.1) == Decimal("0.10")
    assert field.serialize("x", {"x": Decimal("5")}) == "5.00"
    for bad in ("300.01", "0.00", "-1.00", "0.001"):
        with pytest.raises(Exception):
            field.deserialize(bad)
