"""Schemathesis over every operation of /api/v1/openapi.json, as each role, in-process through WSGI.

Cases are generated from the published document alone (positive data: what a client written from the
document would send), half of them with path parameters left to the generator (mostly records that do
not exist, or that the role may not see) and half naming real records of the authorization world
(tests/authorization_world.py). Every answer must pass the five checks below. Bounded for the suite:
SCHEMATHESIS_MAX_EXAMPLES cases per operation, role and half (default 3), a derandomized seed, no shrinking
and no example database, so a run is repeatable and takes about the same time everywhere.

Marked `schemathesis`: `-m "not schemathesis"` leaves it out (the PostgreSQL run of scripts/test.sh does).
The figures (operations, cases, failures per role) are printed at the end of each role's run (`-s`);
SCHEMATHESIS_TRACE=1 prints every case's operation, status and the start of its body.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, Verbosity, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402
from schemathesis.specs.openapi.checks import (content_type_conformance, response_headers_conformance,  # noqa: E402
                                               response_schema_conformance, status_code_conformance)

from sqlalchemy import delete  # noqa: E402

from inspect_api.auth.models import LoginThrottle  # noqa: E402
from inspect_api.extensions import db, limiter  # noqa: E402

from ..authorization_sweep_support import id_kind, sweep, sweep_app  # noqa: E402,F401  (fixtures)
from ..factories import PASSWORD  # noqa: E402

pytestmark = pytest.mark.schemathesis
# tus PATCH bodies (tus 1.0 core): raw bytes, sent like any octet stream
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "3"))
# positive (the suite's): data the document allows; negative: data it forbids, for a longer look
MODE = schemathesis.GenerationMode(os.environ.get("SCHEMATHESIS_MODE", "positive"))
ROLES = {"applicant": ("b", "b"), "inspector": ("i", "inspector"), "supervisor": ("s", "supervisor"),
         "admin": ("admin", "admin")}
API = "/api/v1"
PARAM = re.compile(r"\{([^}]+)\}")


@dataclass
class Tally:
    operations: int = 0
    cases: int = 0
    failures: dict[tuple[str, str], str] = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)


def _known_ids(path: str, world) -> dict[str, str]:
    """Path parameters naming the world's records (applicant B's), where the sweep's table knows them."""
    rule = PARAM.sub(lambda m: f"<{m.group(1)}>", path[len(API):])
    found = {}
    for name in PARAM.findall(path):
        kind = id_kind(rule, name)
        if kind is not None and kind in world.ids:
            found[name] = str(world.ids[kind])
    return found


def _exercise(operation, strategy, headers: dict[str, str], tally: Tally) -> None:
    @settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet)
    @given(case=strategy)
    def run(case):
        tally.cases += 1
        try:
            response = case.call_and_validate(headers=headers, checks=CHECKS)
            tally.statuses[response.status_code // 100] += 1
            if os.environ.get("SCHEMATHESIS_TRACE"):
                print(operation.label, response.status_code, response.content[:160])
        except FailureGroup as group:  # recorded, not raised: nothing to shrink, every operation still runs
            for failure in group.exceptions:
                tally.failures.setdefault((operation.label, failure.title), str(failure)[:600])

    try:
        run()
    except Unsatisfiable:  # negative mode: nothing the document forbids can be sent to this operation
        pass


class Session:
    """The role's token, renewed when an operation ended it (a generated logout, a supervisor revoking
    the account's sessions, an admin deactivating it): every operation runs signed in."""

    def __init__(self, sweep, who: str, attribute: str) -> None:
        self.sweep, self.who = sweep, who
        self.user = getattr(sweep.world, attribute)
        self.role = self.user.role
        self.renewed = 0

    def headers(self) -> dict[str, str]:
        # identity: the in-process client hands Schemathesis the body as sent, and it does not inflate
        # gzip (compression has its own tests in test_http.py)
        return {**self._token(), "Accept-Encoding": "identity"}

    def _token(self) -> dict[str, str]:
        world, client = self.sweep.world, self.sweep.client
        if client.get(f"{API}/me", headers=world.h[self.who]).status_code == 200:
            return dict(world.h[self.who])
        db.session.rollback()
        self.user = db.session.merge(self.user)
        self.user.active, self.user.role = True, self.role
        # Generated sign-ins (wrong passwords, the stateful phase reusing this account's e-mail) may have
        # reached the sign-in limits the server rightly holds; this renewal is the harness's, not a case.
        limiter.reset()
        db.session.execute(delete(LoginThrottle))
        db.session.commit()
        response = client.post(f"{API}/auth/login", json={"email": self.user.email, "password": PASSWORD})
        assert response.status_code == 200, response.get_json()
        world.h[self.who] = {**world.h[self.who], "Authorization": f"Bearer {response.get_json()['access_token']}"}
        self.renewed += 1
        return dict(world.h[self.who])


@pytest.mark.parametrize("role", list(ROLES))
def test_every_operation_as_each_role(sweep, role):
    app, world = sweep.app, sweep.world
    schema = schemathesis.openapi.from_wsgi(f"{API}/openapi.json", app)
    session = Session(sweep, *ROLES[role])
    tally = Tally()
    for result in schema.get_all_operations():
        operation = result.ok()
        tally.operations += 1
        headers = session.headers()
        _exercise(operation, operation.as_strategy(MODE), headers, tally)
        known = _known_ids(operation.path, world)
        if known:
            _exercise(operation, operation.as_strategy(MODE, path_parameters=known), session.headers(), tally)
    print(f"\nschemathesis as {role}: {tally.operations} operations, {tally.cases} cases, "
          f"{len(tally.failures)} failures; answers by class {dict(sorted(tally.statuses.items()))}; "
          f"signed in again {session.renewed} times")
    assert not tally.failures, "\n\n".join(f"{label}: {title}\n{detail}"
                                           for (label, title), detail in sorted(tally.failures.items()))
