"""The report form and the report's page (issue 26, README "The public"): a resident reports what they
saw with no account and no script, in English or Portuguese; a mistake brings the form back with what
they typed and each field's problem in their language; the report reaches the office's queue with its
photo; the hidden field, the photo limits and the per-client limit hold; the reference page shows the
status in words and the Town's answer."""
from __future__ import annotations

import re

import pytest

from inspect_api.extensions import db
from inspect_api.public.models import PublicReport, PublicReportPhoto

from ..photos.helpers import jpeg
from ..town_clock import TownClock
from .test_pages_support import FORM, assert_page, send, text_of

REFERENCE = re.compile(r"R-2026-\d{4}-[A-Z2-9]{4}")


@pytest.fixture(autouse=True)
def town_clock(monkeypatch):
    return TownClock(monkeypatch)


def reports() -> list[PublicReport]:
    db.session.expire_all()
    return list(db.session.scalars(db.select(PublicReport)))


def labelled_fields(body: str) -> tuple[set[str], set[str]]:
    form = body[body.index('<form class="report"'):body.index("</form>")]
    ids = set(re.findall(r'<(?:input|textarea|select)[^>]*\bid="([^"]+)"', form))
    hidden = set(re.findall(r'<input type="hidden" id="([^"]+)"', form))
    labels = set(re.findall(r'<label for="([^"]+)"', form))
    return ids - hidden, labels


# --- the form ---------------------------------------------------------------------------------------
def test_the_form_in_english_labels_every_field_and_hides_the_trap_properly(client):
    r = client.get(FORM, query_string={"address": "12 Harbor View Road"})
    body = assert_page(r, "en")
    assert r.headers["Cache-Control"] == "no-store"
    fields, labels = labelled_fields(body)
    assert fields == labels and {"description", "address", "lat", "lon", "observed_at", "photos", "name", "email",
                                 "phone", "website"} <= fields
    assert 'method="post" action="/public/report" enctype="multipart/form-data"' in body
    # A photo taken before the form was opened may be chosen as well as a new one: no `capture`.
    assert '<input id="photos" name="photos" type="file" accept="image/*" multiple aria-describedby' in body
    assert ('name="address" type="text" maxlength="200" autocomplete="street-address" value="12 Harbor View Road"'
            in body)
    assert '<input type="datetime-local"' not in body and 'type="datetime-local" max="2026-05-04T12:00"' in body
    # The trap: out of sight, out of the tab order and of the accessibility tree, never autofilled.
    trap = body[body.index('<div class="trap" aria-hidden="true">'):]
    assert '<input id="website" name="website" type="text" tabindex="-1" autocomplete="off" value="">' in trap[:300]
    words = text_of(body)
    assert "they are erased 365 days after your report is closed" in words
    assert "Use my location" in body and '<div class="locate" hidden data-locate' in body  # shown by the script only
    assert '<script type="module" src="/public/static/locate.js"></script>' in body


def test_the_form_in_portuguese_says_how_long_contact_details_are_kept(client, app):
    app.config["PUBLIC_REPORT_CONTACT_DAYS"] = 1
    body = assert_page(client.get(FORM, headers={"Accept-Language": "pt-PT"}), "pt")
    words = text_of(body)
    assert "Comunicar um problema numa obra" in words and "Enviar a comunicação" in words
    assert "são apagados 1 dia depois de a sua comunicação ser encerrada" in words
    assert "Usar a minha localização" in body and "Deixe este campo em branco" in body
    assert "Report a problem" not in words


# --- mistakes ---------------------------------------------------------------------------------------
def test_mistakes_come_back_with_what_was_typed_and_each_fields_problem_in_portuguese(client):
    r = send(client, "pt-PT", description="   ", email="not-an-address", name='Maria <b>"Silva"</b>', phone="call me",
             observed_at="2026-05-03T09:30")
    body = assert_page(r, "pt", 422)
    assert r.headers["Cache-Control"] == "no-store"
    start = body.index('class="error-summary"')
    summary = text_of(body[start:body.index("</div>", start)])
    assert "A sua comunicação ainda não foi enviada" in summary
    assert "Diga o que viu" in summary and "Indique um endereço de e-mail como nome@exemplo.com." in summary
    assert "Indique um número de telefone" in summary
    assert "<title>Erro: " in body
    # What they typed is kept, escaped, and each bad field says so to assistive technology.
    assert 'value="not-an-address" aria-describedby="email-error" aria-invalid="true"' in body
    assert 'value="Maria &lt;b&gt;&#34;Silva&#34;&lt;/b&gt;"' in body
    assert 'value="call me" aria-describedby="phone-error" aria-invalid="true"' in body
    assert 'value="2026-05-03T09:30"' in body
    assert '<p class="error" id="description-error">Diga o que viu, em 4000 caracteres no máximo.</p>' in body
    assert 'href="#email"' in body
    assert reports() == []


