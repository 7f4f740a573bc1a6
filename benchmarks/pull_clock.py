"""Pull of records whose answer depends on the Town's clock (a finding's `overdue`, R-I4), against the same pull
served from snapshots, measured in the same run.

    python benchmarks/pull_clock.py [N]           # N findings (default 2,000), SQLite (a throwaway file)

Findings carry `overdue`, so pull dumps them when asked (sync/payload.py) instead of splicing in the
snapshot of their last write; the floor is the same pull with the entity's clock_fields cleared for the
measurement, which serves the snapshots (and so stale flags).
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sync as bench  # noqa: E402  (benchmarks/sync.py: the app and people it sets up)

from inspect_api import clock  # noqa: E402
from inspect_api.extensions import db  # noqa: E402


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    app = bench.build_app("sqlite:///" + tempfile.mkdtemp() + "/pull_clock.sqlite3")
    with app.app_context():
        client, permit_id, _inspector_headers, headers = bench.setup_people(app)
        from inspect_api.auth.models import User
        from inspect_api.inspections import finding_services
        from inspect_api.sync import registry
        inspector = db.session.query(User).filter_by(email="insp@bench.example").one()
        for n in range(count):
            finding_services.create_finding(inspector, {"id": str(uuid.uuid4()), "permit_id": permit_id,
                                                        "description": f"Finding {n}", "observed_on": clock.today()})
        db.session.commit()
        adapter = registry.get("finding")

        def pull() -> float:
            cursor, seen, spent = None, 0, 0.0
            while True:
                query = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
                start = time.perf_counter()
                response = client.get("/api/v1/sync/pull", query_string=query, headers=headers)
                spent += time.perf_counter() - start
                body = json.loads(response.data)
                seen += sum(1 for c in body["changes"] if c["entity"] == "finding")
                cursor = body["cursor"]
                if not body["has_more"]:
                    break
            assert seen == count, seen
            return spent

        pull()  # warm
        live = min(pull() for _ in range(3))
        declared, adapter.clock_fields = adapter.clock_fields, ()
        try:
            pull()
            floor = min(pull() for _ in range(3))
        finally:
            adapter.clock_fields = declared
    print(f"pull of {count} findings: dumped when asked {live:.3f} s, from snapshots {floor:.3f} s: "
          f"{live / floor:.2f}x")


if __name__ == "__main__":
    main()
