"""The document and the server agree both ways: what the server accepts, the document allows (a client
generated from it sends nothing the server refuses unstated), and what the document forbids, the
server refuses in the one error shape (API.md "Errors")."""
from __future__ import annotations

import re

import pytest

API = "/api/v1"


@pytest.fixture
def spec(client):
    return client.get(f"{API}/openapi.json").get_json()


def _schema(spec, name):
    return spec["components"]["schemas"][name]


def _operation(spec, method, path):
    return spec["paths"][f"{API}{path}"][method]


def _assert_validation_error(response, field):
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["code"] == 422 and body["error"] == "validation_error" and body["status"] == "Unprocessable Entity"
    assert field in body["errors"], body


# --- booleans are booleans ----------------------------------------------------------------------------

DETERMINATION = {"disturbed_area_sqft": 12000, "drains_to_ms4": True, "drains_to_waters": False,
                 "luhppl_kind": None, "exemptions": [{"kind": "B5", "document_valid": True}]}


@pytest.mark.parametrize("value", [0, 1, "true", "false", "yes", "1"])
def test_a_boolean_is_true_or_false_not_a_number_or_a_word(client, factory, value):
    _, headers = factory.as_role("applicant")
    r = client.post(f"{API}/determinations", json={**DETERMINATION, "drains_to_waters": value}, headers=headers)
    _assert_validation_error(r, "drains_to_waters")
    claim = {"kind": "B5", "document_valid": value}
    r = client.post(f"{API}/determinations", json={**DETERMINATION, "exemptions": [claim]}, headers=headers)
    _assert_validation_error(r, "exemptions")
    assert "document_valid" in r.get_json()["errors"]["exemptions"]["0"]
    r = client.post(f"{API}/permits", json=factory.permit_payload(drains_to_ms4=value), headers=headers)
    _assert_validation_error(r, "drains_to_ms4")


def test_json_booleans_still_work(client, factory):
    _, headers = factory.as_role("applicant")
    r = client.post(f"{API}/determinations", json=DETERMINATION, headers=headers)
    assert r.status_code == 200 and r.get_json()["review_level"], r.get_json()


def test_a_boolean_in_a_query_string_is_still_text(client, factory):
    _, headers = factory.as_role("supervisor")
    r = client.get(f"{API}/checklist-templates?all=true", headers=headers)
    assert r.status_code == 200, r.get_json()


# --- integers are integers ------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [1.0, 1.5, "1"])
def test_a_version_is_an_integer(client, factory, version):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant)
    assert permit.version == 1
    r = client.patch(f"{API}/permits/{permit.id}", json={"description": "Changed", "version": version},
                     headers=headers)
    _assert_validation_error(r, "version")
    assert client.get(f"{API}/permits/{permit.id}", headers=headers).get_json()["description"] != "Changed"


# --- a PATCH needs a body -------------------------------------------------------------------------------

def test_a_patch_without_a_body_is_refused(client, factory, spec):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant)
    url = f"{API}/permits/{permit.id}"
    for extra in ({}, {"Content-Type": "application/json"}):
        r = client.patch(url, headers={**headers, "If-Match": "1", **extra})
        _assert_validation_error(r, "json")
    assert client.get(url, headers=headers).get_json()["version"] == 1
    r = client.patch(url, json={"description": "Changed"}, headers={**headers, "If-Match": "1"})
    assert r.status_code == 200 and r.get_json()["version"] == 2, r.get_json()


def test_every_json_patch_declares_its_body_required(spec):
    patches = [(path, item["patch"]) for path, item in spec["paths"].items() if "patch" in item]
    assert len(patches) > 10
    for path, operation in patches:
        assert operation["requestBody"]["required"] is True, path
        if "application/json" in operation["requestBody"]["content"]:
            assert "422" in operation["responses"], path


# --- money and rain: a decimal string or a JSON number in, the string out -------------------------------

