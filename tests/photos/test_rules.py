"""Pure rules: EXIF number forms, GPS refs and signs, time, orientation, distance, polygon."""
from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from PIL.TiffImagePlugin import IFDRational

from inspect_api.photos import rules
from inspect_api.uploads import sniff_type

R = IFDRational


@pytest.mark.parametrize("value,expected", [
    (R(1, 2), 0.5), ((3, 4), 0.75), (2, 2.0), (2.5, 2.5), (R(1, 0), None), ((1, 0), None),
    (float("nan"), None), ("x", None), (None, None), (float("inf"), None)])
def test_to_number(value, expected):
    assert rules.to_number(value) == expected


@pytest.mark.parametrize("value,expected", [
    ((R(41, 1), R(38, 1), R(15, 1)), 41 + 38 / 60 + 15 / 3600),             # d, m, s rationals
    (((41, 1), (38, 1), (1500, 100)), 41 + 38 / 60 + 15 / 3600),           # raw (num, den) pairs
    ((41.0, 38.25, 0.0), 41 + 38.25 / 60),                                  # decimal minutes, seconds 0
    ((R(41, 1), R(3825, 100)), 41 + 38.25 / 60),                            # degrees and decimal minutes
    ((R(41637600, 1000000),), 41.6376),                                     # degrees only, one value
    (R(416376, 10000), 41.6376),                                            # degrees only, bare rational
    (41.6376, 41.6376),
    ((R(0, 1), R(30, 1), R(2701, 100)), 0.5075027777),                      # under one degree
    ((R(1, 0), R(2, 1), R(3, 1)), None),                                    # zero denominator
    ((float("nan"),) * 3, None),
    ((R(41, 1), R(75, 1), R(0, 1)), None),                                  # minutes out of range
    ((), None), (b"\x00", None), ("N", None)])
def test_dms_forms(value, expected):
    result = rules.dms_to_degrees(value)
    assert result == (None if expected is None else pytest.approx(expected, abs=1e-9))


def _gps(lat_ref, lon_ref, lat=(R(33, 1), R(52, 1), R(0, 1)), lon=(R(151, 1), R(12, 1), R(0, 1))):
    block = {2: lat, 4: lon}
    if lat_ref is not None:
        block[1] = lat_ref
    if lon_ref is not None:
        block[3] = lon_ref
    return block


@pytest.mark.parametrize("lat_ref,lon_ref,signs", [("N", "E", (1, 1)), ("N", "W", (1, -1)), ("S", "E", (-1, 1)),
                                                   ("S", "W", (-1, -1)), (b"S\x00", b"W", (-1, -1)),
                                                   ("s ", "w", (-1, -1))])
def test_refs_give_signs(lat_ref, lon_ref, signs):
    gps = rules.parse_gps(_gps(lat_ref, lon_ref))
    assert (gps["lat"], gps["lon"]) == (round(signs[0] * (33 + 52 / 60), 6), round(signs[1] * (151 + 12 / 60), 6))


@pytest.mark.parametrize("lat_ref,lon_ref", [(None, None), ("", ""), ("\x00", "\x00")])
def test_missing_refs_read_as_north_east(lat_ref, lon_ref):
    gps = rules.parse_gps(_gps(lat_ref, lon_ref))
    assert gps["lat"] > 0 and gps["lon"] > 0


def test_written_negative_without_ref_keeps_its_sign():
    gps = rules.parse_gps({2: (-41.5,), 4: (-70.25,)})
    assert (gps["lat"], gps["lon"]) == (-41.5, -70.25)


def test_ref_wins_over_a_written_sign():
    assert rules.parse_gps({1: "N", 2: (-41.5,), 3: "E", 4: (70.25,)})["lat"] == 41.5


@pytest.mark.parametrize("ref,expected", [(b"\x00", 12.5), (b"\x01", -12.5), (0, 12.5), (1, -12.5), ("1", -12.5),
                                          (None, 12.5)])
def test_altitude_ref(ref, expected):
    block = {**_gps("N", "E"), 6: R(1250, 100)}
    if ref is not None:
        block[5] = ref
    assert rules.parse_gps(block)["alt"] == expected


def test_unusable_gps_blocks():
    assert rules.parse_gps(None) is None and rules.parse_gps({}) is None
    assert rules.parse_gps({0: b"\x02\x02\x00\x00"}) is None                      # version only
    assert rules.parse_gps({1: "\x00", 2: (math.nan,) * 3, 3: "\x00", 4: (math.nan,) * 3, 6: math.nan}) is None
    assert rules.parse_gps({1: "N", 2: (R(95, 1),), 3: "E", 4: (R(10, 1),)}) is None  # out of range


