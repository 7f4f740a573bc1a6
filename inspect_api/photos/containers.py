"""Is the file whole? A walk over an image's container, reading no pixels.

An upload is answered before its pixels are decoded (the thumbnails are made afterwards), so what
can be proven from the structure alone is proven at the door: every box, chunk or segment the file
announces is there to its end, a PNG's text chunks stay within Pillow's limits when inflated, and a
JPEG's first image reaches its end-of-image marker. A cut-off file is refused (422) before anything
is stored, as it was when every upload was decoded at once. Damage inside complete compressed data
can only be found by decoding; the thumbnail job finds it and marks the photo (photos/derivation.py).

Each walk reads headers and seeks past payloads; the JPEG one scans the entropy-coded data for its
end marker with bytes.find (C speed), a few milliseconds for a 12 MB photo.
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import BinaryIO

from PIL import PngImagePlugin

from ..errors import ImageInvalid

_BLOCK = 1 << 20
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _cut(what: str) -> ImageInvalid:
    return ImageInvalid(f"The image is truncated or corrupt: {what}.")


def check(path: Path, content_type: str) -> bytes | None:
    """Raise ImageInvalid unless the container at `path` is complete; a PNG's eXIf payload is
    returned (Pillow would decode the whole image to find one after the pixel data)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        if content_type == "image/jpeg":
            _jpeg(handle, size)
        elif content_type == "image/png":
            return _png(handle, size)
        elif content_type == "image/webp":
            _webp(handle, size)
        elif content_type == "image/heic":
            _bmff(handle, size)
    return None


def _jpeg(handle: BinaryIO, size: int) -> None:
    handle.seek(2)  # SOI was sniffed
    while True:
        marker = handle.read(2)
        while marker[:1] == b"\xff" and marker[1:2] == b"\xff":  # fill bytes before a marker
            marker = marker[1:] + handle.read(1)
        if len(marker) < 2 or marker[0] != 0xFF:
            raise _cut("its segments end before the image data")
        kind = marker[1]
        if 0xD0 <= kind <= 0xD7 or kind == 0x01:  # markers without a length
            continue
        if kind == 0xD9:
            raise _cut("it ends before any image data")
        length_bytes = handle.read(2)
        if len(length_bytes) < 2:
            raise _cut("a segment is cut off")
        length = struct.unpack(">H", length_bytes)[0]
        if length < 2 or handle.tell() + length - 2 > size:
            raise _cut("a segment is cut off")
        handle.seek(length - 2, 1)
        if kind == 0xDA:  # start of scan: the entropy-coded data follows, then (eventually) EOI
            break
    # In entropy-coded data every 0xFF is followed by 0x00 or a restart marker, so FF D9 here is the
    # end of the (first) image; MPO files and motion photos carry more after it, which is fine.
    tail = b""
    while block := handle.read(_BLOCK):
        if (tail + block).find(b"\xff\xd9") >= 0:
            return
        tail = block[-1:]
    raise _cut("the image data has no end")


def _png(handle: BinaryIO, size: int) -> bytes | None:
    handle.seek(len(_PNG_SIGNATURE))
    exif = None
    text_total = 0
    while True:
        header = handle.read(8)
        if len(header) < 8:
            raise _cut("it ends before its IEND chunk")
        length, kind = struct.unpack(">I4s", header)
        if handle.tell() + length + 4 > size:
            raise _cut(f"its {kind.decode('latin-1')} chunk is cut off")
        if kind == b"IEND":
            return exif
        if kind in (b"zTXt", b"iTXt", b"eXIf") and length <= PngImagePlugin.MAX_TEXT_CHUNK:
            data = handle.read(length)
            if kind == b"eXIf":
                exif = b"Exif\x00\x00" + data
            else:
                text_total += _inflated_text(kind, data)
                if text_total > PngImagePlugin.MAX_TEXT_MEMORY:
                    raise ImageInvalid("The image's text chunks are too large.")
            handle.seek(4, 1)
        else:
            if kind in (b"zTXt", b"iTXt", b"tEXt") and length > PngImagePlugin.MAX_TEXT_CHUNK:
                raise ImageInvalid("The image's text chunks are too large.")
            handle.seek(length + 4, 1)


