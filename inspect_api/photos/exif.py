"""Reading what the camera wrote: time taken, orientation, make and model, GPS.

Pillow parses the EXIF block (JPEG APP1, PNG eXIf, WebP EXIF chunk, HEIF Exif item via pillow-heif);
turning its values into numbers and signs is rules.py's job. A broken EXIF block never fails an
upload: the photo is kept and the unreadable fields are left empty.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import Any

from PIL import ExifTags, Image
from PIL.TiffImagePlugin import IFDRational

from . import rules

log = logging.getLogger(__name__)

_T = ExifTags.Base
_IFD = ExifTags.IFD


@dataclass
class ExifInfo:
    orientation: int = 1
    taken_at: datetime | None = None
    camera_make: str | None = None
    camera_model: str | None = None
    gps: dict[str, float | None] | None = None


def _sub_ifd(exif: Image.Exif, ifd: int) -> dict[int, Any]:
    try:
        return dict(exif.get_ifd(ifd))
    except Exception:  # a damaged offset or count inside the block; the rest is still usable
        log.info("unreadable EXIF sub-IFD %s", ifd, exc_info=True)
        return {}


def read_exif(image: Image.Image, *, default_tz: tzinfo = timezone.utc) -> ExifInfo:
    try:
        exif = image.getexif()
    except Exception:
        log.info("unreadable EXIF block", exc_info=True)
        return ExifInfo()
    info = ExifInfo(
        orientation=rules.normal_orientation(exif.get(_T.Orientation)),
        camera_make=rules.clean_text(exif.get(_T.Make)),
        camera_model=rules.clean_text(exif.get(_T.Model)),
    )
    details = _sub_ifd(exif, _IFD.Exif)
    info.taken_at = rules.exif_datetime(details.get(_T.DateTimeOriginal), details.get(_T.OffsetTimeOriginal),
                                        details.get(_T.SubsecTimeOriginal), default_tz=default_tz)
    info.gps = rules.parse_gps(_sub_ifd(exif, _IFD.GPSInfo))
    return info


def gps_exif_bytes(lat: float, lon: float, alt: float | None = None, *, orientation: int | None = None) -> bytes:
    """An EXIF block holding a GPS position (degrees, minutes, seconds with refs); used by the benchmark
    and by test fixtures to make camera-like files."""
    def dms(value: float) -> tuple:
        value = abs(value)
        degrees = int(value)
        minutes = int((value - degrees) * 60)
        seconds = (value - degrees - minutes / 60) * 3600
        return (IFDRational(degrees, 1), IFDRational(minutes, 1), IFDRational(round(seconds * 10000), 10000))

    exif = Image.Exif()
    if orientation is not None:
        exif[_T.Orientation] = orientation
    g = ExifTags.GPS
    gps = {g.GPSLatitudeRef: "N" if lat >= 0 else "S", g.GPSLatitude: dms(lat),
           g.GPSLongitudeRef: "E" if lon >= 0 else "W", g.GPSLongitude: dms(lon)}
    if alt is not None:
        gps[g.GPSAltitudeRef] = b"\x01" if alt < 0 else b"\x00"
        gps[g.GPSAltitude] = IFDRational(round(abs(alt) * 100), 100)
    exif[_IFD.GPSInfo] = gps
    return exif.tobytes()