def test_money_and_inches_take_a_string_or_a_number_and_say_so(client, factory, spec):
    for name, prop in (("PhaseCreate", "bond_amount"), ("BondCreate", "amount"), ("StormEventCreate", "inches")):
        declared = _schema(spec, name)["properties"][prop]
        assert {"string", "number"} <= set(declared["type"]), (name, prop, declared)
        assert re.fullmatch(declared["pattern"], "12.50") and not re.fullmatch(declared["pattern"], "12.5.0")
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant)
    r = client.post(f"{API}/permits/{permit.id}/phases", json={"name": "Clearing", "bond_amount": 1250},
                    headers=headers)
    assert r.status_code == 201 and r.get_json()["bond_amount"] == "1250.00", r.get_json()
    _, staff = factory.as_role("supervisor")
    for inches in (0.5, "0.75"):
        r = client.post(f"{API}/storm-events", json={"ended_at": "2026-05-04T14:03:00Z", "inches": inches,
                                                     "source": "Town rain gauge"}, headers=staff)
        assert r.status_code == 201 and r.get_json()["inches"] == f"{float(inches):.2f}", r.get_json()


# --- the version an edit needs: If-Match or `version`, else 428 ----------------------------------------

# The operations that refuse an edit without the version it was made against (records.expected_version).
VERSION_REQUIRED = [
    ("patch", "/permits/{permit_id}"), ("patch", "/permits/{permit_id}/exemptions/{exemption_id}"),
    ("patch", "/permits/{permit_id}/conditions/{condition_id}"), ("patch", "/permits/{permit_id}/phases/{phase_id}"),
    ("patch", "/entry-authorizations/{record_id}"), ("patch", "/inspections/{record_id}"),
    ("delete", "/inspections/{record_id}"), ("patch", "/findings/{record_id}"), ("patch", "/samples/{sample_id}"),
    ("patch", "/completion-notices/{notice_id}"), ("patch", "/final-reports/{report_id}"),
    ("patch", "/bonds/{bond_id}"), ("patch", "/orders/{order_id}"), ("patch", "/cost-recoveries/{record_id}"),
    ("patch", "/violations/{violation_id}"), ("patch", "/citations/{citation_id}"),
]


def test_every_edit_that_needs_a_version_declares_if_match_and_its_428(spec):
    for method, path in VERSION_REQUIRED:
        operation = _operation(spec, method, path)
        header = next((p for p in operation.get("parameters", []) if p["in"] == "header" and p["name"] == "If-Match"),
                      None)
        assert header is not None and header["required"] is False, (method, path)
        assert all(re.fullmatch(header["schema"]["pattern"], v) for v in ("3", '"3"', 'W/"3"', "*")), header
        assert not any(re.fullmatch(header["schema"]["pattern"], v) for v in ("+3", "3.0", "three", "")), header
        assert "409" in operation["responses"], (method, path)  # a stale version: version_conflict
        refusal = operation["responses"].get("428")
        assert refusal and refusal["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
        assert "If-Match" in refusal["description"], (method, path)
        if method == "patch":
            assert "version" in refusal["description"], (method, path)


def test_an_edit_without_its_version_is_a_documented_428(client, factory):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant)
    phase = client.post(f"{API}/permits/{permit.id}/phases", json={"name": "Clearing"}, headers=headers).get_json()
    url = f"{API}/permits/{permit.id}/phases/{phase['id']}"
    r = client.patch(url, json={"name": "Grading"}, headers=headers)  # the contract client checks 428 is documented
    body = r.get_json()
    assert r.status_code == 428 and body["error"] == "precondition_required" and body["code"] == 428, body
    for bad in ("+1", "1.0", "1_0"):
        r = client.patch(url, json={"name": "Grading"}, headers={**headers, "If-Match": bad})
        _assert_validation_error(r, "If-Match")
    r = client.patch(url, json={"name": "Grading"}, headers={**headers, "If-Match": 'W/"1"'})
    assert r.status_code == 200 and r.get_json()["name"] == "Grading", r.get_json()


# --- the limit of work is a GeoJSON Polygon or MultiPolygon -------------------------------------------------

SQUARE = [[-70.904, 41.637], [-70.903, 41.637], [-70.903, 41.638], [-70.904, 41.638], [-70.904, 41.637]]


