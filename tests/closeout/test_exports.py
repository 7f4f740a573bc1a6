"""Exports parsed back: GeoJSON that validates (structure, and every geometry valid to shapely), CSV that
round-trips through csv.DictReader with formulas defused, and the MS4 annual report counts at range edges."""
import csv
import io
import json
from datetime import date, datetime, timezone

import pytest
from shapely.geometry import shape

from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.findings import create_finding
from inspect_api.inspections.models import Inspection
from inspect_api.permits.models import PermitEvent
from inspect_api.photos.models import Photo

POLYGON = {"type": "Polygon", "coordinates": [[[-70.9040, 41.6370], [-70.9030, 41.6370], [-70.9030, 41.6380],
                                                [-70.9040, 41.6380], [-70.9040, 41.6370]]]}
UTC = timezone.utc


def _site(n, polygon=None):
    site = {"address": f"{n} Sconticut Neck Road, Fairhaven, MA", "parcel_id": f"31-{n}",
            "location": {"lat": float(f"41.60{n}"), "lon": float(f"-70.90{n}")}}
    if polygon:
        site["limit_of_work"] = polygon
    return site


def _inspection(permit, kind="routine", started=datetime(2026, 3, 2, 14, 0, tzinfo=UTC), lat=41.6377, lon=-70.9035,
                inspector=None):
    auth = EntryAuthorization(permit_id=permit.id, basis="owner_consent", granted_by_name="Pat Owner",
                              granted_by_relation="owner", scope=["examination"],
                              valid_from=datetime(2026, 1, 1, tzinfo=UTC), valid_to=datetime(2026, 12, 31, tzinfo=UTC))
    db.session.add(auth)
    db.session.flush()
    inspection = Inspection(permit_id=permit.id, entry_authorization_id=auth.id, kind=kind, started_at=started,
                            created_by=inspector.id if inspector else None,
                            location_lat=lat, location_lon=lon, location_accuracy_m=4.0, status="submitted",
                            checklist_template="esc", checklist_template_version=1,
                            checklist_items=[{"key": "perimeter", "answer": "deficient"}, {"key": "entrance",
                                                                                          "answer": "ok"}])
    db.session.add(inspection)
    db.session.flush()
    return inspection


def _geojson(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/geo+json"
    data = json.loads(response.get_data(as_text=True))
    assert data["type"] == "FeatureCollection" and isinstance(data["features"], list)
    for feature in data["features"]:
        assert feature["type"] == "Feature" and isinstance(feature["properties"], dict)
        assert isinstance(feature["id"], str)
        geometry = shape(feature["geometry"])
        assert geometry.is_valid and not geometry.is_empty
        if feature["geometry"]["type"] == "Point":
            lon, lat = feature["geometry"]["coordinates"]
            assert -180 <= lon <= 180 and -90 <= lat <= 90
    return data


def _csv(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True), newline="")))


@pytest.fixture
def data(factory, closeout):
    permit = closeout.permit("permit", status="active", site=_site(1, POLYGON))
    plain = closeout.permit("admin", status="active", site=_site(2))
    inspection = _inspection(permit, inspector=factory.user("inspector", name="Sam Inspector"))
    _inspection(plain, kind="storm_event", started=datetime(2026, 3, 5, 3, 0, tzinfo=UTC), lat=None, lon=None)
    tricky = create_finding(permit, kind="deficiency", observed_on=date(2026, 3, 2), inspection_id=inspection.id,
                            description='=HYPERLINK("http://evil.example","click"), then "quotes"\nand a new line',
                            required_action="+1 silt fence; -2 wattles; @once")
    create_finding(plain, kind="other", observed_on=date(2026, 3, 5), description="Tracking onto street")
    db.session.add_all([
        Photo(permit_id=permit.id, sha256="b" * 64, content_type="image/jpeg", bytes=100, width=4, height=3,
              original_key="k", display_key="k", small_key="k", location_lat=41.6376, location_lon=-70.9036,
              location_source="exif", taken_at=datetime(2026, 3, 2, 15, 0, tzinfo=UTC)),
        Photo(permit_id=permit.id, sha256="c" * 64, content_type="image/jpeg", bytes=100, width=4, height=3,
              original_key="k", display_key="k", small_key="k"),
    ])
    db.session.commit()
    return {"permit": permit, "plain": plain, "inspection": inspection, "tricky": tricky}


