"""Sync wiring fails loudly: each entity is declared once, and a declaration that is
incomplete, or names a function sync cannot call as it does, stops the app at start-up."""
from __future__ import annotations

import dataclasses

import pytest

from inspect_api import create_app
from inspect_api.extensions import db
from inspect_api.sync import adapters, registry
from inspect_api.sync.registry import SyncDeclarationError


@pytest.fixture
def declared(monkeypatch):
    """Swap the declarations for a start-up; the process's checked set is restored afterwards."""
    monkeypatch.setattr(registry, "_adapters", None)

    def use(changed):
        monkeypatch.setattr(adapters, "declarations", lambda: changed)
    real = adapters.declarations()
    return real, use


def _replace(declarations, entity, **changes):
    return [dataclasses.replace(a, **changes) if a.entity == entity else a for a in declarations]


def test_every_tracked_model_is_declared_and_callable(app):
    tracked = {getattr(m.class_, "__sync_entity__", None) for m in db.Model.registry.mappers} - {None}
    found = registry.adapters()
    assert set(found) == tracked == {"permit", "assignment", "entry_authorization", "inspection", "finding",
                                     "sample", "photo", "photo_annotation", "completion_notice", "bond", "order",
                                     "inspection_request", "storm_event"}
    assert all(registry.problems(a) == [] for a in found.values())
    pushable = sorted(name for name, a in found.items() if not a.not_pushed)
    assert pushable == ["bond", "completion_notice", "entry_authorization", "finding", "inspection",
                        "inspection_request", "order", "permit", "photo_annotation", "sample"]
    assert found["inspection_request"].update is None  # created on devices, handled by the office
    assert [name for name, a in found.items() if a.delete is not None] == ["inspection", "photo_annotation"]


def test_a_missing_update_stops_the_start(config, declared):
    real, use = declared
    use(_replace(real, "sample", update=None))
    with pytest.raises(SyncDeclarationError) as exc:
        create_app(config)
    assert "sample: update_schema without a update function" in str(exc.value)
    use(_replace(real, "sample", create=None))
    with pytest.raises(SyncDeclarationError, match="sample: no create function"):
        create_app(config)


def test_an_update_needing_one_more_argument_stops_the_start(config, declared):
    """The trap the old name lookup hid: sample edits silently became 405 not_pushable."""
    real, use = declared

    def update_sample(user, record, data, expected_version, reason):
        raise AssertionError("never called")

    use(_replace(real, "sample", update=update_sample))
    with pytest.raises(SyncDeclarationError) as exc:
        create_app(config)
    message = str(exc.value)
    assert "sample: update = " in message and "update(user, record, data, expected_version)" in message
    assert "reason" in message


def test_a_tracked_model_nobody_declares_stops_the_start(config, declared):
    real, use = declared
    use([a for a in real if a.entity != "order"])
    with pytest.raises(SyncDeclarationError, match="order: tracked by a model but not declared"):
        create_app(config)


def test_schemas_and_model_are_checked_too(config, declared):
    real, use = declared
    from inspect_api.bonds.models import Bond
    use(_replace(_replace(real, "finding", create_schema=None), "order", model=Bond))
    with pytest.raises(SyncDeclarationError) as exc:
        create_app(config)
    assert "finding: no create_schema for its create function" in str(exc.value)
    assert "order: model 'Bond' does not declare __sync_entity__ = 'order'" in str(exc.value)


def test_a_declaration_not_pushable_may_not_carry_writers(config, declared):
    real, use = declared
    inspection = next(a for a in real if a.entity == "inspection")
    use(_replace(real, "photo", create=inspection.create))
    with pytest.raises(SyncDeclarationError, match="photo: declared not pushable but has create"):
        create_app(config)
