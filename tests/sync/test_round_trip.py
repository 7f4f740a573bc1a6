"""Pull, edit, push round-trips (API.md "Sync"): a device that sends a record back in exactly the
shape pull (or GET) gave it, with one field edited, has the edit applied. The record's read-only
fields (those of its answer that its update does not take) equal to the stored values are ignored;
a different one is refused naming it: `rejected` / `read_only` on push, 422 `read_only` on PATCH.

Every entity devices may edit is covered: the list comes from the sync declarations, and an entity
added there without a recipe here fails `test_every_editable_entity_has_a_recipe`.
"""
from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable

import pytest

from inspect_api import clock
from inspect_api.sync.adapters import declarations
from inspect_api.sync.rules import BOOKKEEPING

from ..photos.helpers import jpeg, put_photo
from .conftest import API, create, edit, entry_data, inspection_data, iso, T0

EDITABLE = sorted(a.entity for a in declarations() if a.update is not None)


@dataclass
class Recipe:
    path: str                       # the REST item path, with {id}
    who: str                        # the role that edits it: site.<who>
    make: Callable[[Any], str]      # makes one record, returns its id
    field: str                      # an editable field, and two values for it
    values: tuple[Any, Any]
    read_only: str                  # a read-only field of its answer


def _post(site, who, path, body) -> dict:
    response = site.client.post(f"{API}{path}", json=body, headers=site.headers(getattr(site, who)))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _permit(site) -> str:
    return site.factory.permit(applicant=site.applicant).id  # a draft its applicant may edit


def _entry(site) -> str:
    return site.new_entry()


def _inspection(site) -> str:
    record_id = str(uuid.uuid4())
    result = site.tablet().push([create("inspection", inspection_data(site.permit.id, site.new_entry()),
                                        record_id)])[0]
    assert result["status"] == "applied", result
    return record_id


def _finding(site) -> str:
    return _post(site, "inspector", "/findings", {
        "permit_id": site.permit.id, "description": "Silt fence down along the east line",
        "observed_on": clock.today().isoformat()})["id"]


def _sample(site) -> str:
    entry_id = site.new_entry(valid_from=iso(clock.now() - timedelta(days=1)),
                              valid_to=iso(clock.now() + timedelta(days=30)))
    return _post(site, "inspector", "/samples", {
        "permit_id": site.permit.id, "entry_authorization_id": entry_id,
        "sampled_at": iso(clock.now() - timedelta(hours=1)), "sampler": "Dana Field", "outfall_id": "OF-1",
        "sample_type": "grab", "analysis": "field", "parameters": [{"name": "ph", "value": 7.1, "unit": "SU"}]})["id"]


def _bond(site) -> str:
    return _post(site, "supervisor", "/bonds", {"permit_id": site.permit.id, "form": "surety_bond",
                                                "amount": "5000.00"})["id"]


def _order(site) -> str:
    return _post(site, "supervisor", "/orders", {
        "permit_id": site.permit.id, "kinds": ["controls"],
        "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}],
        "deadline": (clock.today() + timedelta(days=10)).isoformat()})["id"]


def _completion_notice(site) -> str:
    permit = site.factory.permit(applicant=site.applicant, status="work_complete", disturbed_area_sqft=12000)
    return _post(site, "applicant", "/completion-notices", {
        "permit_id": permit.id, "statement": "All permanent controls installed.",
        "photo_ids": [str(uuid.uuid4())]})["id"]


def _photo_annotation(site) -> str:
    uploaded = put_photo(site.client, site.headers(site.inspector), site.permit.id, jpeg((64, 48)))
    assert uploaded.status_code == 201, uploaded.get_json()
    return _post(site, "inspector", "/photo-annotations", {"photo_id": uploaded.get_json()["id"], "shapes": [
        {"kind": "arrow", "points": [[0.1, 0.1], [0.5, 0.5]], "colour": "#ff2a1a"}]})["id"]


ANNOTATION_SHAPES = ([{"kind": "circle", "points": [[0.2, 0.2], [0.4, 0.6]], "colour": "#ffe600"}],
                     [{"kind": "text", "points": [[0.3, 0.3]], "text": "Plume", "colour": "#ffffff"}])

