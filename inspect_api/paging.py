"""One way every list pages (API.md "Operations"): `limit` (1 to MAX_LIMIT, default DEFAULT_LIMIT) and
`offset` in the query, the matching total in the X-Total-Count header. Visibility and filters are
applied first, then the page is cut, so the total counts only what the caller may see."""
from __future__ import annotations

from types import FunctionType
from typing import Any, Callable, Hashable, Iterator, Mapping, Sequence, TypeVar

from marshmallow import Schema, fields, validate
from sqlalchemy import BigInteger, Select, bindparam, func, select
from sqlalchemy.orm import RelationshipDirection, RelationshipProperty
from sqlalchemy.orm.attributes import InstrumentedAttribute, set_committed_value
from sqlalchemy.sql.visitors import replacement_traverse

from .extensions import db

T = TypeVar("T")

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


# 64-bit on PostgreSQL (a 32-bit INTEGER refuses an offset, or the case file's page size, past 2**31 - 1).
_LIMIT, _OFFSET = bindparam("page_limit", type_=BigInteger), bindparam("page_offset", type_=BigInteger)


def _page_values(args: dict[str, Any]) -> dict[str, int]:
    return {"page_limit": args["limit"], "page_offset": args["offset"]}


def page_query(query: Select, args: dict[str, Any]) -> tuple[list, int]:
    """One page of an ordered query of one mapped entity (every list's) and the total it matches, in
    two queries. A query may load a collection in the same statement (joinedload: the page is cut on
    the records, in a subquery, and each record comes back once per row of its collection); `unique()`
    makes it one item again (records are told apart by identity, never by value)."""
    total = db.session.scalar(_total_of(query))
    rows = db.session.scalars(query.limit(_LIMIT).offset(_OFFSET), _page_values(args)).unique()
    return list(rows), total


def _total_of(query: Select) -> Select:
    return select(func.count()).select_from(query.order_by(None).subquery())


def named_filters(args: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    """The filters among `keys` a request names (present and not empty), each as text (an id as its
    string), for `page_of`'s values; whether a key is among them is the matching part of the shape."""
    return {key: str(args[key]) for key in keys if args.get(key)}


# The total and page statements of each list query `page_of` has built, by builder and shape.
_BUILT: dict[tuple[Callable[..., Select], tuple], tuple[Select, Select]] = {}


def page_of(build: Callable[..., Select], shape: tuple[Hashable, ...], values: Mapping[str, Any],
            args: dict[str, Any]) -> tuple[list, int]:
    """`page_query(build(*shape), args)`, with the query's total and page statements built once for
    each builder and shape and kept. Building a list's statements and working out their cache keys
    cost about as much as running them on SQLite (0.3 ms of a request for 100 orders or samples:
    README "Lists against their floor"); a statement kept is compiled once and its key is kept with it.

    So that one caller's statement can serve the next, `build` is a module-level function (not a
    closure: refused) whose statement depends on `shape` alone: the few choices that change the SQL
    (the caller's kind of scope, which filters are named, a status among a fixed few). Every value
    that differs between callers or requests (the caller's id, a filter's value, today) is a
    `bindparam` without a value, given at each call in `values`; one left out is an error, never
    another caller's value. A builder reads no clock, configuration or request."""
    key = (build, shape)
    known = _BUILT.get(key)
    if known is None:
        if not isinstance(build, FunctionType) or build.__closure__:
            raise TypeError(f"{build!r}: a list's statement builder is a module-level function of its shape alone")
        query = build(*shape)
        known = _BUILT[key] = (_total_of(query), query.limit(_LIMIT).offset(_OFFSET))
    total_statement, page_statement = known
    total = db.session.scalar(total_statement, values)
    return list(db.session.scalars(page_statement, {**values, **_page_values(args)}).unique()), total


# Ids named in one IN (...) list, by default: each is a bound parameter, and SQLite and PostgreSQL
# limit how many one statement takes. A page's collections are read this many parents at a time.
CHUNK = 500


def chunks(ids: Sequence[T], size: int | None = None) -> Iterator[Sequence[T]]:
    """`ids` in slices of at most `size` (CHUNK unless given), in their order: one IN (...) list each."""
    size = CHUNK if size is None else size
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


_COLLECTION_STATEMENTS: dict[RelationshipProperty, tuple[Select, str, str]] = {}


def _collection_statement(prop: RelationshipProperty) -> tuple[Select, str, str]:
    """The statement that reads a one-to-many relationship for many parents at once: the
    relationship's own condition, its parent's key an expanding parameter, in its own order; with
    the attribute of a parent that holds that key and the attribute of a child that names it. Built
    once per relationship."""
    known = _COLLECTION_STATEMENTS.get(prop)
    if known is not None:
        return known
    pairs = prop.local_remote_pairs or []
    if prop.direction is not RelationshipDirection.ONETOMANY or prop.secondary is not None or len(pairs) != 1:
        raise TypeError(f"{prop} is not a one-to-many relationship on one key")
    local, remote = pairs[0]
    target = prop.mapper
    # The parent's column becomes the child's own: the join condition then holds for every child
    # of the parents named (their key is in the list), and any condition of its own still applies.
    condition = replacement_traverse(prop.primaryjoin, {}, lambda element: remote if element is local else None)
    statement = (select(target).where(remote.in_(bindparam("parent_keys", expanding=True)), condition)
                 .order_by(*(prop.order_by or ())))
    known = (statement, prop.parent.get_property_by_column(local).key, target.get_property_by_column(remote).key)
    _COLLECTION_STATEMENTS[prop] = known
    return known


def load_collections(records: Sequence, *collections: InstrumentedAttribute) -> None:
    """Each record's `collections` (one-to-many relationships of their class), read for the whole
    page by one statement each and set as loaded, in each relationship's own order: what selectinload
    gives, at a half to a third of its cost for a page of 100 permits on SQLite (README "Lists against
    their floor"). A record already holding a collection (a record just written, or one the session
    had loaded) keeps it as it stands, as selectinload leaves it; none left to load, no statement."""
    if not records:
        return
    for collection in collections:
        prop = collection.property
        statement, key_of, parent_of = _collection_statement(prop)
        waiting = [record for record in records if prop.key not in record.__dict__]  # a loaded one is there
        if not waiting:
            continue
        found: dict[Any, list] = {getattr(record, key_of): [] for record in waiting}
        keys = sorted(found)
        for chunk in chunks(keys):
            for child in db.session.scalars(statement, {"parent_keys": chunk}):
                found[getattr(child, parent_of)].append(child)
        for record in waiting:
            set_committed_value(record, prop.key, found[getattr(record, key_of)])


def page_list(items: Sequence, args: dict[str, Any]) -> tuple[list, int]:
    """One page of a list already filtered in Python (a filter on a value computed at read time)."""
    start = args["offset"]
    return list(items[start:start + args["limit"]]), len(items)


def total_header(total: int) -> dict[str, str]:
    return {TOTAL_HEADER: str(total)}
