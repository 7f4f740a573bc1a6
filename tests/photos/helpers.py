"""Test images made with Pillow (EXIF written the way cameras write it) and an upload helper."""
from __future__ import annotations

import hashlib
import io
import struct
import uuid
import zlib

from PIL import ExifTags, Image
from PIL.TiffImagePlugin import IFDRational

GPS = ExifTags.GPS


def rational_dms(value: float) -> tuple:
    value = abs(value)
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = (value - degrees - minutes / 60) * 3600
    return IFDRational(degrees, 1), IFDRational(minutes, 1), IFDRational(round(seconds * 1000), 1000)


def gps_block(lat=None, lon=None, *, lat_ref="auto", lon_ref="auto", alt=None, alt_ref=None, raw_lat=None,
              raw_lon=None) -> dict:
    block = {}
    if lat is not None or raw_lat is not None:
        block[GPS.GPSLatitude] = raw_lat if raw_lat is not None else rational_dms(lat)
        ref = ("N" if lat >= 0 else "S") if lat_ref == "auto" else lat_ref
        if ref is not None:
            block[GPS.GPSLatitudeRef] = ref
    if lon is not None or raw_lon is not None:
        block[GPS.GPSLongitude] = raw_lon if raw_lon is not None else rational_dms(lon)
        ref = ("E" if lon >= 0 else "W") if lon_ref == "auto" else lon_ref
        if ref is not None:
            block[GPS.GPSLongitudeRef] = ref
    if alt is not None:
        block[GPS.GPSAltitude] = IFDRational(round(abs(alt) * 100), 100)
        if alt_ref is not None:
            block[GPS.GPSAltitudeRef] = alt_ref
    return block


def make_exif(*, gps: dict | None = None, orientation: int | None = None, make=None, model=None,
              taken: str | None = None, offset: str | None = None) -> Image.Exif:
    exif = Image.Exif()
    if orientation is not None:
        exif[ExifTags.Base.Orientation] = orientation
    if make:
        exif[ExifTags.Base.Make] = make
    if model:
        exif[ExifTags.Base.Model] = model
    if taken or offset:
        details = {}
        if taken:
            details[ExifTags.Base.DateTimeOriginal] = taken
        if offset:
            details[ExifTags.Base.OffsetTimeOriginal] = offset
        exif[ExifTags.IFD.Exif] = details
    if gps:
        exif[ExifTags.IFD.GPSInfo] = gps
    return exif


def picture(size=(64, 48), color=(40, 120, 200)) -> Image.Image:
    image = Image.new("RGB", size, color)
    for x in range(size[0]):
        image.putpixel((x, size[1] // 2), (x * 4 % 256, 200, 30))
    return image


def jpeg(size=(64, 48), *, exif: Image.Exif | None = None, image: Image.Image | None = None, quality=90) -> bytes:
    out = io.BytesIO()
    kwargs = {"exif": exif} if exif is not None else {}
    (image or picture(size)).save(out, "JPEG", quality=quality, **kwargs)
    return out.getvalue()


def encoded(fmt: str, size=(64, 48), *, exif: Image.Exif | None = None, **kw) -> bytes:
    out = io.BytesIO()
    kwargs = {"exif": exif} if exif is not None else {}
    picture(size).save(out, fmt, **kwargs, **kw)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bomb(side=50_000) -> bytes:
    """A PNG whose header claims side x side pixels (2.5 gigapixels at 50 000), with a zlib stream of
    zero rows that would inflate to gigabytes; only its first rows are included."""
    rows = zlib.compressobj(9)
    body = b"".join(rows.compress(b"\x00" * (side + 1)) for _ in range(64)) + rows.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


def png_text_bomb() -> bytes:
    """A tiny valid PNG with a zTXt chunk that inflates to 16 MB."""
    image = io.BytesIO()
    picture((8, 8)).save(image, "PNG")
    data = image.getvalue()
    ztxt = b"Comment\x00\x00" + zlib.compress(b"A" * (16 << 20), 9)
    end = data.rindex(b"IEND") - 4
    return data[:end] + _chunk(b"zTXt", ztxt) + data[end:]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put_photo(client, headers, permit_id, data: bytes, *, photo_id=None, content_type="image/jpeg",
              digest=None, via_headers=False, **meta):
    photo_id = photo_id or str(uuid.uuid4())
    fields = {"permit_id": permit_id, **meta}
    request_headers = {**headers, "Content-Type": content_type, "X-Content-SHA256": digest or sha(data)}
    query = {}
    for key, value in fields.items():
        if via_headers:
            request_headers["X-" + key.replace("_", "-").title()] = str(value)
        else:
            query[key] = value
    return client.put(f"/api/v1/photos/{photo_id}", query_string=query, data=data, headers=request_headers)