RECIPES = {
    "permit": Recipe("/permits/{id}", "applicant", _permit, "description", ("Regrading", "Regrading, phase 2"),
                     "applicant_id"),
    "entry_authorization": Recipe("/entry-authorizations/{id}", "inspector", _entry, "granted_by_name",
                                  ("Pat Owner Jr.", "Pat Owner III"), "permit_id"),
    "inspection": Recipe("/inspections/{id}", "inspector", _inspection, "notes", ("Gate locked", "Gate open"),
                         "permit_id"),
    "finding": Recipe("/findings/{id}", "supervisor", _finding, "required_action",
                      ("Re-trench the fence", "Replace the fence"), "description"),
    "sample": Recipe("/samples/{id}", "inspector", _sample, "sampler", ("Dana Field Jr.", "Lee Grab"), "permit_id"),
    "bond": Recipe("/bonds/{id}", "supervisor", _bond, "notes", ("Held in the safe", "Moved to the vault"),
                   "permit_id"),
    "order": Recipe("/orders/{id}", "supervisor", _order, "referral_note", ("Sent to counsel", "Counsel replied"),
                    "permit_id"),
    "completion_notice": Recipe("/completion-notices/{id}", "applicant", _completion_notice, "statement",
                                ("All controls in; basin seeded.", "All controls in; basin mowed."), "permit_id"),
    "photo_annotation": Recipe("/photo-annotations/{id}", "inspector", _photo_annotation, "shapes", ANNOTATION_SHAPES,
                               "photo_id"),
}


def test_every_editable_entity_has_a_recipe():
    assert sorted(RECIPES) == EDITABLE


def _changed(value: Any) -> Any:
    """Another value of the same kind."""
    if isinstance(value, str):
        try:
            uuid.UUID(value)
            return str(uuid.uuid4())
        except ValueError:
            return value + " (changed)"
    if value is None:
        return "changed"
    if isinstance(value, list):
        return [*value, str(uuid.uuid4())]
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    return "changed"


def _pulled(site, tablet, entity: str, record_id: str) -> dict:
    tablet.sync_down()
    change = tablet.held[(entity, record_id)]
    return copy.deepcopy(change["data"])


def _get(site, recipe: Recipe, record_id: str, user) -> dict:
    response = site.client.get(f"{API}{recipe.path.format(id=record_id)}", headers=site.headers(user))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.mark.parametrize("entity", EDITABLE)
def test_push_back_what_pull_gave_with_one_field_edited(site, entity):
    recipe = RECIPES[entity]
    user = getattr(site, recipe.who)
    record_id = recipe.make(site)
    tablet = site.tablet(user)
    data = _pulled(site, tablet, entity, record_id)
    assert data == _get(site, recipe, record_id, user)  # pull gives the GET shape
    data[recipe.field] = recipe.values[0]

    result = tablet.push([edit(entity, record_id, data["version"], data)])[0]

    assert result["status"] == "applied", result
    assert result["version"] == data["version"] + 1
    assert _get(site, recipe, record_id, user)[recipe.field] == recipe.values[0]


@pytest.mark.parametrize("entity", EDITABLE)
def test_a_changed_read_only_field_is_rejected_naming_it(site, entity):
    recipe = RECIPES[entity]
    user = getattr(site, recipe.who)
    record_id = recipe.make(site)
    tablet = site.tablet(user)
    data = _pulled(site, tablet, entity, record_id)
    before = _get(site, recipe, record_id, user)
    data[recipe.field] = recipe.values[0]
    data[recipe.read_only] = _changed(data[recipe.read_only])

    result = tablet.push([edit(entity, record_id, data["version"], data)])[0]

    assert result["status"] == "rejected", result
    assert result["error"] == "read_only"
    assert list(result["errors"]) == [recipe.read_only]
    assert recipe.read_only in result["message"]
    assert _get(site, recipe, record_id, user) == before  # nothing of the edit was kept