def _inflated_text(kind: bytes, data: bytes) -> int:
    """How many bytes a text chunk inflates to; ImageInvalid past Pillow's per-chunk limit."""
    limit = PngImagePlugin.MAX_TEXT_CHUNK
    try:
        if kind == b"zTXt":
            compressed = data[data.index(b"\x00") + 2:]
        else:  # iTXt: keyword\0 flag method language\0 translated\0 text
            keyword_end = data.index(b"\x00")
            if data[keyword_end + 1] != 1:
                return len(data)
            rest = data[keyword_end + 3:]
            rest = rest[rest.index(b"\x00") + 1:]
            compressed = rest[rest.index(b"\x00") + 1:]
        inflated = zlib.decompressobj().decompress(compressed, limit + 1)
    except (ValueError, IndexError, zlib.error):
        raise ImageInvalid("The image's text chunks are not readable.") from None
    if len(inflated) > limit:
        raise ImageInvalid("The image's text chunks are too large.")
    return len(inflated)


def _webp(handle: BinaryIO, size: int) -> None:
    header = handle.read(12)
    if len(header) < 12:
        raise _cut("its RIFF header is cut off")
    declared = struct.unpack("<I", header[4:8])[0] + 8
    if declared > size:
        raise _cut(f"it declares {declared} bytes and has {size}")
    position = 12
    while position + 8 <= declared:
        handle.seek(position)
        length = struct.unpack("<I", handle.read(8)[4:8])[0]
        position += 8 + length + (length & 1)
        if position > declared + 1:  # a final odd chunk may omit its padding byte
            raise _cut("a chunk is cut off")


def _bmff(handle: BinaryIO, size: int) -> None:
    """HEIF: every top-level box (ftyp, meta, mdat, ...) fits in the file, and so does every extent
    of every item the meta box's item locations (iloc) place in the file."""
    for kind, start, length in _boxes(handle, 0, size):
        if kind == b"meta":
            for child, child_start, child_length in _boxes(handle, start + 12, start + length):
                if child == b"iloc":
                    handle.seek(child_start + 8)
                    _iloc(handle.read(child_length - 8), size)


def _iloc(box: bytes, size: int) -> None:
    """ISO/IEC 14496-12 8.11.3: each item's extents (file offsets, construction method 0)."""
    try:
        version = box[0]
        offset_size, length_size = box[4] >> 4, box[4] & 15
        base_size, index_size = box[5] >> 4, (box[5] & 15) if version in (1, 2) else 0
        position = 6

        def number(width: int) -> int:
            nonlocal position
            if position + width > len(box):
                raise IndexError
            value = int.from_bytes(box[position:position + width], "big") if width else 0
            position += width
            return value

        for _item in range(number(2 if version < 2 else 4)):
            number(2 if version < 2 else 4)  # item id
            method = number(2) & 15 if version in (1, 2) else 0
            number(2)  # data reference index
            base = number(base_size)
            for _extent in range(number(2)):
                number(index_size)
                offset, length = number(offset_size), number(length_size)
                if method == 0 and base + offset + length > size:
                    raise _cut("an image item's data lies past the end of the file")
    except IndexError:
        raise _cut("its item locations are cut off") from None


def _boxes(handle: BinaryIO, position: int, end: int):
    """(type, start, length) of each box from `position` to `end`; ImageInvalid if one is cut off."""
    while position < end:
        handle.seek(position)
        header = handle.read(8)
        if len(header) < 8 or position + 8 > end:
            raise _cut("a box header is cut off")
        length = struct.unpack(">I", header[:4])[0]
        if length == 1:
            large = handle.read(8)
            if len(large) < 8:
                raise _cut("a box header is cut off")
            length = struct.unpack(">Q", large)[0]
        elif length == 0:  # the last box runs to the end
            length = end - position
        if length < 8 or position + length > end:
            raise _cut("a box is cut off")
        yield header[4:8], position, length
        position += length


__all__ = ["check"]
