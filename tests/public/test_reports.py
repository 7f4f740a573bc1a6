"""Reports from residents through POST /api/v1/public/reports (API.md "Public"): a JSON body or the
form's multipart/form-data with up to three photos, no sign-in, 201 {reference, status}; the fields'
edges; the language; the hidden field robots fill; and what the author may read back."""
from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
import sqlalchemy as sa
from PIL import Image

from inspect_api import clock
from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.public import rules
from inspect_api.public.models import PublicReportPhoto

from .test_reports_support import (API, NOTHING, QUEUE, REPORTS, assert_error, body, config, form,  # noqa: F401
                                   phone_photo, post_form, post_json, report_of, stored, submit, town_clock)

REFERENCE = re.compile(r"^R-2026-\d{4}-[A-HJKMNP-Z2-9]{4}$")


# -- JSON -------------------------------------------------------------------------------------------------------
def test_a_json_report_needs_no_account_and_is_numbered_with_an_unguessable_reference(app, client, town_clock):
    r = post_json(client, body(contact={"name": "Ana Silva", "email": "ana@example.org", "phone": "(508) 555-0100"}))
    assert r.status_code == 201, r.get_json()
    receipt = r.get_json()
    assert set(receipt) == {"reference", "status"} and receipt["status"] == "received"
    assert REFERENCE.fullmatch(receipt["reference"]) and receipt["reference"].startswith("R-2026-0001-")
    second = submit(client, body(location=None, address="Behind 12 Bridge Street"))
    assert second["reference"].startswith("R-2026-0002-")
    report = report_of(receipt["reference"])
    assert (report.status, report.language, report.lat, report.lon, report.accuracy_m) == (
        "received", "en", 41.6379, -70.9032, 8.0)
    assert report.observed_at == clock.now() - timedelta(minutes=30)  # 09:30 EDT, the clock is 10:00
    assert (report.contact_name, report.contact_email, report.contact_phone) == (
        "Ana Silva", "ana@example.org", "(508) 555-0100")
    assert report_of(second["reference"]).address == "Behind 12 Bridge Street"
    # The audit row says what came, never who: a contact is erased later, an audit row never is.
    row = db.session.scalar(sa.select(AuditEntry).where(AuditEntry.record_id == report.id))
    assert (row.action, row.actor_id, row.record_type) == ("public_report.create", None, "public_report")
    assert row.changes == {"reference": report.reference, "language": "en", "photos": 0, "location": True,
                           "address": False, "contact_left": True}
    assert "ana@example.org" not in str(row.changes) and "Ana Silva" not in str(row.changes)


@pytest.mark.parametrize("change, field", [
    ({"location": None, "address": None}, "location"),      # neither a point nor an address
    ({"location": None, "address": "   "}, "address"),
    ({"location": {"lat": 91, "lon": -70.9}}, "location"),
    ({"location": {"lat": 41.6, "lon": -180.5}}, "location"),
    ({"location": {"lat": 41.6}}, "location"),
    ({"description": ""}, "description"),
    ({"description": "   \n "}, "description"),
    ({"description": "x" * (rules.DESCRIPTION_MAX + 1)}, "description"),
    ({"contact": {"email": "not an address"}}, "contact"),
    ({"contact": {"email": "root@localhost"}}, "contact"),
    ({"contact": {"phone": "call me maybe"}}, "contact"),
    ({"language": "fr"}, "language"),
    ({"observed_at": "2026-05-04T09:30:00"}, "observed_at"),  # no offset
    ({"colour": "brown"}, "colour"),                          # an unknown field is refused, not ignored
])
def test_fields_a_report_is_refused_for_name_the_field_and_store_nothing(app, client, town_clock, change, field):
    r = post_json(client, body(**change))
    assert_error(r, 422, "validation_error", field)
    assert stored(app) == NOTHING


def test_a_lat_of_91_names_lat_inside_location(client, town_clock):
    r = post_json(client, body(location={"lat": 91, "lon": -70.9}))
    assert assert_error(r, 422, "validation_error")["errors"] == {"location": {"lat": ["Must be greater than or equal "
                                                                                      "to -90 and less than or equal "
                                                                                      "to 90."]}}


def test_the_description_may_be_exactly_its_maximum(app, client, town_clock):
    receipt = submit(client, body(description="x" * rules.DESCRIPTION_MAX))
    assert len(report_of(receipt["reference"]).description) == rules.DESCRIPTION_MAX
    assert_error(post_json(client, body(description="x" * (rules.DESCRIPTION_MAX + 1))), 422, "validation_error",
                 "description")


