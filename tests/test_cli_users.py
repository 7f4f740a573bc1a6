"""`inspect-api users create` as the README shows it, run without a terminal (cron, a deploy script)."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from inspect_api.auth.models import User
from inspect_api.extensions import db

PASSWORD = "tidal marsh heron culvert"


@pytest.mark.parametrize("address", ["postmaster@[10.0.0.5]", "root@localhost", "clerk@10.0.0.55"])
def test_users_create_refuses_an_address_without_a_named_domain(app, address):
    from inspect_api.cli import users_create
    result = app.test_cli_runner().invoke(users_create, [address, "--role", "supervisor", "--name", "SA Staff",
                                                         "--password", PASSWORD])
    assert result.exit_code != 0 and "domain" in result.output, result.output
    assert db.session.scalars(select(User).where(User.email == address)).first() is None
