"""The app factory wires what a lower domain asks of a higher one, and refuses to start while a piece
is missing: every declared question has an answer (questions.py), every photo parent type has its
model (photos/parents.py)."""
from __future__ import annotations

import pytest

from inspect_api import create_app, questions
from inspect_api.config import TestConfig
from inspect_api.inspections.workflow import CEASE_AND_DESIST_OPEN
from inspect_api.permits.commencement import SECURITY_HELD
from inspect_api.permits.parts import PHOTO_SEEN_ON_PERMIT
from inspect_api.photos import parents as photo_parents


def test_every_declared_question_is_answered_by_its_owner(app):
    assert {q.name: q._answer.__module__ for q in questions._DECLARED} == {
        "security_held": "inspect_api.bonds.services",
        "cease_and_desist_open": "inspect_api.enforcement.services",
        "photo_seen_on_permit": "inspect_api.photos.services",
    }


@pytest.mark.parametrize("question", [SECURITY_HELD, CEASE_AND_DESIST_OPEN, PHOTO_SEEN_ON_PERMIT],
                         ids=lambda q: q.name)
def test_an_unanswered_question_stops_the_start(app, question, monkeypatch):
    answer = question._answer
    monkeypatch.setattr(question, "answer", lambda fn: fn)  # the factory's answer does not take
    question._answer = None
    try:
        with pytest.raises(RuntimeError, match=question.name):
            create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://"))
        with pytest.raises(RuntimeError, match="has no answer"):
            question("any", "thing")
    finally:
        question._answer = answer


def test_a_photo_parent_type_without_a_model_stops_the_start(app, monkeypatch):
    monkeypatch.delitem(photo_parents._PARENT_MODELS, "sample")
    with pytest.raises(RuntimeError, match="sample"):
        photo_parents.check_parents()
    with pytest.raises(RuntimeError, match="not a photo parent type"):
        photo_parents.register_parent("permit", object)
