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


def _readme_users_create() -> tuple[dict[str, str], list[str]]:
    """The `users create` command line the README shows: its environment assignments and arguments."""
    import shlex
    from pathlib import Path
    readme = Path(__file__).resolve().parents[1] / "README.md"
    lines = [line for line in readme.read_text(encoding="utf-8").splitlines()
             if "inspect-api users create" in line and not line.startswith("`")]
    assert len(lines) == 1, lines
    words = shlex.split(lines[0])
    env = {}
    while "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0].endswith("inspect-api") and words[1:3] == ["users", "create"], words
    return env, words[3:]


def test_the_readme_users_create_command_runs_as_written_without_a_terminal(app):
    from inspect_api.cli import users_create
    env, args = _readme_users_create()
    result = app.test_cli_runner().invoke(users_create, args, env=env)   # stdin is no terminal here
    assert result.exit_code == 0, result.output
    user = db.session.scalars(select(User).where(User.email == args[0])).one()
    assert user.role == "supervisor" and user.name == "SA Staff"
    assert "password" not in " ".join(args), "the README keeps the password off the command line"


def test_users_create_takes_the_password_from_the_environment_stdin_or_the_option(app):
    from inspect_api.auth.passwords import verify_password
    from inspect_api.cli import users_create
    runner = app.test_cli_runner()
    base = ["--role", "inspector", "--name", "Field Inspector"]
    r = runner.invoke(users_create, ["a@town.example", *base], env={"INSPECT_API_PASSWORD": PASSWORD})
    assert r.exit_code == 0, r.output
    r = runner.invoke(users_create, ["b@town.example", *base], input=PASSWORD + "\n")
    assert r.exit_code == 0, r.output
    r = runner.invoke(users_create, ["c@town.example", *base, "--password", PASSWORD])
    assert r.exit_code == 0, r.output
    for address in ("a@town.example", "b@town.example", "c@town.example"):
        user = db.session.scalars(select(User).where(User.email == address)).one()
        assert verify_password(user.password_hash, PASSWORD)
    # Nothing given and no terminal to ask on: a clear refusal, no account.
    r = runner.invoke(users_create, ["d@town.example", *base], input="")
    assert r.exit_code != 0 and "INSPECT_API_PASSWORD" in r.output, r.output
    assert db.session.scalars(select(User).where(User.email == "d@town.example")).first() is None


def test_the_readme_installs_the_redis_client_wherever_it_names_redis_storage():
    """A `redis://` limiter storage needs the Redis client, which only the `redis` extra installs."""
    import tomllib
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    extras = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(dep.startswith("redis") for dep in extras["redis"])
    readme = (root / "README.md").read_text(encoding="utf-8")
    paragraphs = [p for p in readme.split("\n\n") if "redis://" in p or "Redis so" in p]
    assert paragraphs
    for paragraph in paragraphs:
        assert "'.[redis]'" in paragraph, paragraph[:200]