def test_a_report_with_no_place_says_so_once_at_the_address(client):
    body = assert_page(send(client, "pt", description="Lama na rua"), "pt", 422)
    start = body.index('class="error-summary"')
    summary = text_of(body[start:body.index("</ul>", start)])
    assert "Indique a morada ou um local próximo (200 caracteres no máximo), ou uma localização." in summary
    assert "latitude" not in summary and "longitude" not in summary  # no place at all is said once
    assert 'value="" aria-describedby="address-error" aria-invalid="true"' in body
    assert reports() == []


def test_half_a_point_and_a_time_to_come_are_refused_in_english(client):
    body = assert_page(send(client, description="Mud in the street", lat="41.6376", observed_at="2026-05-04T18:00"),
                       "en", 422)
    words = text_of(body)
    assert "Give the longitude as a number between -180 and 180, with the latitude too." in words
    assert "Give the date and time you saw it, not in the future." in words
    assert "Give the address" not in words and "Say what you saw" not in words
    assert "Mud in the street</textarea>" in body and 'value="41.6376"' in body
    assert reports() == []


def test_too_many_photos_too_large_a_photo_or_an_unreadable_one_say_so_at_the_photos(client, app):
    four = [(f"p{i}.jpg", jpeg()) for i in range(4)]
    body = assert_page(send(client, description="Mud", address="Main Street", photos=four), "en", 422)
    assert "Attach at most three photos." in body and "What you typed could not be kept" in body
    broken = assert_page(send(client, "pt", description="Lama na rua", address="Main Street",
                              photos=[("site.jpg", b"this is not a picture at all")]), "pt", 422)
    assert "Não foi possível ler uma fotografia como imagem" in broken
    assert "Lama na rua</textarea>" in broken and "Se anexou fotografias, anexe-as de novo" in broken
    app.config["MAX_UPLOAD_BYTES"] = 2000
    photo = jpeg((640, 480))
    assert len(photo) > 2000
    large = send(client, description="Mud", address="Main Street", photos=[("big.jpg", photo)])
    body = assert_page(large, "en", 413)
    assert "The photos are too large. Send fewer or smaller ones." in body and "What you typed could not be kept" in body
    assert reports() == []


# --- a report sent ----------------------------------------------------------------------------------
def test_a_report_with_a_photo_reaches_the_office_and_its_reference_is_shown(client, factory):
    r = send(client, "pt-BR", photos=[("lama.jpg", jpeg((640, 480)))], description="Água com lama a sair da obra",
             address="12 Harbor View Road", lat="41.6376", lon="-70.9036", accuracy_m="8",
             observed_at="2026-05-04T09:15", name="Maria Silva", email="maria@example.org", phone="508-555-0101")
    assert r.status_code == 303, r.get_data(as_text=True)[:500]
    location = r.headers["Location"]
    reference = REFERENCE.search(location).group(0)
    assert location.endswith(f"/public/reports/{reference}?sent=1")
    [report] = reports()
    assert (report.reference, report.status, report.language) == (reference, "received", "pt")
    assert (report.description, report.address, report.lat, report.lon, report.accuracy_m) == (
        "Água com lama a sair da obra", "12 Harbor View Road", 41.6376, -70.9036, 8.0)
    assert (report.contact_name, report.contact_email, report.contact_phone) == ("Maria Silva", "maria@example.org",
                                                                                  "508-555-0101")
    assert report.observed_at.isoformat() == "2026-05-04T13:15:00+00:00"  # 09:15 in Fairhaven
    assert db.session.scalar(db.select(db.func.count()).select_from(PublicReportPhoto)) == 1
    # The office's queue has it.
    _, sup = factory.as_role("supervisor")
    queue = client.get("/api/v1/public-reports", headers=sup)
    assert queue.status_code == 200
    [listed] = [item for item in queue.get_json() if item["reference"] == reference]
    assert listed["description"] == "Água com lama a sair da obra" and len(listed["photos"]) == 1
    # The page it lands on: the reference first, then what happens next, in Portuguese.
    page = client.get(location, headers={"Accept-Language": "pt-BR"})
    body = assert_page(page, "pt")
    assert page.headers["Cache-Control"] == "no-store"
    assert f'<p class="reference">{reference}</p>' in body
    words = text_of(body)
    assert "Obrigado: a sua comunicação foi recebida" in words and "O que acontece a seguir" in words
    assert "Recebida: aguarda a análise dos serviços" in words and "4 de maio de 2026, 12:00" in words
    assert "Maria" not in body and "maria@example.org" not in body and "508-555-0101" not in body