def test_exports_are_for_supervisors_only(factory, client):
    for role in ("applicant", "inspector", "admin"):
        _, headers = factory.as_role(role)
        for path in ("permits.geojson", "findings.geojson", "photos.geojson", "inspections.csv", "findings.csv",
                     "ms4-annual-report?from=2026-01-01&to=2026-12-31"):
            r = client.get(f"/api/v1/exports/{path}", headers=headers)
            assert r.status_code == 403 and r.get_json()["error"] == "forbidden", (role, path)
    assert client.get("/api/v1/exports/permits.geojson").status_code == 401


def test_permits_geojson_point_and_polygon(factory, client, data):
    _, sup = factory.as_role("supervisor")
    collection = _geojson(client.get("/api/v1/exports/permits.geojson", headers=sup))
    by_id = {f["id"]: f for f in collection["features"]}
    permit, plain = data["permit"], data["plain"]
    assert set(by_id) == {permit.id, f"{permit.id}/limit_of_work", plain.id}
    site = by_id[permit.id]
    assert site["geometry"] == {"type": "Point", "coordinates": [-70.901, 41.601]}
    assert site["properties"]["feature"] == "site" and site["properties"]["permit_id"] == permit.id
    assert site["properties"]["review_level"] == "land_disturbance_permit"
    area = by_id[f"{permit.id}/limit_of_work"]
    assert area["geometry"] == POLYGON and area["properties"]["feature"] == "limit_of_work"
    assert shape(area["geometry"]).contains(shape({"type": "Point", "coordinates": [-70.9035, 41.6375]}))
    only_areas = _geojson(client.get("/api/v1/exports/permits.geojson?layer=limit_of_work", headers=sup))
    assert [f["id"] for f in only_areas["features"]] == [f"{permit.id}/limit_of_work"]
    r = client.get("/api/v1/exports/permits.geojson?layer=lines", headers=sup)
    assert r.status_code == 422


def test_findings_geojson_locates_each_finding(factory, client, data):
    _, sup = factory.as_role("supervisor")
    collection = _geojson(client.get("/api/v1/exports/findings.geojson", headers=sup))
    by_id = {f["id"]: f for f in collection["features"]}
    tricky = by_id[data["tricky"].id]
    assert tricky["geometry"]["coordinates"] == [-70.9035, 41.6377]
    assert tricky["properties"]["location_source"] == "inspection" and tricky["properties"]["status"] == "open"
    other = next(f for f in collection["features"] if f["id"] != data["tricky"].id)
    assert other["properties"]["location_source"] == "site" and other["geometry"]["coordinates"] == [-70.902, 41.602]
    narrow = _geojson(client.get("/api/v1/exports/findings.geojson?from=2026-03-03&to=2026-03-05", headers=sup))
    assert [f["properties"]["permit_id"] for f in narrow["features"]] == [data["plain"].id]


def test_photos_geojson_only_located_photos(factory, client, data):
    _, sup = factory.as_role("supervisor")
    collection = _geojson(client.get("/api/v1/exports/photos.geojson", headers=sup))
    assert len(collection["features"]) == 1
    photo = collection["features"][0]
    assert photo["geometry"]["coordinates"] == [-70.9036, 41.6376]
    assert photo["properties"]["location_source"] == "exif" and photo["properties"]["sha256"] == "b" * 64
    assert photo["properties"]["taken_at"] == "2026-03-02T15:00:00+00:00"
    empty = _geojson(client.get("/api/v1/exports/photos.geojson?from=2026-03-03", headers=sup))
    assert empty["features"] == []


