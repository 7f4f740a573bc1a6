"""EXIF GPS in every hemisphere and form, orientation, HEIC, device-only and missing locations."""
from __future__ import annotations

import io

import pytest
from PIL import Image
from PIL.TiffImagePlugin import IFDRational

from .helpers import gps_block, jpeg, make_exif, put_photo

# Displayed picture with a red top-left quadrant; the stored pixels are what a camera held at each
# orientation, i.e. the inverse of the turn EXIF asks for.
INVERSE = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
           4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90,
           7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_270}


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


@pytest.fixture
def permit(factory, applicant):
    return factory.permit(applicant=applicant[0])


@pytest.mark.parametrize("lat,lon", [(41.6376, 70.9036), (41.6376, -70.9036), (-33.8688, 151.2093),
                                     (-22.9068, -43.1729)], ids=["NE", "NW", "SE", "SW"])
def test_exif_gps_in_all_four_hemispheres(client, applicant, permit, lat, lon):
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(gps=gps_block(lat, lon))))
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["exif_gps"]["lat"] == pytest.approx(lat, abs=1e-5)
    assert body["exif_gps"]["lon"] == pytest.approx(lon, abs=1e-5)
    assert body["location"]["source"] == "exif"
    at_site = (lat, lon) == (41.6376, -70.9036)
    assert body["far_from_site"] is (not at_site)
    assert (body["distance_to_site_m"] < 5) is at_site


def test_missing_refs_read_as_north_and_east(client, applicant, permit):
    gps = gps_block(41.5, 70.25, lat_ref=None, lon_ref=None)
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(gps=gps)))
    assert r.status_code == 201
    assert r.get_json()["exif_gps"] == {"lat": 41.5, "lon": 70.25}


def test_degrees_only_and_decimal_minutes(client, applicant, permit):
    gps = gps_block(raw_lat=(IFDRational(415, 10),), raw_lon=(IFDRational(70, 1), IFDRational(5421, 100)),
                    lat_ref="N", lon_ref="W")
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(gps=gps)))
    assert r.status_code == 201
    assert r.get_json()["exif_gps"] == {"lat": 41.5, "lon": pytest.approx(-70.9035, abs=1e-6)}


def test_altitude_below_sea_level(client, applicant, permit):
    gps = gps_block(41.6, -70.9, alt=3.25, alt_ref=b"\x01")
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(gps=gps)))
    assert r.get_json()["exif_gps"]["altitude_m"] == -3.25


@pytest.mark.parametrize("orientation", range(1, 9))
def test_each_orientation_reports_displayed_size_and_turns_thumbnails(client, applicant, permit, orientation):
    displayed = Image.new("RGB", (60, 40), (0, 0, 255))
    displayed.paste((255, 0, 0), (0, 0, 30, 20))
    stored = displayed if INVERSE[orientation] is None else displayed.transpose(INVERSE[orientation])
    r = put_photo(client, applicant[1], permit.id, jpeg(image=stored, exif=make_exif(orientation=orientation)))
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert (body["width"], body["height"], body["orientation"]) == (60, 40, orientation)
    thumb = client.get(body["thumbnail_url"], headers=applicant[1], follow_redirects=False)
    data = thumb.data if thumb.status_code == 200 else _download(thumb.headers["Location"])
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (60, 40)
    red, green, blue = image.getpixel((5, 5))
    assert red > 200 and blue < 60  # the red corner is top-left once turned
    assert image.getpixel((55, 35))[2] > 200


