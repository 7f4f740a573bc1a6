"""Checklist template operations: load, check, publish, flush (never commit)."""
from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy import select

from .. import audit
from ..errors import NotFound, ValidationFailed, VersionConflict
from ..extensions import db
from .models import ChecklistTemplate
from .schemas import ChecklistTemplateSchema


def _latest_versions():
    return (select(ChecklistTemplate.key, sa.func.max(ChecklistTemplate.version).label("version"))
            .group_by(ChecklistTemplate.key).subquery())


def list_templates(*, every_version: bool = False) -> list[ChecklistTemplate]:
    query = select(ChecklistTemplate).order_by(ChecklistTemplate.key, ChecklistTemplate.version)
    if not every_version:
        latest = _latest_versions()
        query = query.join(latest, sa.and_(latest.c.key == ChecklistTemplate.key,
                                           latest.c.version == ChecklistTemplate.version))
    templates = db.session.scalars(query).all()
    newest = {t.key: t.version for t in templates} if not every_version else _newest_by_key()
    for template in templates:
        template.current = newest.get(template.key) == template.version
    return templates


def _newest_by_key() -> dict[str, int]:
    return dict(db.session.execute(select(ChecklistTemplate.key, sa.func.max(ChecklistTemplate.version))
                                   .group_by(ChecklistTemplate.key)).all())


def current_version(key: str) -> int | None:
    return db.session.scalar(select(sa.func.max(ChecklistTemplate.version)).where(ChecklistTemplate.key == key))


def find_template(key: str, version: int | None = None) -> ChecklistTemplate | None:
    """A template version, or the current one when `version` is None."""
    version = version if version is not None else current_version(key)
    if version is None:
        return None
    return db.session.scalar(select(ChecklistTemplate).where(ChecklistTemplate.key == key,
                                                             ChecklistTemplate.version == version))


def get_template(key: str, version: int) -> ChecklistTemplate:
    template = find_template(key, version)
    if template is None:
        raise NotFound(f"No version {version} of checklist {key!r}.")
    template.current = current_version(key) == template.version
    return template


def dump_template(template: ChecklistTemplate) -> dict[str, Any]:
    return ChecklistTemplateSchema().dump(template)


def publish_version(user, key: str, data: dict[str, Any]) -> ChecklistTemplate:
    """A new version of `key` (version 1 starts a new template). Earlier versions stay as they were."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,59}", key):
        raise ValidationFailed(errors={"key": ["Lower-case letters, digits and underscores, up to 60."]})
    keys = [item["key"] for item in data["items"]]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise ValidationFailed(errors={"items": [f"Item keys must be unique: {', '.join(duplicates)}."]})
    latest = current_version(key)
    based_on = data.get("based_on_version")
    if based_on is not None and based_on != latest:
        current = find_template(key)
        raise VersionConflict(dump_template(current) if current else {},
                              f"Checklist {key!r} is at version {latest}, not {based_on}; start from the current one.")
    template = ChecklistTemplate(key=key, version=(latest or 0) + 1, title=data["title"],
                                 description=data.get("description"), items=[dict(item) for item in data["items"]],
                                 published_by=user.id)
    db.session.add(template)
    db.session.flush()
    template.current = True
    audit.record("checklist_template.publish", "checklist_template", template.id,
                 {"key": key, "version": template.version, "items": keys}, actor=user)
    return template