def test_when_it_was_seen_may_not_be_in_the_future_beyond_a_phones_clock_drift(app, client, town_clock):
    now = clock.now()
    ahead = now + rules.OBSERVED_AHEAD
    assert submit(client, body(observed_at=ahead.isoformat()))["status"] == "received"
    r = post_json(client, body(observed_at=(ahead + timedelta(seconds=1)).isoformat()))
    assert assert_error(r, 422, "validation_error")["errors"] == {"observed_at": [
        "When you saw it cannot be in the future."]}
    r = post_json(client, body(observed_at=(now + timedelta(days=1)).isoformat(), description=""))
    assert set(assert_error(r, 422, "validation_error")["errors"]) == {"observed_at", "description"}  # all at once
    assert stored(app)["reports"] == 1


def test_nul_is_refused_in_json_and_in_the_form(app, client, town_clock):
    r = post_json(client, body(description="mud\u0000water"))
    assert assert_error(r, 422, "validation_error")["errors"] == {"json": ["Contains \\u0000."]}
    r = post_form(client, form(description="mud\x00water"))
    assert assert_error(r, 422, "validation_error")["errors"] == {"description": ["May not contain NUL characters."]}
    assert stored(app) == NOTHING


def test_a_body_that_is_neither_json_nor_a_form_is_415_and_a_json_array_422(client, town_clock):
    r = client.post(REPORTS, data=b"description=mud", content_type="application/x-www-form-urlencoded")
    assert_error(r, 415, "unsupported_media_type", "Content-Type")
    assert_error(post_json(client, ["mud"]), 422, "validation_error", "json")
    r = client.post(REPORTS, data=b"--x\r\nbroken", content_type="multipart/form-data")  # no boundary
    assert_error(r, 400, "bad_request", "Content-Type")


@pytest.mark.parametrize("sent, accept, language", [
    ({"language": "pt"}, None, "pt"),
    ({}, "pt-PT,pt;q=0.9,en;q=0.5", "pt"),
    ({}, "pt-BR", "pt"),
    ({}, "pt-PT,en;q=0.9", "pt"),          # the reader's own order, by the primary subtag
    ({"language": "en"}, "pt-PT", "en"),   # the resident's choice wins over the browser's
    ({}, "fr-FR,fr", "en"),
    ({}, None, "en"),
])
def test_the_language_is_the_one_chosen_else_the_browsers_else_english(client, town_clock, sent, accept, language):
    headers = {"Accept-Language": accept} if accept else {}
    receipt = submit(client, body(**sent), headers=headers)
    assert report_of(receipt["reference"]).language == language


# -- the form, with photos ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_form_takes_up_to_three_photos_with_their_gps_kept_for_staff_only(app, client, factory, town_clock,
                                                                              count):
    photos = [(phone_photo(lat=41.6381 + i / 10000, lon=-70.9030), f"IMG_{i}.JPG") for i in range(count)]
    r = post_form(client, form(language="pt"), photos)
    assert r.status_code == 201, r.get_json()
    report = report_of(r.get_json()["reference"])
    assert (report.language, report.lat, report.lon, report.accuracy_m) == ("pt", 41.6379, -70.9032, 12.0)
    assert report.observed_at.isoformat() == "2026-05-04T13:15:00+00:00"  # 09:15 in the Town (EDT)
    rows = db.session.scalars(sa.select(PublicReportPhoto).where(PublicReportPhoto.report_id == report.id)
                              .order_by(PublicReportPhoto.position)).all()
    assert [p.position for p in rows] == list(range(1, count + 1))
    for i, photo in enumerate(rows):
        assert (photo.content_type, photo.width, photo.height) == ("image/jpeg", 96, 72)
        assert (round(photo.exif_lat, 4), round(photo.exif_lon, 4)) == (round(41.6381 + i / 10000, 4), -70.903)
        assert photo.taken_at.isoformat() == "2026-05-04T13:14:00+00:00"
    _, headers = factory.as_role("supervisor")
    shown = client.get(f"{QUEUE}/{report.id}", headers=headers).get_json()["photos"]
    original = client.get(shown[0]["url"], headers=headers)
    assert original.status_code == 200 and original.data == photos[0][0]  # byte for byte, EXIF and all
    assert Image.open(io.BytesIO(original.data)).getexif().get_ifd(0x8825)  # GPS IFD
    for key in ("display_url", "small_url"):
        derivative = client.get(shown[0][key], headers=headers)
        assert derivative.status_code == 200 and derivative.mimetype == "image/jpeg"
        assert dict(Image.open(io.BytesIO(derivative.data)).getexif()) == {}  # no GPS, no time, nothing
    assert stored(app)["spooled"] == []


def test_a_fourth_photo_is_refused_and_nothing_is_kept(app, client, town_clock):
    r = post_form(client, form(), [(phone_photo(), f"IMG_{i}.JPG") for i in range(4)])
    assert assert_error(r, 422, "validation_error")["errors"] == {"photos": ["At most 3 photos."]}
    assert stored(app) == NOTHING