def _download(url: str) -> bytes:
    import urllib.request
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def test_heic_with_gps(client, applicant, permit):
    pillow_heif = pytest.importorskip("pillow_heif")
    if not pillow_heif.libheif_info().get("encoders"):
        pytest.skip("this libheif build cannot encode HEIC")
    out = io.BytesIO()
    exif = make_exif(gps=gps_block(-41.2865, 174.7762, alt=15.0, alt_ref=b"\x00"), make="Apple", model="iPad Pro")
    Image.new("RGB", (64, 48), (90, 140, 60)).save(out, format="HEIF", exif=exif.tobytes(), quality=80)
    r = put_photo(client, applicant[1], permit.id, out.getvalue(), content_type="image/heic")
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["content_type"] == "image/heic" and (body["width"], body["height"]) == (64, 48)
    assert body["exif_gps"] == {"lat": pytest.approx(-41.2865, abs=1e-5), "lon": pytest.approx(174.7762, abs=1e-5),
                                "altitude_m": 15.0}
    assert body["camera_model"] == "iPad Pro"
    thumb = client.get(body["thumbnail_url"] + "?size=small", headers=applicant[1])
    assert thumb.status_code in (200, 302)


def test_device_fix_only(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg(), device_lat=41.6476, device_lon=-70.9036,
                  device_accuracy_m=25)
    body = r.get_json()
    assert r.status_code == 201
    assert body["exif_gps"] is None
    assert body["device_gps"] == {"lat": 41.6476, "lon": -70.9036, "accuracy_m": 25.0}
    assert body["location"] == {"lat": 41.6476, "lon": -70.9036, "source": "device"}
    assert body["distance_to_site_m"] == pytest.approx(1111.9, abs=1.0)  # 0.01 degree of latitude
    assert body["far_from_site"] is True and body["within_site"] is None


def test_no_location_at_all(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg())
    body = r.get_json()
    assert r.status_code == 201
    assert (body["exif_gps"], body["device_gps"], body["location"]) == (None, None, None)
    assert (body["distance_to_site_m"], body["within_site"], body["far_from_site"]) == (None, None, None)


def test_null_island_exif_falls_back_to_device(client, applicant, permit):
    gps = gps_block(raw_lat=(IFDRational(0, 1), IFDRational(0, 1), IFDRational(0, 1)),
                    raw_lon=(IFDRational(0, 1), IFDRational(0, 1), IFDRational(0, 1)), lat_ref="N", lon_ref="E")
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(gps=gps)), device_lat=41.6377,
                  device_lon=-70.9036)
    body = r.get_json()
    assert body["exif_gps"] == {"lat": 0.0, "lon": 0.0}
    assert body["location"]["source"] == "device"


def test_within_the_limit_of_work(factory, client, applicant):
    square = {"type": "Polygon", "coordinates": [[[-70.905, 41.636], [-70.902, 41.636], [-70.902, 41.639],
                                                  [-70.905, 41.639], [-70.905, 41.636]]]}
    payload = factory.permit_payload()
    payload["site"]["limit_of_work"] = square
    permit = factory.permit(applicant=applicant[0], site=payload["site"])
    inside = put_photo(client, applicant[1], permit.id, jpeg(), device_lat=41.6377, device_lon=-70.9030)
    outside = put_photo(client, applicant[1], permit.id, jpeg((65, 48)), device_lat=41.6400, device_lon=-70.9036)
    assert inside.get_json()["within_site"] is True and inside.get_json()["far_from_site"] is False
    assert outside.get_json()["within_site"] is False
    assert outside.get_json()["distance_to_site_m"] == pytest.approx(266.9, abs=1.0)
    assert outside.get_json()["far_from_site"] is False  # inside the 500 m default


def test_exif_time_without_offset_is_read_in_the_town_zone(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg(exif=make_exif(taken="2026:01:15 09:30:00")))
    assert r.get_json()["taken_at"] == "2026-01-15T09:30:00-05:00"  # EST in January


def test_bad_device_fix_is_422(client, applicant, permit):
    r = put_photo(client, applicant[1], permit.id, jpeg(), device_lat=95, device_lon=10)
    assert r.status_code == 422 and "device_lat" in r.get_json()["errors"]
    r = put_photo(client, applicant[1], permit.id, jpeg(), device_lat=41.6)
    assert r.status_code == 422 and "device_lon" in r.get_json()["errors"]
