"""The public pages (issue 26, README "The public"): search, permit and map pages in English and
Portuguese, readable with no script, holding nothing private, with the pages' own 404s, the strict
Content-Security-Policy and public caching. The report form has its own suite (test_pages_report.py)."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from inspect_api.extensions import db
from inspect_api.permits import services as permit_services
from inspect_api.public import pages

from ..town_clock import TownClock
from .test_pages_support import PAGES, World, assert_page, text_of


@pytest.fixture
def town_clock(monkeypatch):
    return TownClock(monkeypatch)


@pytest.fixture
def world(client, factory, town_clock):
    return World(client, factory)


# --- the search page --------------------------------------------------------------------------------
def test_search_lists_the_public_permits_in_words_and_never_a_draft_or_a_withdrawn_one(client, world):
    r = client.get("/public/")
    body = assert_page(r, "en")
    words = text_of(body)
    assert world.issued.number in body and world.submitted.number in body
    assert f'href="/public/permits/{world.issued.number}"' in body
    assert "12 Harbor View Road" in words and "Permit issued" in words and "Application received" in words
    assert "Land disturbance permit" in words or "Administrative review" in words
    assert "March 2, 2026" in words  # the day the application was received, in words
    assert "Hidden Lane" not in body and "Withdrawn Way" not in body and world.withdrawn.number not in body
    assert r.headers["Cache-Control"] == "public, max-age=300"
    assert {"Accept-Language", "Cookie"} <= set(r.vary)
    assert 'href="/public/map"' in body and 'href="/public/report"' in body


def test_search_filters_by_number_street_and_status(client, world):
    by_number = text_of(assert_page(client.get("/public/", query_string={"q": world.submitted.number.lower()}), "en"))
    assert world.submitted.number in by_number and world.issued.number not in by_number
    assert "1 permit found" in by_number
    by_street = text_of(assert_page(client.get("/public/", query_string={"street": "harbor view"}), "en"))
    assert world.issued.number in by_street and world.submitted.number not in by_street
    body = assert_page(client.get("/public/", query_string={"status": "submitted"}), "en")
    assert world.submitted.number in body and world.issued.number not in body
    assert '<option value="submitted" selected>' in body
    nothing = text_of(assert_page(client.get("/public/", query_string={"q": "no such place"}), "en"))
    assert "0 permits found" in nothing and "No permit matches this search" in nothing
    # A status that is not public (a draft) is not a filter: the page answers, listing the public ones.
    drafts = assert_page(client.get("/public/", query_string={"status": "draft"}), "en")
    assert world.issued.number in drafts and "Hidden Lane" not in drafts


def test_search_pages_by_next_and_first_links(client, world, monkeypatch):
    monkeypatch.setattr(pages, "PAGE_SIZE", 1)
    first = assert_page(client.get("/public/", query_string={"street": "road"}), "en")
    assert "2 permits found" in text_of(first) and "First page" not in first
    next_href = re.search(r'<a href="([^"]+)" rel="next">Next page</a>', first).group(1).replace("&amp;", "&")
    assert "street=road" in next_href and "cursor=" in next_href
    second = assert_page(client.get(next_href), "en")
    both = (world.issued.number, world.submitted.number)

    def listed(body: str) -> list[str]:
        return [n for n in both if f'href="/public/permits/{n}"' in body]

    # Newest filing first: the submitted application, then the issued permit (filed in March).
    assert (listed(first), listed(second)) == ([world.submitted.number], [world.issued.number])
    assert 'rel="next"' not in second and '<a href="/public/?street=road">First page</a>' in second
    # A cursor that this search did not make starts again at the first page rather than failing.
    again = assert_page(client.get("/public/", query_string={"street": "road", "cursor": "not-a-cursor"}), "en")
    assert listed(again) == [world.submitted.number]


# --- the permit page --------------------------------------------------------------------------------
def test_permit_page_says_it_all_in_words_with_its_place_and_a_report_link(client, world):
    number = world.issued.number
    r = client.get(f"/public/permits/{number}")
    body = assert_page(r, "en")
    words = text_of(body)
    assert f"Permit {number}" in words and "12 Harbor View Road" in words
    assert "Status Permit issued" in words and "Application received March 2, 2026" in words
    assert "Decided March 20, 2026" in words and "Certificate of completion Not issued" in words
    assert "Work started" not in words  # a date the permit does not have is left out, not shown blank
    assert "1 open order: install or repair erosion and sediment controls" in words
    assert "latitude 41.63760, longitude -70.90360" in words
    assert ('href="https://www.openstreetmap.org/?mlat=41.63760&amp;mlon=-70.90360#map=18/41.63760/-70.90360"'
            in body)
    # "Report a problem at this site" brings the site's address and point, so the office finds the site.
    assert ('href="/public/report?address=12+Harbor+View+Road,+Fairhaven,+MA+02719&amp;lat=41.637600&amp;'
            'lon=-70.903600"' in body)
    assert '<svg class="sitemap"' in body and 'role="img"' in body and '<path class="limit"' in body
    assert r.headers["Cache-Control"] == "public, max-age=300" and r.headers["ETag"]


def test_permit_page_in_portuguese(client, world):
    body = assert_page(client.get(f"/public/permits/{world.issued.number}", headers={"Accept-Language": "pt-PT"}), "pt")
    words = text_of(body)
    assert f"Licença {world.issued.number}" in words and "Licença emitida" in words
    assert "20 de março de 2026" in words and "Não emitido" in words
    assert "1 ordem em vigor: instalar ou reparar as proteções contra a erosão e os sedimentos" in words
    assert "Comunicar um problema nesta obra" in words and "Ver no OpenStreetMap" in words
    assert "Permit issued" not in words and "Report a problem" not in words


def test_unknown_withdrawn_and_unnumbered_permits_are_the_pages_own_404(client, world):
    for number in ("SW-1999-9999", world.withdrawn.number, "%00x"):
        r = client.get(f"/public/permits/{number}")
        body = assert_page(r, "en", 404)
        assert "No permit open to the public has that number" in body and r.headers["Cache-Control"] == "no-store"
        assert "Withdrawn Way" not in body
    pt = assert_page(client.get(f"/public/permits/{world.withdrawn.number}?lang=pt"), "pt", 404)
    assert "Nenhuma licença pública tem esse número" in pt
    other = assert_page(client.get("/public/no/such/page", headers={"Accept-Language": "pt-BR"}), "pt", 404)
    assert "Não existe nenhuma página neste endereço" in other
    # A method no page takes is refused while routing, before any page is chosen: the app's own 405.
    wrong_method = client.delete("/public/map")
    assert wrong_method.status_code == 405 and set(wrong_method.headers["Allow"].split(", ")) == {"GET", "HEAD",
                                                                                                  "OPTIONS"}


# --- the map ----------------------------------------------------------------------------------------
def test_map_draws_each_active_site_as_a_named_link_and_lists_them(client, world):
    r = client.get("/public/map")
    body = assert_page(r, "en")
    number = world.issued.number
    svg = body[body.index("<svg"):body.index("</svg>")]
    assert 'role="group" aria-labelledby="map-title"' in svg
    assert re.search(rf'<a href="/public/permits/{number}" aria-label="Permit {number}, 12 Harbor View Road, '
                     r'Fairhaven, MA 02719: Permit issued">', svg)
    assert svg.count("<a ") == 1  # a submitted application is not an active site
    assert world.submitted.number not in body
    assert '<path class="limit" d="M ' in svg and 'class="point"' in svg
    view = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    x, y = (float(v) for v in re.search(r'<circle class="point" cx="([-\d.]+)" cy="([-\d.]+)"', svg).groups())
    assert view[0] < x < view[0] + view[2] and view[1] < y < view[1] + view[3]
    assert re.search(r"North is up; the bar is \d+ m long\.", text_of(body))
    listed = body[body.index('id="list-title"'):]
    assert f'<a href="/public/permits/{number}">{number}</a>' in listed
    assert r.headers["Cache-Control"] == "public, max-age=300"


def test_map_in_portuguese_and_with_no_active_site(client, world):
    body = assert_page(client.get("/public/map?lang=pt"), "pt")
    name = f"Licença {world.issued.number}, 12 Harbor View Road, Fairhaven, MA 02719: Licença emitida"
    assert f'aria-label="{name}"' in body
    assert "O norte fica para cima" in body
    permit_services.force_status(world.issued, "closed")
    db.session.commit()
    empty = assert_page(client.get("/public/map?lang=en"), "en")
    assert "<svg" not in empty and "No site is active at the moment." in empty


def test_site_map_projects_north_up_and_east_right_around_the_sites_centre(app):
    with app.test_request_context("/public/map"):
        drawing = pages.site_map([
            {"number": "A", "site": {"lat": 41.0, "lon": -70.0}, "limit_of_work": None},
            {"number": "B", "site": {"lat": 41.01, "lon": -69.99}, "limit_of_work": None},
            {"number": "C", "site": None, "limit_of_work": None}], links=True)
    a, b = drawing["sites"]
    assert (a["n"], b["n"]) == (1, 2)  # C, with no place, keeps its number in the list and is not drawn
    assert b["x"] > a["x"] and b["y"] < a["y"]  # B lies north-east of A
    assert a["x"] == -b["x"] and a["y"] == -b["y"]  # the centre between them is the origin
    assert abs((b["y"] - a["y"]) + 1113.2) < 0.5  # 0.01 degree of latitude, in metres
    assert drawing["bar"] <= drawing["box"][2] / 4 and b["href"] == "/public/permits/B"
    assert pages.site_map([{"number": "C", "site": None, "limit_of_work": None}]) is None


# --- nothing private, anywhere ----------------------------------------------------------------------
def test_no_page_shows_anything_private(client, world):
    urls = [*PAGES, f"/public/permits/{world.issued.number}", f"/public/permits/{world.submitted.number}",
            "/public/?street=road", f"/public/?q={world.issued.number}", "/public/?status=issued",
            f"/public/report?address={world.issued.site_address}"]
    for url in urls:
        for language in ("en", "pt"):
            r = client.get(url, headers={"Accept-Language": language})
            assert r.status_code == 200, url
            text = r.get_data(as_text=True) + "\n".join(f"{k}: {v}" for k, v in r.headers.items())
            assert sorted(s for s in world.secrets if s.lower() in text.lower()) == [], url


# --- language, caching, headers ---------------------------------------------------------------------
def test_language_from_the_switch_the_cookie_and_accept_language(client, world):
    assert_page(client.get("/public/"), "en")
    assert_page(client.get("/public/", headers={"Accept-Language": "fr-FR, de;q=0.8"}), "en")
    assert_page(client.get("/public/", headers={"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}), "pt")
    assert_page(client.get("/public/", headers={"Accept-Language": "en-US,en;q=0.9,pt;q=0.5"}), "en")
    switched = client.get("/public/map?lang=pt")
    assert_page(switched, "pt")
    cookie = switched.headers["Set-Cookie"]
    assert cookie.startswith("public_lang=pt;") and "HttpOnly" in cookie and "Path=/public" in cookie
    assert "SameSite=Lax" in cookie
    # The answer that sets the cookie is kept by the browser only, never by a shared cache.
    assert switched.headers["Cache-Control"] == "private, max-age=300"
    # The next page, with no ?lang= and an English browser, stays in Portuguese (the cookie).
    later = client.get("/public/", headers={"Accept-Language": "en-US"})
    assert_page(later, "pt")
    assert "Set-Cookie" not in later.headers and later.headers["Cache-Control"] == "public, max-age=300"
    assert_page(client.get("/public/?lang=en"), "en")
    assert_page(client.get("/public/"), "en")
    assert_page(client.get("/public/?lang=xx"), "en")  # an unknown language changes nothing


def test_the_switch_keeps_the_search(client, world):
    body = assert_page(client.get("/public/", query_string={"street": "mill road", "status": "submitted"}), "en")
    assert 'href="/public/?street=mill+road&amp;status=submitted&amp;lang=pt"' in body


def test_unchanged_pages_answer_304_to_their_etag(client, world):
    first = client.get(f"/public/permits/{world.issued.number}")
    etag = first.headers["ETag"]
    again = client.get(f"/public/permits/{world.issued.number}", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    other = client.get(f"/public/permits/{world.issued.number}", headers={"If-None-Match": etag,
                                                                          "Accept-Language": "pt"})
    assert other.status_code == 200 and "Licença emitida" in other.get_data(as_text=True)


def test_static_files_and_the_document_leaves_the_pages_out(client):
    css = client.get("/public/static/public.css")
    assert css.status_code == 200 and css.headers["Content-Type"].startswith("text/css")
    assert ":focus-visible" in css.get_data(as_text=True)
    assert css.headers["Cache-Control"] == "public, max-age=300"
    assert "script-src 'self'" in css.headers["Content-Security-Policy"]
    js = client.get("/public/static/locate.js")
    assert js.status_code == 200 and "navigator.geolocation" in js.get_data(as_text=True)
    assert client.get("/public/static/../pages.py").status_code == 404
    spec = client.get("/api/v1/openapi.json").get_json()
    assert not [path for path in spec["paths"] if path.startswith("/public")]
    assert "/api/v1/public/permits" in spec["paths"]


def test_dates_are_the_town_calendar_in_each_language(app):
    from flask_babel import refresh

    from inspect_api.public import i18n
    with app.test_request_context("/public/", headers={"Accept-Language": "pt"}):
        refresh()
        assert i18n.long_date("2026-05-04") == "4 de maio de 2026"
        # 02:30 UTC on 5 May is 22:30 on 4 May in Fairhaven.
        assert i18n.long_date(datetime(2026, 5, 5, 2, 30, tzinfo=UTC)) == "4 de maio de 2026, 22:30"
        assert i18n.long_date(None) == ""
    with app.test_request_context("/public/"):
        refresh()
        assert i18n.long_date(date(2026, 5, 4)) == "May 4, 2026"
        assert i18n.words(i18n.PERMIT_STATUSES, "mystery") == "mystery"