def test_a_file_input_left_empty_is_no_photo(app, client, town_clock):
    r = client.post(REPORTS, data={**form(), "photos": (io.BytesIO(b""), "")}, content_type="multipart/form-data")
    assert r.status_code == 201, r.get_json()
    assert stored(app)["photos"] == 0 and stored(app)["spooled"] == []


def test_the_forms_fields_are_named_in_its_errors(app, client, town_clock):
    r = post_form(client, form(lat="91", email="not-an-address", phone="call me", observed_at="yesterday"))
    assert set(assert_error(r, 422, "validation_error")["errors"]) == {"observed_at"}  # a time it cannot read
    r = post_form(client, form(lat="91", email="not-an-address", phone="call me"))
    assert set(assert_error(r, 422, "validation_error")["errors"]) == {"lat", "email", "phone"}
    r = post_form(client, form(lat="", lon="", address=""))
    assert set(assert_error(r, 422, "validation_error")["errors"]) == {"lat", "address"}
    r = post_form(client, form(observed_at="2026-05-05T09:15"))
    assert assert_error(r, 422, "validation_error")["errors"] == {"observed_at": [
        "When you saw it cannot be in the future."]}
    assert stored(app) == NOTHING


# -- the hidden field robots fill ------------------------------------------------------------------------------
@pytest.mark.parametrize("send", ["json", "form"])
def test_a_filled_honeypot_is_answered_like_a_report_and_kept_nowhere(app, client, town_clock, send):
    if send == "json":
        r = post_json(client, body(website="http://cheap-pills.example", contact={"email": "bot@example.org"}))
    else:
        r = post_form(client, form(website="http://cheap-pills.example", email="bot@example.org"),
                      [(phone_photo(), "IMG_1.JPG")])
    assert r.status_code == 201, r.get_json()
    receipt = r.get_json()
    assert receipt["status"] == "received" and REFERENCE.fullmatch(receipt["reference"])
    assert stored(app) == NOTHING  # no row, no photo, no audit row, no message, no number taken
    assert_error(client.get(f"{REPORTS}/{receipt['reference']}"), 404, "not_found")
    assert submit(client)["reference"].startswith("R-2026-0001-")


# -- reading it back ---------------------------------------------------------------------------------------------
def test_the_author_reads_the_status_by_reference_in_any_case(client, factory, town_clock):
    receipt = submit(client)
    reference = receipt["reference"]
    for asked in (reference, reference.lower(), f"%20{reference.lower()}%20"):
        r = client.get(f"{REPORTS}/{asked}")
        assert r.status_code == 200, r.get_json()
        assert r.get_json() == {"reference": reference, "status": "received", "received_at": "2026-05-04T14:00:00+00:00"}
    assert client.get(f"{REPORTS}/{reference}").headers["Cache-Control"] == "no-store"


def test_a_neighbours_number_with_other_letters_is_404(client, town_clock):
    first, second = submit(client)["reference"], submit(client)["reference"]
    number = rules.report_number(second)
    for letters in ("AAAA", "ZZZZ", first.rsplit("-", 1)[1]):
        if letters != second.rsplit("-", 1)[1]:
            assert_error(client.get(f"{REPORTS}/{number}-{letters}"), 404, "not_found")
    assert_error(client.get(f"{REPORTS}/{number}"), 404, "not_found")  # the number alone reads nothing
    assert_error(client.get(f"{REPORTS}/{'R' * 300}"), 404, "not_found")
    assert client.get(f"{REPORTS}/{second}").status_code == 200


def test_the_answer_shows_once_the_town_gave_one_and_nothing_else_of_the_report(client, factory, town_clock):
    receipt = submit(client, body(contact={"name": "Ana", "email": "ana@example.org"}))
    report = report_of(receipt["reference"])
    _, headers = factory.as_role("supervisor")
    r = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"action": "close", "answer": "The contractor cleaned the catch basin.", "version": 1,
                          "note": "Spoke to the foreman"})
    assert r.status_code == 200, r.get_json()
    shown = client.get(f"{REPORTS}/{receipt['reference']}").get_json()
    assert shown == {"reference": receipt["reference"], "status": "closed", "received_at": "2026-05-04T14:00:00+00:00",
                     "answer": "The contractor cleaned the catch basin."}


def test_a_missing_place_is_said_with_the_other_mistakes_and_a_refused_place_only_once(app, client, town_clock):
    # No place and a bad e-mail: both at once, so the resident corrects everything in one go.
    refused = assert_error(post_json(client, body(location=None, contact={"email": "not-an-address"})), 422,
                           "validation_error", "location", "address", "contact")
    assert refused["errors"]["address"] == ["Give the place: a location (lat and lon) or an address."]
    # A place sent but out of range is that field's mistake, not "give the place" as well.
    refused = assert_error(post_json(client, body(location={"lat": 91, "lon": -70.9})), 422, "validation_error",
                           "location")
    assert "address" not in refused["errors"]
    assert stored(app) == NOTHING
