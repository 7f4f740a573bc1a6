"""Rendering a message from its templates (Jinja2, which Flask carries).

Each event has three files in `templates/`: `<event>.subject.txt` (one line), `<event>.txt` (the
plain-text body) and `<event>.html` (the HTML body); both bodies extend `_layout.txt` / `_layout.html`,
which print the greeting, the Town's name and contact and the link into the app. A message in another
language than English (a resident's report from the public, in Portuguese) has its own three files,
`<event>.<language>.subject.txt`, `.txt` and `.html`: a message asked for in a language its event has no
files for fails like a missing name, rather than going out in the wrong language. Undefined names are
errors (StrictUndefined): a template asking for something the service did not pass fails the request
that enqueues it, rather than mailing a blank.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import current_app
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from .. import clock

TEMPLATES = Path(__file__).resolve().parent / "templates"
DEFAULT_LANGUAGE = "en"

# C0 and C1 controls (CR and LF among them), DEL, and the Unicode line and paragraph separators.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(value: Any) -> str:
    """A name or other single-line text as it may be printed: line breaks and control characters
    become one space each run, so a value can neither start a line of its own in a plain-text body
    nor a header (RFC 5322 2.2: a header ends at CRLF)."""
    if value is None:
        return ""
    return " ".join(_CONTROLS.sub(" ", str(value)).split())


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str


def long_date(value: date | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        value = date.fromisoformat(value)
    return f"{value:%A}, {value:%B} {value.day}, {value.year}"


def local_time(value: datetime | None) -> str:
    """A moment in the Town's time zone, as people read it: "May 4, 2026 at 2:03 PM EDT"."""
    if value is None:
        return ""
    local = value.astimezone(clock.town_zone())
    return f"{local:%B} {local.day}, {local.year} at {local:%I:%M %p %Z}".replace(" 0", " ")


def money(value: Decimal | str | None) -> str:
    return "" if value is None else f"${Decimal(value):,.2f}"


PT_MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
             "novembro", "dezembro")


def local_time_pt(value: datetime | None) -> str:
    """A moment in the Town's time zone as Portuguese readers write it: "4 de maio de 2026, às 14:03"."""
    if value is None:
        return ""
    local = value.astimezone(clock.town_zone())
    return f"{local.day} de {PT_MONTHS[local.month - 1]} de {local.year}, às {local:%H:%M}"


def _printed(value: Any) -> Any:
    """Every `{{ value }}` of every template, text and HTML: each prints one line of the message, so
    each is made one line (one_line) before it is printed (and, in HTML, escaped)."""
    if isinstance(value, Markup):
        return Markup(one_line(value))
    if value is None or isinstance(value, (int, float, Decimal)):
        return value
    return one_line(value)


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      finalize=_printed)
    env.filters.update(long_date=long_date, local_time=local_time, local_time_pt=local_time_pt, money=money)
    return env


_ENV = _environment()


def town() -> dict[str, str]:
    cfg = current_app.config
    return {"name": cfg.get("TOWN_NAME") or "Town of Fairhaven",
            "authority": "Stormwater Authority",
            "contact": cfg.get("TOWN_CONTACT") or ""}


def template_name(event: str, part: str, language: str | None = None) -> str:
    """`<event>.<part>` (English), or `<event>.<language>.<part>` in another language."""
    return f"{event}.{language}.{part}" if language and language != DEFAULT_LANGUAGE else f"{event}.{part}"


def render(event: str, context: dict[str, Any], language: str | None = None) -> Rendered:
    values = {"town": town(), **context}
    subject = one_line(_ENV.get_template(template_name(event, "subject.txt", language)).render(values))
    return Rendered(subject=subject[:300], text=_ENV.get_template(template_name(event, "txt", language)).render(values),
                    html=_ENV.get_template(template_name(event, "html", language)).render(values))