def test_limit_of_work_is_published_as_the_geojson_the_server_takes(client, factory, spec):
    from tests.contract.test_document import _validator
    validator = _validator(spec, "Site")
    site = {"address": "1 Main Street", "location": {"lat": 41.6376, "lon": -70.9036}}
    accepted = [None, {"type": "Polygon", "coordinates": [SQUARE]},
                {"type": "MultiPolygon", "coordinates": [[SQUARE]]}]
    refused = [{}, {"type": "Point", "coordinates": [-70.9, 41.6]}, {"type": "Polygon", "coordinates": [SQUARE[:3]]},
               {"type": "Polygon", "coordinates": [SQUARE], "properties": {}},
               {"type": "Polygon", "coordinates": [[[-200, 41.0], [-70.9, 41.0], [-70.9, 41.1], [-200, 41.0]]]},
               {"type": "MultiPolygon", "coordinates": [SQUARE]}]
    _, headers = factory.as_role("applicant")
    for area in accepted:
        assert validator.is_valid({**site, "limit_of_work": area}), area
        r = client.post(f"{API}/permits", json=factory.permit_payload(site={**site, "limit_of_work": area}),
                        headers=headers)
        assert r.status_code == 201, r.get_json()
    for area in refused:
        assert not validator.is_valid({**site, "limit_of_work": area}), area
        r = client.post(f"{API}/permits", json=factory.permit_payload(site={**site, "limit_of_work": area}),
                        headers=headers)
        _assert_validation_error(r, "site")


# --- query values the server refuses, the document refuses -----------------------------------------------

def test_an_empty_before_is_refused_and_the_document_says_what_before_takes(client, factory, spec):
    _, headers = factory.as_role("inspector")
    parameter = next(p for p in _operation(spec, "get", "/inspections/due")["parameters"] if p["name"] == "before")
    pattern = parameter["schema"]["pattern"]
    for refused in ("", "tomorrow", "2026-05"):
        assert not re.fullmatch(pattern, refused)
        r = client.get(f"{API}/inspections/due", query_string={"before": refused}, headers=headers)
        _assert_validation_error(r, "before")
    for accepted in ("2026-05-04", "2026-05-04T14:03:00Z", "2026-05-04T14:03:00-04:00"):
        assert re.fullmatch(pattern, accepted)
        r = client.get(f"{API}/inspections/due", query_string={"before": accepted}, headers=headers)
        assert r.status_code == 200, r.get_json()


def test_notification_event_names_are_an_enum(client, factory, spec):
    from inspect_api.notifications.catalogue import EVENTS
    change = _schema(spec, "PreferenceChange")["properties"]["event"]
    assert set(change["enum"]) == set(EVENTS)
    listed = next(p for p in _operation(spec, "get", "/notifications")["parameters"] if p["name"] == "event")
    assert set(listed["schema"]["enum"]) == set(EVENTS)
    _, headers = factory.as_role("supervisor")
    r = client.get(f"{API}/notifications", query_string={"event": "no_such_event"}, headers=headers)
    _assert_validation_error(r, "event")
    r = client.get(f"{API}/notifications", query_string={"event": "order_issued"}, headers=headers)
    assert r.status_code == 200, r.get_json()


# --- either-or bodies: the rule the server holds is in the document ------------------------------------

def test_a_project_link_names_the_other_part_or_confirms_separate_and_the_document_says_so(client, factory, spec):
    from tests.contract.test_document import _validator
    validator = _validator(spec, "ProjectLink")
    _, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    site = {"address": "1 Mill Rd", "parcel_id": "10-300", "location": {"lat": 41.64, "lon": -70.9}}
    one, two = (client.post(f"{API}/permits", json=factory.permit_payload(site=site), headers=headers).get_json()
                for _ in range(2))
    url = f"{API}/permits/{two['id']}/project"
    for refused in ({}, {"separate": False}):
        assert not validator.is_valid(refused), refused
        _assert_validation_error(client.post(url, json=refused, headers=sup), "link_to")
    assert client.get(f"{API}/permits/{two['id']}", headers=sup).get_json()["parcel_flag"] == [one["id"]]
    assert validator.is_valid({"separate": True}) and validator.is_valid({"link_to": one["id"], "separate": False})
    r = client.post(url, json={"separate": True}, headers=sup)
    body = r.get_json()
    assert r.status_code == 200 and body["parcel_flag"] == [] and body["project_id"] is None, body
    r = client.post(url, json={"link_to": one["id"], "separate": False}, headers=sup)
    assert r.status_code == 200 and r.get_json()["project_id"] == one["id"], r.get_json()