def test_nan_altitude_keeps_the_position():
    gps = rules.parse_gps({**_gps("N", "E"), 6: math.nan})
    assert gps["alt"] is None and gps["lat"] > 0


def test_choose_location():
    exif, device = {"lat": 41.6, "lon": -70.9}, {"lat": 41.7, "lon": -70.8}
    assert rules.choose_location(exif, device) == rules.Location(41.6, -70.9, "exif")
    assert rules.choose_location(None, device).source == "device"
    assert rules.choose_location({"lat": 0.0, "lon": 0.0}, device).source == "device"
    assert rules.choose_location({"lat": 0.0, "lon": 0.0}, None) is None
    assert rules.choose_location({"lat": 0.0, "lon": 12.0}, device).source == "exif"  # the equator is real
    assert rules.choose_location(None, None) is None


def test_haversine():
    assert rules.haversine_m(41.0, -70.0, 41.0, -70.0) == 0
    assert rules.haversine_m(0, 0, 1, 0) == pytest.approx(111_195, rel=1e-4)  # one degree of a meridian
    assert rules.haversine_m(0, 179.9, 0, -179.9) == pytest.approx(22_239, rel=1e-3)  # across the antimeridian


def test_within_polygon():
    square = {"type": "Polygon", "coordinates": [[[-71, 41], [-70, 41], [-70, 42], [-71, 42], [-71, 41]]]}
    assert rules.within_polygon(square, 41.5, -70.5) is True
    assert rules.within_polygon(square, 41.5, -69.5) is False
    assert rules.within_polygon(square, 41.0, -70.5) is True  # on the edge counts
    assert rules.within_polygon(None, 41.5, -70.5) is None
    assert rules.within_polygon({"type": "Point", "coordinates": [-70.5, 41.5]}, 41.5, -70.5) is None
    assert rules.within_polygon({"type": "Polygon", "coordinates": "junk"}, 41.5, -70.5) is None


def test_far_from_site_edge():
    assert rules.far_from_site(500.0, 500) is False and rules.far_from_site(500.1, 500) is True
    assert rules.far_from_site(None, 500) is None


@pytest.mark.parametrize("orientation,size", [(1, (4, 3)), (2, (4, 3)), (3, (4, 3)), (4, (4, 3)),
                                              (5, (3, 4)), (6, (3, 4)), (7, (3, 4)), (8, (3, 4))])
def test_displayed_size(orientation, size):
    assert rules.displayed_size(4, 3, orientation) == size


@pytest.mark.parametrize("value,expected", [(6, 6), (R(3, 1), 3), (0, 1), (9, 1), ("x", 1), (None, 1), (2.5, 1)])
def test_normal_orientation(value, expected):
    assert rules.normal_orientation(value) == expected


def test_fit_within():
    assert rules.fit_within(4000, 3000, 1280) == (1280, 960)
    assert rules.fit_within(3000, 4000, 320) == (240, 320)
    assert rules.fit_within(100, 50, 1280) == (100, 50)
    assert rules.fit_within(10000, 1, 320) == (320, 1)


def test_exif_datetime():
    zone = ZoneInfo("America/New_York")
    assert rules.exif_datetime("2016:09:28 18:18:05", "+01:00") == datetime(
        2016, 9, 28, 18, 18, 5, tzinfo=timezone(timedelta(hours=1)))
    assert rules.exif_datetime("2026:07:04 12:00:00", None, default_tz=zone).utcoffset() == timedelta(hours=-4)
    assert rules.exif_datetime("2026:07:04 12:00:00", "-05:30", "25").microsecond == 250000
    assert rules.exif_datetime(b"2026:07:04 12:00:00\x00", b"+00:00").tzinfo == timezone.utc
    assert rules.exif_datetime("0000:00:00 00:00:00") is None
    assert rules.exif_datetime("    :  :     :  :  ") is None and rules.exif_datetime(None) is None
    assert rules.exif_datetime("2026:07:04 12:00:00", "+99:00").tzinfo == timezone.utc  # bad offset ignored


def test_clean_text():
    assert rules.clean_text("GoPro      \x00") == "GoPro"
    assert rules.clean_text("RICOH       Caplio  Pro") == "RICOH Caplio Pro"
    assert rules.clean_text(b"\x00\x00") is None


@pytest.mark.parametrize("head,kind", [
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"), (b"\x89PNG\r\n\x1a\n\x00", "image/png"),
    (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "image/heic"),
    (b"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic", "image/heic"),
    (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf", None),
    (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom", None),
    (b"%PDF-1.7\n", "application/pdf"), (b"GIF89a", None), (b"RIFF\x10\x00\x00\x00WAVE", None), (b"", None),
    (b"hello world", None)])
def test_sniff_type(head, kind):
    assert sniff_type(head) == kind
