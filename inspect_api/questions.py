"""Questions a domain asks of a domain above it, answered by that domain.

Data flows one way: a domain imports only the domains below it. A few rules still need a fact that
a higher domain owns before a change may happen, or to show a record: whether the security a permit
requires is held (R-D1, bonds, asked by permits) or which cease-and-desist orders were open on a
site on a day (R-O1a, enforcement, asked by inspections). The asking domain declares a Question in
its own module, saying what it takes and what it answers; the app factory has the owning domain
answer it, and refuses to start while a declared question has no answer, as it does for an
incomplete sync declaration or a signal nobody receives.
"""
from __future__ import annotations

from typing import Any, Callable

_DECLARED: list["Question"] = []


class Question:
    """One question, one answer: `question.answer(fn)` at start-up, then `question(...)` asks it."""

    def __init__(self, name: str, doc: str) -> None:
        self.name, self.__doc__ = name, doc
        self._answer: Callable[..., Any] | None = None
        _DECLARED.append(self)

    def answer(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        self._answer = fn
        return fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._answer is None:
            raise RuntimeError(f"The question {self.name!r} has no answer: the app factory connects it.")
        return self._answer(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Question {self.name}>"


def check_answered() -> None:
    """Stop the start when a declared question has no answer."""
    missing = [q.name for q in _DECLARED if q._answer is None]
    if missing:
        raise RuntimeError(f"Questions without an answer: {', '.join(missing)}")
