"""The public pages' Portuguese catalog (inspect_api/public/translations/pt): the compiled .mo shipped
is the .po compiled; every message the pages and their templates say has a Portuguese translation,
neither empty nor fuzzy, with the same placeholders; and every page, chosen by Accept-Language or by
the switch, is in Portuguese through and through, and in English by default."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from inspect_api.public import i18n

from ..photos.helpers import jpeg
from ..town_clock import TownClock
from .test_pages_support import World, assert_page, send, text_of

PUBLIC = Path(i18n.__file__).resolve().parent
CATALOG = PUBLIC / "translations" / "pt" / "LC_MESSAGES"
# As babel.cfg beside the module says; `_l` is lazy_gettext.
METHODS = [("pages.py", "python"), ("i18n.py", "python"), ("templates/public/*.html", "jinja2")]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def po():
    with open(CATALOG / "messages.po", "rb") as f:
        return read_po(f, locale="pt")


def extracted() -> dict:
    found = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(PUBLIC), METHODS, keywords={**DEFAULT_KEYWORDS, "_l": None}):
        key = message if isinstance(message, str) else message[0]
        found.setdefault(key, (f"{filename}:{lineno}", message))
    return found


def as_dict(catalog) -> dict:
    return {m.id if isinstance(m.id, str) else tuple(m.id): (m.string if isinstance(m.string, str) else tuple(m.string))
            for m in catalog if m.id}


def test_the_shipped_mo_is_the_po_compiled():
    with open(CATALOG / "messages.mo", "rb") as f:
        shipped = read_mo(f)
    source = po()
    assert as_dict(shipped) == as_dict(source)
    # Byte for byte too: compiling the .po again gives the file in the wheel.
    again = io.BytesIO()
    write_mo(again, source)
    assert (CATALOG / "messages.mo").read_bytes() == again.getvalue()


def test_every_message_of_the_pages_has_a_portuguese_translation_with_its_placeholders():
    catalog = po()
    messages = extracted()
    assert len(messages) > 100  # the extraction found the templates and the module, not nothing
    problems = []
    for msgid, (where, message) in sorted(messages.items()):
        entry = catalog.get(msgid)
        if entry is None:
            problems.append(f"{where}: no entry for {msgid!r}")
            continue
        if entry.fuzzy:
            problems.append(f"{where}: fuzzy {msgid!r}")
        strings = [entry.string] if isinstance(entry.string, str) else list(entry.string)
        if not strings or not all(s.strip() for s in strings):
            problems.append(f"{where}: empty translation of {msgid!r}")
        if not isinstance(message, str) and (isinstance(entry.string, str) or entry.id[1] != message[1]):
            problems.append(f"{where}: the plural of {msgid!r} differs from the catalog's")
        wanted = sorted(set(PLACEHOLDER.findall(msgid)))
        for s in strings:
            if sorted(set(PLACEHOLDER.findall(s))) != wanted:
                problems.append(f"{where}: placeholders of {msgid!r} differ in {s!r}")
    stale = sorted(m.id if isinstance(m.id, str) else m.id[0] for m in catalog
                   if m.id and (m.id if isinstance(m.id, str) else m.id[0]) not in messages)
    assert problems == [] and stale == [], (problems, stale)
    assert not catalog.fuzzy


def test_babel_loads_the_catalog_for_both_portuguese_tags(app, client):
    assert str(i18n.TRANSLATIONS) in app.extensions["babel"].translation_directories
    for language in ("pt", "pt-PT", "pt-BR", "pt-br;q=0.9, en;q=0.1", "pt-PT,en;q=0.9", "en;q=0.2, pt_BR;q=0.8",
                     "fr, pt;q=0.5, en;q=0.4"):
        body = client.get("/public/", headers={"Accept-Language": language}).get_data(as_text=True)
        assert '<html lang="pt">' in body and "Procurar uma licença" in body, language
    for language in ("en-US", "fr, en;q=0.5, pt;q=0.4", "pt;q=0, en;q=0.1", "*", "", "zz-ZZ"):
        body = client.get("/public/", headers={"Accept-Language": language}).get_data(as_text=True)
        assert '<html lang="en">' in body and "Find a permit" in body, language


@pytest.fixture
def pages(client, factory, monkeypatch):
    """Every kind of page, with a permit, a site on the map and a report to show."""
    TownClock(monkeypatch)
    world = World(client, factory)
    location = send(client, photos=[("p.jpg", jpeg())], description="Mud", address="Main Street").headers["Location"]
    reference = location.split("/public/reports/")[1].split("?")[0]
    return {"search": "/public/", "results": "/public/?street=road", "permit": f"/public/permits/{world.issued.number}",
            "map": "/public/map", "form": "/public/report", "report": f"/public/reports/{reference}",
            "sent": f"/public/reports/{reference}?sent=1"}


ENGLISH_ONLY = {msgid for msgid, string in as_dict(po()).items()
                if isinstance(msgid, str) and len(msgid) > 8 and msgid != string}


def left_in_english(body: str) -> list[str]:
    """Source messages (as whole phrases) still in English in a page that should be all Portuguese."""
    words = text_of(body)
    return sorted(m for m in ENGLISH_ONLY if "%(" not in m and m in words)


def test_every_page_is_in_portuguese_by_accept_language_and_by_the_switch(client, pages):
    for name, url in pages.items():
        by_header = client.get(url, headers={"Accept-Language": "pt-PT,pt;q=0.9"})
        body = assert_page(by_header, "pt")
        assert left_in_english(body) == [], name
        joiner = "&" if "?" in url else "?"
        by_switch = client.get(url + joiner + "lang=pt", headers={"Accept-Language": "en-US"})
        assert left_in_english(assert_page(by_switch, "pt")) == [], name
        client.delete_cookie(i18n.COOKIE, path=i18n.COOKIE_PATH)  # the next page chooses by its header again


def test_every_page_is_in_english_by_default(client, pages):
    portuguese = {string for string in as_dict(po()).values() if isinstance(string, str) and len(string) > 12}
    for name, url in pages.items():
        body = assert_page(client.get(url), "en")
        words = text_of(body)
        assert [s for s in portuguese if s in words] == [], name
