"""A real server process for the fault harness: `python -m tests.sync.serve DATABASE_URL [DELAY]`.

Serves the app on 127.0.0.1 (a free port, printed as `port N` once listening). With DELAY, each
pushed mutation is followed by a pause (the TESTING-only hook in sync.services) and a marker file
named by SYNC_FAULT_MARKER is touched, so a test knows the batch is under way and can SIGKILL the
process in the middle of it.
"""
from __future__ import annotations

import os
import sys


def main() -> None:
    from werkzeug.serving import make_server

    from inspect_api import create_app
    from inspect_api.config import TestConfig

    url = sys.argv[1]
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    config = TestConfig(SQLALCHEMY_DATABASE_URI=url, SYNC_FAULT_DELAY_SECONDS=delay or None,
                        SYNC_FAULT_MARKER=os.environ.get("SYNC_FAULT_MARKER"),
                        STORAGE_URL=os.environ.get("STORAGE_URL"))
    app = create_app(config)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    print(f"port {server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