# --- text: NUL characters, passwords ---------------------------------------------------------------------

def test_free_text_is_published_without_nul_and_refused_with_it(client, factory, spec):
    from tests.contract.test_document import _validator
    name = _schema(spec, "Register")["properties"]["name"]
    assert re.fullmatch(name["pattern"], "Pat Owner") and not re.fullmatch(name["pattern"], "Pat\x00Owner")
    assert not _validator(spec, "Register").is_valid({"email": "pat@example.org", "name": "Pat\x00",
                                                      "password": "correct horse battery staple"})
    q = next(p for p in _operation(spec, "get", "/permits")["parameters"] if p["name"] == "q")
    assert not re.fullmatch(q["schema"]["pattern"], "a\x00b")
    # Every string property that says nothing else of its characters refuses NUL.
    for component, schema in spec["components"]["schemas"].items():
        for prop, declared in schema.get("properties", {}).items():
            types = declared.get("type") if isinstance(declared.get("type"), list) else [declared.get("type")]
            if "string" in types:
                assert {"pattern", "enum", "format"} & set(declared), (component, prop, declared)
    _, headers = factory.as_role("applicant")
    r = client.post(f"{API}/permits", json=factory.permit_payload(description="a\x00b"), headers=headers)
    _assert_validation_error(r, "json")
    r = client.get(f"{API}/permits", query_string={"q": "a\x00b"}, headers=headers)
    _assert_validation_error(r, "q")


def test_the_password_rule_is_in_the_document(client, spec):
    for name, prop in (("Register", "password"), ("CreateUser", "password"), ("ChangePassword", "new_password")):
        declared = _schema(spec, name)["properties"][prop]
        assert declared["minLength"] == 12 and declared["maxLength"] == 256, (name, declared)
        assert "zxcvbn" in declared["description"] and "e-mail and name" in declared["description"], declared
    r = client.post(f"{API}/auth/register", json={"email": "pat@example.org", "name": "Pat Owner",
                                                  "password": "password1234"})
    _assert_validation_error(r, "password")


# --- photos: permit_id as a query parameter or a header; tus lengths ---------------------------------------

def test_photo_metadata_is_published_as_query_parameters_and_headers(client, factory, spec):
    from tests.photos.helpers import jpeg, put_photo
    parameters = {(p["in"], p["name"]): p for p in _operation(spec, "put", "/photos/{photo_id}")["parameters"]}
    for name, header in (("permit_id", "X-Permit-Id"), ("parent_type", "X-Parent-Type"), ("device_lat", "X-Device-Lat")):
        assert ("query", name) in parameters and ("header", header) in parameters, name
    assert re.fullmatch(parameters["header", "X-Permit-Id"]["schema"]["pattern"], "5f0c1e52-8f7e-4a47-9b1c-2d7f0a3b9c11")
    assert re.fullmatch(parameters["header", "X-Device-Lat"]["schema"]["pattern"], "-41.5")
    assert parameters["query", "permit_id"]["schema"]["format"] == "uuid"
    assert "X-Permit-Id" in parameters["query", "permit_id"]["description"]
    assert "required" in parameters["header", "X-Permit-Id"]["description"].lower()
    inspector, headers = factory.as_role("inspector")
    permit = factory.permit(status="issued")
    r = put_photo(client, headers, None, jpeg())
    _assert_validation_error(r, "permit_id")
    for via_headers in (False, True):
        r = put_photo(client, factory.headers(factory.user("supervisor")), permit.id, jpeg(), via_headers=via_headers)
        assert r.status_code == 201, r.get_json()


def test_upload_length_is_published_with_its_pattern(spec):
    parameters = {p["name"]: p for p in _operation(spec, "post", "/uploads")["parameters"]}
    pattern = parameters["Upload-Length"]["schema"]["pattern"]
    assert re.fullmatch(pattern, "1024") and not any(re.fullmatch(pattern, v) for v in ("", "-1", "1e3", "1.5"))