def test_findings_csv_round_trips_and_defuses_formulas(factory, client, data):
    _, sup = factory.as_role("supervisor")
    rows = _csv(client.get("/api/v1/exports/findings.csv", headers=sup))
    assert len(rows) == 2
    tricky = next(r for r in rows if r["id"] == data["tricky"].id)
    assert tricky["description"] == ("'" + '=HYPERLINK("http://evil.example","click"), then "quotes"\nand a new line')
    assert tricky["required_action"] == "'+1 silt fence; -2 wattles; @once"
    assert tricky["observed_on"] == "2026-03-02" and tricky["kind"] == "deficiency" and tricky["status"] == "open"
    assert tricky["inspection_id"] == data["inspection"].id and tricky["location_source"] == "inspection"
    assert tricky["location_lon"] == "-70.9035"  # numbers stay numbers, even negative ones
    assert tricky["needs_new_control"] == "false" and tricky["site_address"] == "1 Sconticut Neck Road, Fairhaven, MA"
    assert _csv(client.get("/api/v1/exports/findings.csv?status=closed", headers=sup)) == []


def test_inspections_csv_round_trips(factory, client, data):
    _, sup = factory.as_role("supervisor")
    rows = _csv(client.get("/api/v1/exports/inspections.csv", headers=sup))
    assert [r["kind"] for r in rows] == ["routine", "storm_event"]
    first = rows[0]
    assert first["id"] == data["inspection"].id and first["permit_id"] == data["permit"].id
    assert first["started_at"] == "2026-03-02T14:00:00+00:00" and first["location_lat"] == "41.6377"
    assert first["inspector_name"] == "Sam Inspector" and rows[1]["inspector_name"] == ""
    assert first["deficient_items"] == "1" and first["findings"] == "1" and first["open_findings"] == "1"
    assert rows[1]["location_lat"] == "" and rows[1]["findings"] == "0"
    # 2026-03-05 03:00 UTC is the evening of 4 March in Fairhaven
    rows = _csv(client.get("/api/v1/exports/inspections.csv?from=2026-03-05", headers=sup))
    assert rows == []
    rows = _csv(client.get("/api/v1/exports/inspections.csv?from=2026-03-04&to=2026-03-04", headers=sup))
    assert [r["kind"] for r in rows] == ["storm_event"]


def _event(permit, to, at):
    db.session.add(PermitEvent(permit_id=permit.id, from_status=None, to_status=to, at=at))


