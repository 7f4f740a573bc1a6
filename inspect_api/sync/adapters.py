"""Finding each tracked entity's services by the COMMON.md convention, plus the one adapter sync
writes itself: assignments, which an inspector's device reads to know its sites.

For a model with `__sync_entity__ = "sample"` in package inspect_api.sampling, the functions
create_sample, update_sample, get_sample, visible_samples, dump_sample (and delete_sample, if the
domain allows deleting) are looked up in sampling/services.py, then in sampling/samples.py or
sampling/sample.py; the schemas SampleCreateSchema / SampleUpdateSchema (or CreateSampleSchema /
UpdateSampleSchema) in sampling/schemas.py. A function that does not take the convention's
arguments is not used, so a helper of the same name with another signature is never called.
"""
from __future__ import annotations

import importlib
import inspect
import logging
from typing import Any, Callable

import sqlalchemy as sa
from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from ..errors import NotFound
from ..extensions import db
from .registry import ASSIGNMENT, FIELD, GLOBAL, PERMIT, EntityAdapter

log = logging.getLogger(__name__)

# Schema name prefixes a domain uses besides the entity's own CamelCase name.
SCHEMA_ALIASES = {"completion_notice": ("Notice", "CompletionNotice")}
NOT_PUSHED = {
    "photo": "Photos are uploaded with PUT /photos/{id}; push the records that reference them.",
    "assignment": "Assignments are made by supervisors, not pushed by devices.",
}


def _camel(entity: str) -> str:
    return "".join(part.title() for part in entity.split("_"))


def _import(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise


def _takes(fn: Any, positional: int) -> bool:
    """True when `fn` can be called with exactly `positional` positional arguments."""
    if not callable(fn):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    slots = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in slots if p.default is p.empty]
    kw_required = [p for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    return not kw_required and len(required) <= positional and (len(slots) >= positional or varargs)


def _find(modules: list, name: str, positional: int) -> Callable | None:
    for module in modules:
        fn = getattr(module, name, None)
        if fn is not None and _takes(fn, positional):
            return fn
    return None


def _schema(module, names: list[str]):
    for name in names:
        cls = getattr(module, name, None) if module is not None else None
        if isinstance(cls, type):
            return cls()
    return None


def _schemas(package: str, entity: str):
    module = _import(f"{package}.schemas")
    prefixes = (_camel(entity),) + SCHEMA_ALIASES.get(entity, ())
    create = _schema(module, [n for p in prefixes for n in (f"{p}CreateSchema", f"Create{p}Schema")])
    update = _schema(module, [n for p in prefixes for n in (f"{p}UpdateSchema", f"Update{p}Schema")])
    return create, update


def _load_options(model: type) -> tuple:
    """Eager-load each relationship a dump may read, one query per page instead of one per row."""
    options = []
    for rel in sa.inspect(model).relationships:
        try:
            options.append(selectinload(getattr(model, rel.key)))
        except Exception:  # an exotic relationship a selectin load cannot serve stays lazy
            log.debug("no eager load for %s.%s", model.__name__, rel.key)
    return tuple(options)


def _scope(entity: str, model: type) -> str:
    if entity == "permit":
        return PERMIT
    if hasattr(model, "permit_id") or hasattr(model, "sync_permit_id"):
        return FIELD
    return GLOBAL


def _permit_visible(model: type) -> Callable[[Any], Select]:
    from ..permits.access import visible_permit_ids
    return lambda user: select(model).where(model.permit_id.in_(visible_permit_ids(user)))


def _getter(entity: str, model: type, visible: Callable[[Any], Select]) -> Callable[[Any, str], Any]:
    def get(user, record_id):
        record = db.session.scalar(visible(user).where(model.id == str(record_id)))
        if record is None:
            raise NotFound(f"No such {entity.replace('_', ' ')}.")
        return record
    return get


def domain_adapter(entity: str, model: type) -> EntityAdapter | None:
    package = model.__module__.rsplit(".", 1)[0]
    plural = entity + "s"
    modules = [m for m in (_import(f"{package}.services"), _import(f"{package}.{plural}"),
                           _import(f"{package}.{entity}")) if m is not None]
    dump = _find(modules, f"dump_{entity}", 1)
    if dump is None:
        log.info("sync: %s not registered (no dump_%s in %s)", entity, entity, package)
        return None
    visible = _find(modules, f"visible_{plural}", 1)
    if visible is None and hasattr(model, "permit_id"):
        visible = _permit_visible(model)
    if visible is None:
        return None
    get = _find(modules, f"get_{entity}", 2) or _getter(entity, model, visible)
    create_schema, update_schema = _schemas(package, entity)
    return EntityAdapter(
        entity=entity, model=model, scope=_scope(entity, model), dump=dump, visible=visible, get=get,
        create=_find(modules, f"create_{entity}", 2), update=_find(modules, f"update_{entity}", 4),
        delete=_find(modules, f"delete_{entity}", 3), create_schema=create_schema, update_schema=update_schema,
        not_pushed=NOT_PUSHED.get(entity), load_options=_load_options(model))


# --- assignments ---------------------------------------------------------------------------------

def _visible_assignments(user) -> Select:
    from ..permits.models import Assignment
    query = select(Assignment)
    if user.role == "supervisor":
        return query
    if user.role == "inspector":
        return query.where(Assignment.inspector_id == user.id)
    return query.where(sa.false())


def _dump_assignment(record) -> dict[str, Any]:
    return {"id": record.id, "permit_id": record.permit_id, "inspector_id": record.inspector_id,
            "version": record.version, "assigned_at": _iso(record.assigned_at),
            "assigned_by": record.assigned_by, "removed_at": _iso(record.removed_at)}


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def assignment_adapter(model: type) -> EntityAdapter:
    return EntityAdapter(entity="assignment", model=model, scope=ASSIGNMENT, dump=_dump_assignment,
                         visible=_visible_assignments,
                         get=_getter("assignment", model, _visible_assignments),
                         not_pushed=NOT_PUSHED["assignment"])


def discover() -> dict[str, EntityAdapter]:
    from .. import import_models
    import_models()
    found: dict[str, EntityAdapter] = {}
    for mapper in sorted(db.Model.registry.mappers, key=lambda m: m.class_.__name__):
        model = mapper.class_
        entity = getattr(model, "__sync_entity__", None)
        if not entity or entity in found:
            continue
        try:
            adapter = assignment_adapter(model) if entity == "assignment" else domain_adapter(entity, model)
        except Exception:  # a broken domain must not take sync down for every other entity
            log.exception("sync: %s not registered", entity)
            continue
        if adapter is not None:
            found[entity] = adapter
    return found
