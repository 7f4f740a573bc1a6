"""Schemathesis over a live server (werkzeug on 127.0.0.1, real HTTP), as each role, with the
`positive_data_acceptance` and `negative_data_rejection` checks: what the document allows is taken,
what it forbids is refused.

A request the document allows may still be refused for a business reason (409 `invalid_transition`,
`version_conflict`, a 428 without If-Match, a rule's 422): such an answer is allowed only where the
operation declares it in its responses, so a refusal added later without declaring it fails this run.
401, 403 and 404 are who-may-see answers (API.md: a record the caller may not see is 404), allowed
everywhere; the tus protocol's 412 (a missing or other Tus-Resumable) is excepted by name, and so is
a sync push that refuses a forbidden mutation in its results (200, that mutation `rejected`).

Bounded: SCHEMATHESIS_LIVE_EXAMPLES cases per operation, role and mode (default 2), then the stateful
phase for SCHEMATHESIS_LIVE_STEPS steps (default 10) in SCHEMATHESIS_LIVE_RUNS runs (default 3).
Marked `schemathesis` like the in-process run.
"""
from __future__ import annotations

import os
import threading
from collections import Counter
from dataclasses import dataclass, field

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, Verbosity, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402
from schemathesis.specs.openapi.checks import (negative_data_rejection, positive_data_acceptance,  # noqa: E402
                                               status_code_conformance)
from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

from ..authorization_sweep_support import sweep, sweep_app  # noqa: E402,F401  (fixtures)
from .test_schemathesis import ROLES, Session  # noqa: E402

pytestmark = pytest.mark.schemathesis
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")

API = "/api/v1"
EXAMPLES = int(os.environ.get("SCHEMATHESIS_LIVE_EXAMPLES", "2"))
STEPS = int(os.environ.get("SCHEMATHESIS_LIVE_STEPS", "10"))
RUNS = int(os.environ.get("SCHEMATHESIS_LIVE_RUNS", "3"))
WHO_MAY_SEE = {401, 403, 404}
TUS = f"{API}/uploads"


def allowed(operation) -> set[int]:
    """What a valid-shaped request may answer: success, who-may-see, and the refusals the operation
    declares (its 4xx responses)."""
    declared = {int(code) for code in operation.definition.raw.get("responses", {}) if code.isdigit()}
    codes = {code for code in declared if 200 <= code < 300} | WHO_MAY_SEE | {c for c in declared if 400 <= c < 500}
    if operation.path.startswith(TUS):
        codes.add(412)
    return codes


def _accepts(ctx, response, case):
    ctx.config.positive_data_acceptance.expected_statuses = [str(code) for code in sorted(allowed(case.operation))]
    return positive_data_acceptance(ctx, response, case)


def _refused_per_mutation(response, case) -> bool:
    """A push is answered 200 with a result per mutation: a mutation the document forbids is refused
    there, `rejected` with its errors, and never blocks the others (API.md "Sync")."""
    if case.operation.path != f"{API}/sync/push" or response.status_code != 200:
        return False
    results = (response.json() or {}).get("results") or []
    return any(result.get("status") == "rejected" and result.get("error") for result in results)


def _rejects(ctx, response, case):
    if _refused_per_mutation(response, case):
        return None
    statuses = [s for s in NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES if s != "5xx"]  # a 500 is never a refusal
    ctx.config.negative_data_rejection.expected_statuses = statuses + (["412"] if case.operation.path.startswith(TUS)
                                                                       else [])
    return negative_data_rejection(ctx, response, case)


CHECKS = [not_a_server_error, status_code_conformance, _accepts, _rejects]


@dataclass
class Tally:
    cases: int = 0
    failures: dict[tuple[str, str], str] = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)


class _QuietHandler(WSGIRequestHandler):
    def log(self, type, message, *args):  # one line per request would drown the run's own figures
        pass


@pytest.fixture(scope="module")
def live(sweep):
    server = make_server("127.0.0.1", 0, sweep.app, threaded=False, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


def _exercise(operation, mode, base_url, headers, tally):
    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet)
    @given(case=operation.as_strategy(mode))
    def run(case):
        tally.cases += 1
        try:
            response = case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=30)
            tally.statuses[response.status_code // 100] += 1
            if os.environ.get("SCHEMATHESIS_TRACE"):
                print(operation.label, mode.value, response.status_code, response.content[:160])
        except FailureGroup as group:
            for failure in group.exceptions:
                tally.failures.setdefault((operation.label, failure.title), str(failure)[:700])

    try:
        run()
    except Unsatisfiable:
        pass


def _stateful(schema, base_url, session, tally) -> None:
    """The stateful phase: sequences of calls following the links Schemathesis infers between operations
    (a created record's id into its GET, PATCH, transitions ...), every answer under the same checks."""
    machine = schema.as_state_machine()
    headers = session.headers()

    class Scenario(machine):
        def get_call_kwargs(self, case):
            return {"headers": headers, "base_url": base_url, "timeout": 30}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            tally.cases += 1
            tally.statuses[response.status_code // 100] += 1
            try:
                case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)
            except FailureGroup as group:
                for failure in group.exceptions:
                    tally.failures.setdefault((f"stateful {case.operation.label}", failure.title), str(failure)[:700])

    Scenario.run(settings=settings(max_examples=RUNS, stateful_step_count=STEPS, deadline=None, database=None,
                                   derandomize=True, phases=[Phase.generate], suppress_health_check=list(HealthCheck),
                                   verbosity=Verbosity.quiet))


@pytest.mark.parametrize("role", list(ROLES))
def test_every_operation_live_as_each_role(sweep, live, role):
    schema = schemathesis.openapi.from_url(f"{live}{API}/openapi.json")
    session = Session(sweep, *ROLES[role])
    tally = Tally()
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            _exercise(operation, mode, live, session.headers(), tally)
    stateless = tally.cases
    _stateful(schema, live, session, tally)
    print(f"\nlive schemathesis as {role}: {stateless} cases, then {tally.cases - stateless} stateful steps; "
          f"{len(tally.failures)} failures; "
          f"answers by class {dict(sorted(tally.statuses.items()))}")
    assert not tally.failures, "\n\n".join(f"{label}: {title}\n{detail}"
                                           for (label, title), detail in sorted(tally.failures.items()))
