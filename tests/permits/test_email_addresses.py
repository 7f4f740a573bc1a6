"""Every e-mail address the API takes (owner, party, account) is one mail can be sent to on the
internet: a named domain with a dot, never an address literal such as `postmaster@[10.0.0.5]` or a
bare host name; such an address is refused (422) naming the field, before anything is stored or mailed."""
import pytest

from inspect_api.extensions import db
from inspect_api.permits.models import Permit

from .conftest import assert_error

REFUSED = ["postmaster@[10.0.0.5]", "postmaster@10.0.0.55", "postmaster@[IPv6:2001:db8::1]", "root@localhost", "clerk@fairhaven",
           "a@[127.0.0.1]"]
ACCEPTED = ["owner@example.org", "pat.o'neil+permits@mail.fairhaven-ma.gov", "nguyen@bưudiện.vn"]


@pytest.mark.parametrize("address", REFUSED)
def test_owner_email_without_a_named_domain_is_refused(client, factory, address):
    _, headers = factory.as_role("applicant")
    owner = {"name": "Pat Owner", "email": address, "phone": "508-555-0100"}
    r = client.post("/api/v1/permits", json=factory.permit_payload(owner=owner), headers=headers)
    body = assert_error(r, 422, "validation_error", field="owner")
    assert "email" in body["errors"]["owner"], body
    assert db.session.query(Permit).count() == 0


@pytest.mark.parametrize("address", ACCEPTED)
def test_owner_email_at_a_named_domain_is_taken(client, factory, address):
    _, headers = factory.as_role("applicant")
    owner = {"name": "Pat Owner", "email": address, "phone": "508-555-0100"}
    r = client.post("/api/v1/permits", json=factory.permit_payload(owner=owner), headers=headers)
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize("address", REFUSED)
def test_party_email_without_a_named_domain_is_refused(client, factory, address):
    user, _ = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = factory.permit(user, status="issued")
    r = client.post(f"/api/v1/permits/{permit.id}/parties", json={"role": "contractor", "name": "Dig Co",
                                                                   "email": address}, headers=sup)
    assert_error(r, 422, "validation_error", field="email")
    r = client.post(f"/api/v1/permits/{permit.id}/parties", json={"role": "contractor", "name": "Dig Co",
                                                                   "email": "office@digco.example"}, headers=sup)
    assert r.status_code == 201, r.get_json()
    party = r.get_json()
    r = client.patch(f"/api/v1/permits/{permit.id}/parties/{party['id']}",
                     json={"email": address, "version": party["version"]}, headers=sup)
    assert_error(r, 422, "validation_error", field="email")


@pytest.mark.parametrize("address", REFUSED)
def test_account_email_without_a_named_domain_is_refused(client, factory, address):
    r = client.post("/api/v1/auth/register", json={"email": address, "password": "several uncommon words here",
                                                    "name": "New One"})
    assert_error(r, 422, "validation_error", field="email")
    _, admin = factory.as_role("admin")
    r = client.post("/api/v1/users", json={"email": address, "password": "several uncommon words here",
                                           "name": "New One", "role": "inspector"}, headers=admin)
    assert_error(r, 422, "validation_error", field="email")


def test_the_shared_field_is_the_only_email_field():
    """One rule for every address: each schema that takes one uses the shared field."""
    from marshmallow import fields

    from inspect_api.auth.schemas import CreateUserSchema, RegisterSchema
    from inspect_api.permits.schemas import OwnerSchema, PartyInSchema, PartyUpdateSchema
    from inspect_api.schemas import EmailAddress
    for schema in (CreateUserSchema, RegisterSchema, OwnerSchema, PartyInSchema, PartyUpdateSchema):
        field = schema().fields["email"]
        assert isinstance(field, EmailAddress), schema
        assert type(field) is not fields.Email