def test_a_robot_that_fills_the_hidden_field_is_shown_a_receipt_for_a_report_kept_nowhere(client):
    r = send(client, description="Buy cheap watches", address="Main Street", website="http://spam.example")
    body = assert_page(r, "en")
    reference = REFERENCE.search(body).group(0)
    assert "Thank you: your report was received" in text_of(body)
    assert reports() == []
    assert client.get(f"/public/reports/{reference}").status_code == 404


def test_the_form_and_the_api_share_one_limit_per_client_and_mistakes_do_not_count(client, app):
    app.config["PUBLIC_REPORT_RATE_LIMIT"] = "2 per hour"

    def alone(call):
        # Each request in an app context of its own, as a server runs it (the test's own context would
        # otherwise carry one request's `g` into the next).
        with app.app_context():
            return call()

    for _ in range(3):
        assert alone(lambda: send(client, description="", address="Main Street")).status_code == 422
    api = alone(lambda: client.post("/api/v1/public/reports", json={"description": "Mud", "address": "Main Street"}))
    assert api.status_code == 201, api.get_json()
    assert alone(lambda: send(client, description="More mud", address="Main Street")).status_code == 303
    refused = alone(lambda: send(client, "pt", description="Ainda mais lama", address="Main Street"))
    body = assert_page(refused, "pt", 429)
    assert "Chegaram demasiadas comunicações da sua ligação à internet" in text_of(body)
    assert int(refused.headers["Retry-After"]) > 0 and refused.headers["Cache-Control"] == "no-store"
    assert sorted(r.description for r in reports()) == ["More mud", "Mud"]


# --- the report's page ------------------------------------------------------------------------------
def test_the_report_page_shows_the_status_in_words_and_the_towns_answer(client, factory):
    reference = REFERENCE.search(send(client, description="Mud", address="Main Street").headers["Location"]).group(0)
    before = assert_page(client.get(f"/public/reports/{reference}"), "en")
    assert "Received: waiting for the office to look at it" in text_of(before) and "No answer yet" in before
    assert "Thank you" not in before  # only the page a report lands on thanks
    _, sup = factory.as_role("supervisor")
    [report] = reports()
    triaged = client.post(f"/api/v1/public-reports/{report.id}/triage", headers=sup, json={
        "action": "close", "answer": "We visited on May 5; the silt fence was repaired.", "note": "Zqx office only",
        "version": report.version})
    assert triaged.status_code == 200, triaged.get_json()
    after = assert_page(client.get(f"/public/reports/{reference.lower()}", headers={"Accept-Language": "pt"}), "pt")
    words = text_of(after)
    assert "Encerrada: o Município já tratou do assunto" in words
    assert '<p class="answer">We visited on May 5; the silt fence was repaired.</p>' in after
    assert "Zqx office only" not in after


def test_the_lookup_form_goes_to_the_report_and_unknown_references_are_404(client):
    reference = REFERENCE.search(send(client, description="Mud", address="Main Street").headers["Location"]).group(0)
    found = client.get("/public/reports", query_string={"reference": f"  {reference.lower()} "})
    assert found.status_code == 303 and found.headers["Location"].endswith(f"/public/reports/{reference}")
    assert client.get(found.headers["Location"]).status_code == 200
    wrong = reference[:-4] + ("AAAA" if not reference.endswith("AAAA") else "BBBB")
    missing = assert_page(client.get(f"/public/reports/{wrong}"), "en", 404)
    assert "No report has that reference" in missing and reference not in missing
    pt = assert_page(client.get(f"/public/reports/{wrong}?lang=pt"), "pt", 404)
    assert "Nenhuma comunicação tem essa referência" in pt
    assert_page(client.get("/public/reports", query_string={"reference": "  "}), "pt", 404)
    search = assert_page(client.get("/public/?lang=en"), "en")
    assert '<form class="lookup" method="get" action="/public/reports">' in search


@pytest.mark.parametrize(("query", "lat", "lon"), [
    ("lat=41.6376&lon=-70.9036", "41.637600", "-70.903600"),
    ("lat=91&lon=-70.9036", "", ""), ("lat=nan&lon=1", "", ""), ("lat=abc&lon=-70.9", "", ""), ("lat=41.6", "", "")])
def test_the_place_a_permit_page_sends_fills_the_form_and_a_point_that_is_none_is_left_out(client, query, lat, lon):
    body = assert_page(client.get(f"/public/report?address=40+Center+Street&{query}"), "en")
    assert 'id="address" name="address" type="text" maxlength="200" autocomplete="street-address" ' \
           'value="40 Center Street"' in body
    assert re.search(rf'id="lat" name="lat" [^>]*value="{re.escape(lat)}"', body)
    assert re.search(rf'id="lon" name="lon" [^>]*value="{re.escape(lon)}"', body)
