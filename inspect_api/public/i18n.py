"""The public pages' language: English or Portuguese, from gettext catalogs (Flask-Babel).

A page's language is, in this order: `?lang=` (and the browser then keeps it in a cookie, so the
next page stays in it), the cookie, the first of `Accept-Language` the pages speak, English.
Fairhaven's Portuguese-speaking community is largely Azorean and Portuguese; the catalog's wording
suits both European and Brazilian readers.

The catalogs live beside this module (translations/pt/LC_MESSAGES/messages.po and its compiled
.mo, both shipped in the wheel). Outside a request (the worker, the CLI) no language is chosen
and the text is English unless a caller forces one (flask_babel.force_locale).
"""
from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask, has_request_context, request
from flask_babel import Babel, format_date, format_time, get_babel, get_locale
from flask_babel import lazy_gettext as _l

from .. import clock
from .models import LANGUAGES

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
DEFAULT_LANGUAGE = "en"
COOKIE = "public_lang"
COOKIE_PATH = "/public"
COOKIE_MAX_AGE = 365 * 24 * 3600
# Each language named in itself, so a reader finds theirs whatever the page's language.
NAMES = {"en": "English", "pt": "Português"}


def _valid(value: str | None) -> str | None:
    value = (value or "").strip().lower()
    return value if value in LANGUAGES else None


def requested_language() -> str | None:
    """The language the address asks for (`?lang=pt`), if it is one the pages speak."""
    return _valid(request.args.get("lang")) if has_request_context() else None


def select_locale() -> str | None:
    if not has_request_context():
        return None
    return requested_language() or _valid(request.cookies.get(COOKIE)) or accepted_language()


def accepted_language() -> str:
    """The first language of Accept-Language, by the reader's own order of preference, that the pages
    speak, by its primary subtag: "pt-PT,en;q=0.9" is Portuguese. (werkzeug's best_match would take
    the exact "en" over the better-liked "pt-PT".)"""
    for value, quality in request.accept_languages:
        primary = value.replace("_", "-").split("-")[0].strip().lower()
        if quality > 0 and primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def select_timezone() -> str:
    """Times are shown in the Town's zone (configuration TIMEZONE), by name: Flask-Babel wants pytz's."""
    return clock.town_zone().key


def current_language() -> str:
    locale = get_locale()
    return _valid(locale.language if locale else None) or DEFAULT_LANGUAGE


def init_app(app: Flask) -> None:
    """Set Flask-Babel up on `app` with the public catalogs; when another part of the app has set it
    up already, add the public catalogs to its directories instead of replacing its configuration."""
    if "babel" not in app.extensions:
        app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
        Babel(app, locale_selector=select_locale, timezone_selector=select_timezone)
    directories = get_babel(app).translation_directories
    if str(TRANSLATIONS) not in directories:
        directories.append(str(TRANSLATIONS))


def remember(response):
    """After a page chosen by `?lang=`, keep the choice for the pages that follow (path /public only;
    no script reads it)."""
    chosen = requested_language()
    if chosen and request.cookies.get(COOKIE) != chosen:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE, path=COOKIE_PATH, secure=request.is_secure,
                            httponly=True, samesite="Lax")
    return response


def switch_links() -> list[dict]:
    """The language switch: this page's address in each other language (the query kept, `lang` set)."""
    current = current_language()
    query = [(key, value) for key, value in request.args.items(multi=True) if key != "lang"]
    links = []
    for code in LANGUAGES:
        if code == current:
            continue
        links.append({"code": code, "name": NAMES[code],
                      "href": request.script_root + request.path + "?" + urlencode(query + [("lang", code)])})
    return links


# --- the records' codes in words --------------------------------------------------------------------
# Lazy: looked up in the page's language when a template shows them. Drafts and withdrawn
# applications are never public, so they have no words here.
REVIEW_LEVELS = {
    "not_covered": _l("Not covered by the stormwater bylaw"),
    "exempt": _l("Exempt from a permit"),
    "administrative_review": _l("Administrative review (smaller project)"),
    "land_disturbance_permit": _l("Land disturbance permit"),
}
PERMIT_STATUSES = {
    "submitted": _l("Application received"),
    "under_review": _l("Under review by the Town"),
    "approved": _l("Approved"),
    "issued": _l("Permit issued"),
    "denied": _l("Denied"),
    "active": _l("Work under way"),
    "work_complete": _l("Work complete, final inspection pending"),
    "closed": _l("Closed"),
    "unpermitted": _l("Enforcement case: work without a permit"),
}
ORDER_KINDS = {
    "cease_and_desist": _l("stop work (cease and desist)"),
    "controls": _l("install or repair erosion and sediment controls"),
    "monitoring": _l("monitoring"),
    "remediation": _l("repair the damage (remediation)"),
    "other": _l("other requirements"),
}
REPORT_STATUSES = {
    "received": _l("Received: waiting for the office to look at it"),
    "linked": _l("Passed to an inspector, who will visit the site"),
    "case_opened": _l("The Town opened an enforcement case"),
    "closed": _l("Closed: the Town has dealt with it"),
}


def words(table: dict, code: str | None) -> str:
    """`code` in words from `table`; an unknown code as it is rather than a blank."""
    return str(table[code]) if code in table else (code or "")


def long_date(value) -> str:
    """An ISO date (or date, or datetime) as the page's language writes it: May 4, 2026 / 4 de maio de 2026."""
    if not value:
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value) if "T" in value else date.fromisoformat(value)
    if isinstance(value, datetime):  # shown in the Town's time
        return f"{format_date(value, 'long')}, {format_time(value, 'short')}"
    return format_date(value, "long")