def test_ms4_annual_report_counts_at_the_edges(factory, client, closeout, data):
    from inspect_api.enforcement.models import Order
    _, sup = factory.as_role("supervisor")
    permit, plain = data["permit"], data["plain"]
    # 1 January 2026 00:30 in Fairhaven is 05:30 UTC: inside 2026; 04:59 UTC on 1 January is still 2025 locally
    _event(permit, "submitted", datetime(2026, 1, 1, 5, 30, tzinfo=UTC))
    _event(plain, "submitted", datetime(2026, 1, 1, 4, 59, tzinfo=UTC))
    _event(permit, "issued", datetime(2026, 2, 1, 15, 0, tzinfo=UTC))
    _event(plain, "approved", datetime(2027, 1, 1, 4, 59, tzinfo=UTC))  # 31 Dec 2026 locally: inside
    db.session.add_all([
        Order(permit_id=permit.id, number="ORD-2026-0001", kinds=["cease_and_desist", "controls"],
              requirements=[], finding_ids=[], issued_on=date(2026, 12, 31), deadline=date(2027, 1, 5)),
        Order(permit_id=plain.id, number="ORD-2026-0002", kinds=["controls"], requirements=[], finding_ids=[],
              issued_on=date(2027, 1, 1), deadline=date(2027, 1, 5)),
    ])
    data["tricky"].status, data["tricky"].verified_fixed_on = "closed", date(2026, 3, 9)
    db.session.commit()
    r = client.get("/api/v1/exports/ms4-annual-report?from=2026-01-01&to=2026-12-31", headers=sup)
    assert r.status_code == 200, r.get_json()
    report = r.get_json()
    assert report["from"] == "2026-01-01" and report["to"] == "2026-12-31"
    assert report["site_plan_reviews"] == {
        "received": 1, "received_by_level": {"administrative_review": 0, "land_disturbance_permit": 1},
        "decided": 2, "decided_by_outcome": {"approved": 1, "issued": 1, "denied": 0}}
    assert report["inspections"]["total"] == 2
    assert report["inspections"]["by_kind"]["routine"] == 1 and report["inspections"]["by_kind"]["storm_event"] == 1
    assert report["inspections"]["by_kind"]["final"] == 0
    enforcement = report["enforcement_actions"]
    assert enforcement["orders"] == 1 and enforcement["citations"] == 0 and enforcement["total"] == 1
    assert enforcement["orders_by_kind"] == {"cease_and_desist": 1, "controls": 1, "monitoring": 0, "remediation": 0,
                                          "other": 0}
    assert report["findings"] == {"opened": 2, "closed": 1}
    assert report["certificates_of_completion"] == 0
    r = client.get("/api/v1/exports/ms4-annual-report?from=2026-03-06&to=2026-03-05", headers=sup)
    assert r.status_code == 422 and "to" in r.get_json()["errors"]
    r = client.get("/api/v1/exports/ms4-annual-report?from=2026-01-01", headers=sup)
    assert r.status_code == 422 and "to" in r.get_json()["errors"]


def test_ms4_annual_report_counts_only_recorded_inspections(factory, client, data):
    """A draft is the inspector's working copy, not an inspection the Town has made yet: the report counts
    submitted, approved and returned inspections only."""
    _, sup = factory.as_role("supervisor")
    for status in ("draft", "approved", "returned"):
        inspection = _inspection(data["permit"], kind="final", started=datetime(2026, 6, 1, 14, 0, tzinfo=UTC))
        inspection.status = status
    db.session.commit()
    report = client.get("/api/v1/exports/ms4-annual-report?from=2026-01-01&to=2026-12-31", headers=sup).get_json()
    assert report["inspections"]["total"] == 4, report["inspections"]
    assert report["inspections"]["by_kind"]["final"] == 2 and report["inspections"]["by_kind"]["routine"] == 1


# Every character a spreadsheet skips before reading a formula (OWASP "CSV Injection"): whitespace and
# line breaks, no-break and zero-width spaces and other format characters, a DDE pipe, and the full-width
# forms of = + - @ that East Asian input methods type.
HIDDEN_LEADS = [" ", "\u00a0", "\n", "\x0b", "\x0c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e",
                "\u3000", "|", " \u200b\u00a0 "]
FORMULA_CHARS = ["=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20"]


@pytest.mark.parametrize("lead", HIDDEN_LEADS)
@pytest.mark.parametrize("char", FORMULA_CHARS)
def test_csv_cells_with_a_formula_behind_skipped_characters_are_defused(lead, char):
    from inspect_api.exports.rules import safe_cell
    text = f'{lead}{char}HYPERLINK("http://evil.example","click")'
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["=1+1", "+1 silt fence", "-2 wattles", "@SUM(A1)", "\t=1", "\r=1", "\tplain",
                                  "\uff1d1+1", "\uff0b1", "\uff0d2", "\uff20SUM(A1)"])
def test_csv_cells_starting_with_a_formula_character_are_defused(text):
    from inspect_api.exports.rules import safe_cell
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["Silt fence down", " leading space only", "\u00a0no formula", "|pipe only",
                                  "a = b", "100 ft", "", "\u200b"])
def test_csv_cells_without_a_formula_stay_as_written(text):
    from inspect_api.exports.rules import safe_cell
    assert safe_cell(text) == text
    assert safe_cell(-70.9035) == -70.9035  # numbers stay numbers, even negative ones
