"""Counting the SQL statements a request runs, for tests that hold a list's cost flat (README
"Layers", "One serialiser style": a list of three runs the same statements as a list of one)."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import event

from inspect_api.extensions import db


@contextmanager
def counting() -> Iterator[list[str]]:
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)
    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(db.engine, "before_cursor_execute", count)


def list_statements(client, url: str, headers, expected: int | None) -> list[str]:
    """The statements GET `url` runs, with nothing of the records left over in the session; the
    answer must be a list of `expected` items (None: a list of any length)."""
    db.session.expire_all()
    with counting() as statements:
        r = client.get(url, headers=headers)
    assert r.status_code == 200, (url, r.get_json())
    assert isinstance(r.get_json(), list), (url, r.get_json())
    assert expected is None or len(r.get_json()) == expected
    return statements
