"""A client generated from the served document, with no hand edits, drives the app over HTTP.

openapi-python-client 0.29 (what a town's IT or a vendor would run) generates a package from
/api/v1/openapi.json; the test imports it and, against the app on a live server, signs in, files an
application, lists permits and orders, reads a citation and pushes a sync mutation, every answer
parsed into the generated models. The generator may only warn about bodies it cannot type (PDFs,
images, CSV, tus chunks); a dropped model or an unnamed operation fails the test.
"""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
import threading
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from werkzeug.serving import make_server

from inspect_api import clock
from inspect_api.extensions import db

from ..factories import PASSWORD

pytest.importorskip("openapi_python_client",
                    reason="openapi-python-client (the `test` extra) is not installed: no client to generate")

API = "/api/v1"
PACKAGE = "inspect_generated_client"


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def _warnings(output: str) -> list[str]:
    """The generator's warnings, one per operation it had trouble with."""
    return [block.strip() for block in output.split("WARNING parsing ")[1:]]


@pytest.fixture
def generated(client, tmp_path):
    """The package openapi-python-client generates from the served document, imported, and its output."""
    (tmp_path / "openapi.json").write_text(json.dumps(client.get(f"{API}/openapi.json").get_json()))
    (tmp_path / "config.yml").write_text("post_hooks: []\n")  # no formatter run: not needed to import it
    result = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(tmp_path / "openapi.json"),
         "--output-path", str(tmp_path / PACKAGE), "--meta", "none", "--config", str(tmp_path / "config.yml")],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE), result.stdout + result.stderr
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture
def live_url(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


def _enforcement(client, factory, permit_id: str) -> dict[str, str]:
    """An order and a citation (on a violation) on the permit, issued by a supervisor."""
    _, headers = factory.as_role("supervisor")
    today = clock.today()

    def post(path, body):
        response = client.post(f"{API}{path}", json=body, headers=headers)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    order = post("/orders", {"permit_id": permit_id, "kinds": ["controls"], "deadline": str(today + timedelta(days=10)),
                             "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}]})
    violation = post("/violations", {"permit_id": permit_id, "provision_kind": "bylaw", "provision": "§194-21(C)",
                                     "first_observed_on": str(today - timedelta(days=3))})
    citation = post("/citations", {"violation_id": violation, "violator": {"name": "Acme Site Works LLC"},
                                   "offense_on": str(today - timedelta(days=2)), "bylaw_section": "194-21(C)"})
    return {"order": order, "citation": citation}


def test_generator_drops_no_model_and_names_every_operation(generated):
    _, output = generated
    assert "Unable to process schema" not in output and "Failure to process schema" not in output, output
    assert "Could not find reference" not in output, output
    assert "operationid" not in output.lower().replace("_", ""), output
    # What it may still skip: bodies of a type it cannot model (PDF, images, CSV, tus chunks).
    assert [w for w in _warnings(output) if "Unsupported content" not in w] == []


def test_a_generated_client_does_the_flow(generated, live_url, client, factory):
    package, _ = generated
    models = importlib.import_module(f"{PACKAGE}.models")

    def api(tag, name):
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{name}")

    applicant, inspector = factory.user("applicant"), factory.user("inspector")
    supervisor = factory.user("supervisor")
    permit = factory.permit(applicant, status="active")
    factory.assign(permit, inspector)
    ids = _enforcement(client, factory, permit.id)
    emails = {"applicant": applicant.email, "inspector": inspector.email, "supervisor": supervisor.email}
    permit_id = permit.id
    # Done with the rows: the test's own session must hold no transaction while the server writes.
    db.session.commit()

    anonymous = package.Client(base_url=live_url, raise_on_unexpected_status=True)

    def signed_in(role, **extra):
        tokens = api("auth", "login").sync(client=anonymous, body=models.Login(email=emails[role], password=PASSWORD,
                                                                                **extra))
        assert isinstance(tokens, models.TokenPair) and tokens.user.email == emails[role]
        return package.AuthenticatedClient(base_url=live_url, token=tokens.access_token,
                                           raise_on_unexpected_status=True)

    as_applicant = signed_in("applicant")
    created = api("permits", "create_permit").sync(
        client=as_applicant, body=models.PermitCreate.from_dict(factory.permit_payload(description="Garage")))
    assert isinstance(created, models.Permit)
    assert created.status == models.PermitStatus.DRAFT and created.description == "Garage" and created.version == 1

    permits = api("permits", "list_permits").sync(client=as_applicant)
    assert all(isinstance(p, models.Permit) for p in permits)
    assert {p.id for p in permits} == {permit_id, created.id}

    as_supervisor = signed_in("supervisor")
    [order] = api("enforcement", "list_orders").sync(client=as_supervisor)
    assert isinstance(order, models.Order)
    assert order.id == ids["order"] and order.status == models.OrderStatus.OPEN and order.permit_id == permit_id

    citation = api("enforcement", "get_citation").sync(client=as_supervisor, citation_id=ids["citation"])
    assert isinstance(citation, models.Citation)
    assert citation.id == ids["citation"] and citation.bylaw_section == "194-21(C)"
    assert citation.violator["name"] == "Acme Site Works LLC"

    device_id = f"tablet-{uuid.uuid4().hex[:8]}"
    as_inspector = signed_in("inspector", device_id=device_id)
    now, entry_id, mutation_id = datetime.now(timezone.utc), str(uuid.uuid4()), str(uuid.uuid4())
    pushed = api("sync", "push_sync").sync(client=as_inspector, body=models.Push.from_dict({
        "device_id": device_id, "mutations": [{
            "mutation_id": mutation_id, "entity": "entry_authorization", "id": entry_id, "op": "upsert",
            "base_version": None, "data": {
                "permit_id": permit_id, "basis": "permit_condition", "granted_by_name": "Condition 12",
                "granted_by_relation": "permit condition", "scope": ["examination", "sampling"],
                "valid_from": iso(now - timedelta(days=1)), "valid_to": iso(now + timedelta(days=30))}}]}))
    assert isinstance(pushed, models.PushResult)
    [result] = pushed.results
    assert isinstance(result, models.MutationResult)
    assert result.mutation_id == mutation_id and result.status == models.MutationResultStatus.APPLIED
    assert result.version == 1
