"""One way every list pages (API.md "Operations"): `limit` (1 to MAX_LIMIT, default DEFAULT_LIMIT) and
`offset` in the query, the matching total in the X-Total-Count header. Visibility and filters are
applied first, then the page is cut, so the total counts only what the caller may see."""
from __future__ import annotations

from typing import Any, Sequence

from marshmallow import Schema, fields, validate
from sqlalchemy import Select, func, select

from .extensions import db

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
TOTAL_HEADER = "X-Total-Count"
# For @blp.response(..., headers=HEADERS): the header is published in the OpenAPI document.
HEADERS = {TOTAL_HEADER: {"description": "How many items match the filters, over all pages",
                          "schema": {"type": "integer", "minimum": 0}}}


class PageArgs(Schema):
    """The paging query parameters; a list's own query schema extends this one."""

    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(min=1, max=MAX_LIMIT),
                           metadata={"description": f"Items per page, at most {MAX_LIMIT}"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0),
                            metadata={"description": "Items to skip (past the end: an empty page)"})


def page_query(query: Select, args: dict[str, Any]) -> tuple[list, int]:
    """One page of an ordered query of one mapped entity (every list's) and the total it matches, in
    two queries. A query may load a collection in the same statement (joinedload: the page is cut on
    the records, in a subquery, and each record comes back once per row of its collection); `unique()`
    makes it one item again (records are told apart by identity, never by value)."""
    total = db.session.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    rows = list(db.session.scalars(query.limit(args["limit"]).offset(args["offset"])).unique())
    return rows, total


def page_list(items: Sequence, args: dict[str, Any]) -> tuple[list, int]:
    """One page of a list already filtered in Python (a filter on a value computed at read time)."""
    start = args["offset"]
    return list(items[start:start + args["limit"]]), len(items)


def total_header(total: int) -> dict[str, str]:
    return {TOTAL_HEADER: str(total)}
