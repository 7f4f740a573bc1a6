"""The garbage collector of a serving process (inspect_api/collector.py): settled once the app is built,
left alone by the test configuration, and its threshold checked at start."""
from __future__ import annotations

import gc
import os
import weakref

import pytest

from inspect_api import create_app
from inspect_api.config import Config, DevelopmentConfig, TestConfig


@pytest.fixture
def collector_restored():
    """CPython's collector as the suite had it, whatever a test does to it."""
    threshold = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_a_serving_app_freezes_what_its_start_made_and_raises_the_young_threshold(collector_restored):
    _, middle, old = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    let_go = {"owner": ["a record some other thread holds"]}
    app = create_app(TestConfig(GC_SETTLE=True, GC_YOUNG_THRESHOLD=20_000))
    assert gc.get_freeze_count() > 10_000  # modules, mappers, schemas: what the start made
    assert gc.get_threshold() == (20_000, middle, old)
    assert not _walked(app) and not _walked(app.config) and not _walked(let_go)
    # Frozen is not immortal: what its owner lets go is freed by its reference count as before, so
    # the number frozen shrinks whenever any thread of the process drops something older than the app.
    frozen = gc.get_freeze_count()
    del let_go
    assert gc.get_freeze_count() < frozen
    # What is made afterwards is collected as before: a cycle goes at the next full collection.
    made = _Cycle()
    gone = weakref.ref(made)
    del made
    assert gone() is not None  # a cycle: its reference count alone does not free it
    gc.collect()
    assert gone() is None
    # ...and a full collection neither walks the app nor moves it back among what it walks.
    assert not _walked(app) and not _walked(app.config)


def _walked(thing: object) -> bool:
    """Whether the collector's generations hold `thing` (the permanent generation is not one of them)."""
    assert gc.is_tracked(thing)
    return any(held is thing for held in gc.get_objects())


def test_the_test_configuration_leaves_the_collector_alone(collector_restored):
    before = gc.get_threshold()
    create_app(TestConfig())
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_servers_settle_by_default_and_tests_do_not():
    if {"GC_SETTLE", "GC_YOUNG_THRESHOLD"} & set(os.environ):
        pytest.skip("the environment sets the collector's settings: the defaults are not in force")
    assert Config.GC_SETTLE is True and DevelopmentConfig.GC_SETTLE is True
    assert Config.GC_YOUNG_THRESHOLD == 50_000
    assert TestConfig.GC_SETTLE is False


@pytest.mark.parametrize("value", [699, 0, -5])
def test_a_young_threshold_under_cpythons_default_stops_the_start(value, collector_restored):
    threshold = gc.get_threshold()
    with pytest.raises(RuntimeError) as refused:
        create_app(TestConfig(GC_SETTLE=True, GC_YOUNG_THRESHOLD=value))
    assert str(refused.value) == "GC_YOUNG_THRESHOLD: must be a whole number of at least 700"
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold


def test_the_least_threshold_is_cpythons_own(collector_restored):
    create_app(TestConfig(GC_SETTLE=True, GC_YOUNG_THRESHOLD=700))
    assert gc.get_threshold()[0] == 700 and gc.get_freeze_count() > 0


class _Cycle:
    def __init__(self) -> None:
        self.me = self