@pytest.mark.parametrize("entity", EDITABLE)
def test_patch_with_the_get_body_and_one_field_edited(site, entity):
    recipe = RECIPES[entity]
    user = getattr(site, recipe.who)
    record_id = recipe.make(site)
    url = f"{API}{recipe.path.format(id=record_id)}"
    body = _get(site, recipe, record_id, user)
    body[recipe.field] = recipe.values[1]

    response = site.client.patch(url, json=body, headers=site.headers(user))

    assert response.status_code == 200, response.get_json()
    assert response.get_json()[recipe.field] == recipe.values[1]
    assert response.get_json()["version"] == body["version"] + 1

    body = response.get_json()
    body[recipe.field] = recipe.values[0]
    body[recipe.read_only] = _changed(body[recipe.read_only])
    refused = site.client.patch(url, json=body, headers=site.headers(user))
    assert refused.status_code == 422, refused.get_json()
    error = refused.get_json()
    assert error["error"] == "read_only" and list(error["errors"]) == [recipe.read_only]
    assert _get(site, recipe, record_id, user)[recipe.field] == recipe.values[1]


@pytest.mark.parametrize("entity", EDITABLE)
def test_a_field_the_record_does_not_have_is_still_unknown(site, entity):
    recipe = RECIPES[entity]
    user = getattr(site, recipe.who)
    record_id = recipe.make(site)
    body = _get(site, recipe, record_id, user)
    body["no_such_field"] = 1

    response = site.client.patch(f"{API}{recipe.path.format(id=record_id)}", json=body, headers=site.headers(user))
    assert response.status_code == 422
    assert response.get_json()["error"] == "validation_error"
    assert response.get_json()["errors"] == {"no_such_field": ["Unknown field."]}

    result = site.tablet(user).push([edit(entity, record_id, body["version"], body)])[0]
    assert result["status"] == "rejected" and result["error"] == "validation_error", result
    assert result["errors"] == {"no_such_field": ["Unknown field."]}


@pytest.mark.parametrize("entity", EDITABLE)
def test_a_pulled_record_pushed_again_as_a_create_is_a_duplicate(site, entity):
    """A device reset after pulling sends what it holds as creates (no base version): the record
    exists as sent, so the answer is `duplicate` and nothing changes; read-only fields compared."""
    recipe = RECIPES[entity]
    user = getattr(site, recipe.who)
    record_id = recipe.make(site)
    tablet = site.tablet(user)
    data = _pulled(site, tablet, entity, record_id)
    before = _get(site, recipe, record_id, user)

    result = tablet.push([create(entity, data, record_id)])[0]
    assert result["status"] == "duplicate", result
    assert _get(site, recipe, record_id, user) == before

    from inspect_api.sync.sent_back import editable_keys
    adapter = next(a for a in declarations() if a.entity == entity)
    takes = editable_keys(adapter.create_schema)
    field = next(k for k in sorted(data) if k not in takes and k not in BOOKKEEPING and k not in adapter.clock_fields
                 and (data[k] is None or isinstance(data[k], (str, bool, int, list))))
    data[field] = _changed(data[field])
    result = tablet.push([create(entity, data, record_id)])[0]
    assert result["status"] == "rejected" and result["error"] == "read_only", (field, result)
    assert list(result["errors"]) == [field]


def test_taking_the_devices_version_applies_only_what_it_may_write(site):
    """A stale record sent back whole is a conflict; its device copy differs from the server in
    read-only fields too (the order's status moved on). Taking the device's version applies the
    editable fields it changed, never the read-only ones it held."""
    order_id = _order(site)
    tablet = site.tablet(site.supervisor)
    data = _pulled(site, tablet, "order", order_id)
    moved = site.client.post(f"{API}/orders/{order_id}/status", json={"to": "complied", "version": data["version"]},
                             headers=site.headers(site.supervisor))
    assert moved.status_code == 200, moved.get_json()
    data["referral_note"] = "Sent to counsel"

    result = tablet.push([edit("order", order_id, data["version"], data)])[0]
    assert result["status"] == "conflict", result
    conflict = site.client.get(f"{API}/sync/conflicts/{result['conflict_id']}", headers=site.headers(site.supervisor))
    assert {"referral_note", "status"} <= set(conflict.get_json()["fields"])

    resolved = site.client.post(f"{API}/sync/conflicts/{result['conflict_id']}/resolve",
                                json={"resolution": "take_device"}, headers=site.headers(site.supervisor))
    assert resolved.status_code == 200, resolved.get_json()
    record = resolved.get_json()["record"]
    assert (record["referral_note"], record["status"]) == ("Sent to counsel", "complied")
