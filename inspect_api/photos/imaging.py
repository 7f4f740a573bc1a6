"""Hardened decoding and fast derivatives.

The type is sniffed from the bytes and Pillow is told to use that one decoder only. The pixel count
is checked from the header before any pixel is decoded (decompression bombs), and the whole image
is then decoded once, which both proves it is complete (truncated or corrupt files fail here) and
feeds the thumbnails. JPEGs are decoded in draft mode: libjpeg scales by 1/2, 1/4 or 1/8 inside the
DCT, so a 12-megapixel photo never exists at full size in memory. Thumbnails carry no EXIF at all
(no GPS leaks into a derivative); orientation is applied to their pixels instead.
"""
from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timezone, tzinfo
from pathlib import Path

from PIL import Image, ImageFile, PngImagePlugin

from pillow_heif import register_heif_opener

from .. import lanes
from ..errors import ApiError, ImageInvalid
from ..uploads import sniff_type
from . import containers, rules
from .exif import ExifInfo, read_exif

# iPads and iPhones send HEIC; pillow-heif is a required dependency (pyproject.toml), so a missing
# one fails at import rather than quietly refusing every HEIC photo.
register_heif_opener()

# A truncated file is an error, never silently padded with grey; a PNG text chunk may not inflate
# past 1 MB (zTXt/iTXt bombs).
ImageFile.LOAD_TRUNCATED_IMAGES = False
PngImagePlugin.MAX_TEXT_CHUNK = 1 << 20
PngImagePlugin.MAX_TEXT_MEMORY = 8 << 20

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/heic")
PIL_FORMATS = {"image/jpeg": ["JPEG"], "image/png": ["PNG"], "image/webp": ["WEBP"], "image/heic": ["HEIF"]}
DISPLAY_SIZE, SMALL_SIZE = 1280, 320
DISPLAY_QUALITY, SMALL_QUALITY = 85, 80
# Box (area) filtering: the decoder has already scaled by a power of two in the DCT, so the last
# step is a small factor (1.56 for a 12 MP photo), where box averaging looks as good as bilinear
# and costs a quarter less.
FILTER = Image.Resampling.BOX
# Below this many source pixels a resize is too quick to be worth two threads.
PARALLEL_RESIZE_PIXELS = 1_500_000

_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="resize")

# Bytes Pillow keeps per pixel in memory, by mode (RGB and YCbCr are stored in 32-bit pixels too).
_PIXEL_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16L": 2, "I;16B": 2, "I;16N": 2}
# Working copies on top of the decoded pixels until the thumbnails exist: a decoder's own buffers
# (libheif, libwebp) for every image; flattening transparency onto white makes two full-size copies
# (RGBA and RGB); any other conversion one.
_ALPHA_MODES = ("RGBA", "LA", "PA", "RGBa", "La")


class ImageTooLarge(ApiError):
    code, error, default_message = 422, "image_too_large", "The image needs more memory to read than allowed."


class ImageBusy(ApiError):
    code, error, default_message = 503, "image_busy", "The server is reading other images; send this one again shortly."
    retry_after = 5


def decode_cost(image: Image.Image) -> int:
    """Estimated peak bytes to decode `image` at its current (draft) size and make its thumbnails."""
    width, height = image.size
    pixels = width * height * _PIXEL_BYTES.get(image.mode, 4)
    if image.mode in _ALPHA_MODES or (image.mode == "P" and "transparency" in image.info):
        factor = 3.5
    elif image.mode in ("RGB", "L", "YCbCr"):
        factor = 1.5
    else:
        factor = 2.5
    return int(pixels * factor)


@contextmanager
def slot(workers: int, wait_seconds: float):
    """One of `workers` image slots of this process (IMAGE_WORKERS): decoding is memory- and
    CPU-bound, so a burst of uploads queues here instead of multiplying peak memory. 503 image_busy
    after `wait_seconds`; the client retries (the app's outbox does)."""
    with lanes.turn("images", workers, wait_seconds,
                    lambda: ImageBusy(errors={"retry_after_s": [ImageBusy.retry_after]})):
        yield


@dataclass
class Derived:
    """The result of reading an upload: its facts and the two thumbnails as temporary JPEG files."""

    content_type: str
    width: int  # as displayed
    height: int
    exif: ExifInfo
    display_path: Path
    small_path: Path
    temp_files: list[Path] = field(default_factory=list)

    def cleanup(self) -> None:
        for path in self.temp_files:
            path.unlink(missing_ok=True)


def open_image(path: Path, head: bytes, max_pixels: int) -> tuple[Image.Image, str]:
    """Open with the decoder the bytes call for; refuse non-images and oversized pixel counts before
    decoding. Returns the (lazily decoded) image and the sniffed content type."""
    sniffed = sniff_type(head)
    if sniffed not in IMAGE_TYPES:
        raise ImageInvalid("The file is not a JPEG, PNG, WebP or HEIC image.")
    Image.MAX_IMAGE_PIXELS = max_pixels  # Pillow's own bomb check, as a second line
    try:
        image = Image.open(path, formats=PIL_FORMATS[sniffed])
    except Image.DecompressionBombError:
        raise ImageInvalid(f"The image has more than {max_pixels} pixels.", errors={"pixels": [max_pixels]}) from None
    except Exception:
        raise ImageInvalid("The image header is not readable.") from None
    width, height = image.size
    if width <= 0 or height <= 0 or width * height > max_pixels:
        image.close()
        raise ImageInvalid(f"The image has more than {max_pixels} pixels.", errors={"pixels": [max_pixels]})
    return image, sniffed


def _jpeg_request(image: Image.Image, longest: int, max_bytes: int | None) -> tuple[int, int]:
    """The size to ask libjpeg for: the display size, or, when decoding at the scale that gives
    (1/2, 1/4, 1/8, chosen by floor division as Pillow's draft does) would exceed the budget, a
    smaller one; the thumbnails are then a little smaller, never the memory larger."""
    width, height = image.size
    wanted = rules.fit_within(width, height, longest)
    ratio = min(width // max(wanted[0], 1), height // max(wanted[1], 1))
    scale = next(s for s in (8, 4, 2, 1) if ratio >= s)
    per_pixel = decode_cost(Image.new("L", (1, 1)).convert(image.mode)) if max_bytes is not None else 0
    while max_bytes is not None and scale < 8 and (-(-width // scale)) * (-(-height // scale)) * per_pixel > max_bytes:
        scale *= 2
    return (width // scale, height // scale) if scale > 1 else wanted


def _within_budget(image: Image.Image, longest: int, max_bytes: int | None) -> None:
    """Set the smallest DCT scale that still covers `longest` pixels, and refuse (422
    image_too_large) an image whose decoding would cost more than `max_bytes` of memory; no pixel
    is read. JPEG is decoded reduced, so any JPEG within MAX_IMAGE_PIXELS fits; the other formats
    decode at full size, so the budget is what bounds them."""
    width, height = image.size
    if image.format in ("JPEG", "MPO"):  # MPO: multi-picture JPEG some cameras write
        image.draft(image.mode, _jpeg_request(image, longest, max_bytes))
    cost = decode_cost(image)
    if max_bytes is not None and cost > max_bytes:
        advice = "Send a smaller image." if image.format in ("JPEG", "MPO") else "Send it as a JPEG, or smaller."
        raise ImageTooLarge(f"Reading this {width}×{height} {image.format} image would take about "
                            f"{cost // 2**20} MB of memory; the limit is {max_bytes // 2**20} MB. {advice}",
                            errors={"decode_bytes": [cost], "limit": [max_bytes]})


def _decode(image: Image.Image, longest: int, max_bytes: int | None = None) -> Image.Image:
    """Decode everything once, within the budget (_within_budget)."""
    _within_budget(image, longest, max_bytes)
    try:
        image.load()
    except Image.DecompressionBombError:
        raise ImageInvalid("The image has too many pixels.") from None
    except Exception:
        raise ImageInvalid("The image is truncated or corrupt.") from None
    return image


def _jpeg_ready(image: Image.Image) -> Image.Image:
    if image.mode in ("RGB", "L", "YCbCr"):
        return image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image if image.mode == "RGBA" else image.convert("RGBA")  # no full-size copy when already RGBA
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        return image.point(lambda v: v / 256).convert("L") if image.mode != "F" else image.convert("L")
    return image.convert("RGB")


def _resize(image: Image.Image, size: tuple[int, int], *, parallel: bool = True) -> Image.Image:
    if image.size == size:
        return image
    width, height = image.size
    if not parallel or width * height < PARALLEL_RESIZE_PIXELS:
        return image.resize(size, FILTER)
    # Two horizontal bands resized in parallel (Pillow releases the GIL while resampling). The source
    # box of each band is exact and its filter reads pixels beyond the box, so the seam is invisible:
    # the result is identical to one resize.
    out = Image.new(image.mode, size, None)  # every pixel is pasted below
    mid = size[1] // 2
    bands = [(0, mid), (mid, size[1])]

    def band(rows: tuple[int, int]) -> Image.Image:
        top, bottom = rows
        box = (0, top * height / size[1], width, bottom * height / size[1])
        return image.resize((size[0], bottom - top), FILTER, box=box)

    for (top, _bottom), part in zip(bands, _pool.map(band, bands)):
        out.paste(part, (0, top))
    return out


def _upright(image: Image.Image, orientation: int) -> Image.Image:
    method = rules.ORIENTATION_TRANSPOSE.get(orientation)
    return image.transpose(getattr(Image.Transpose, method)) if method else image


def _save_jpeg(image: Image.Image, quality: int, folder: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix="thumb-", suffix=".jpg", dir=str(folder))
    try:
        with os.fdopen(fd, "wb") as out:
            image.save(out, "JPEG", quality=quality)  # no exif=: derivatives carry no metadata
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _small_thumbnail(display: Image.Image, turn: int, work_dir: Path) -> Path:
    # Runs on the pool itself, so it must not wait on the pool (two such jobs could starve it).
    small = _resize(display, rules.fit_within(*display.size, SMALL_SIZE), parallel=False)
    return _save_jpeg(_upright(small, turn), SMALL_QUALITY, work_dir)


@dataclass
class Inspected:
    """What an upload is answered with, read from its header and EXIF alone: no pixel decoded."""

    content_type: str
    width: int  # as displayed
    height: int
    exif: ExifInfo


def inspect(path: Path, head: bytes, *, max_pixels: int, default_tz: tzinfo = timezone.utc,
            max_decode_bytes: int | None = None) -> Inspected:
    """Everything an upload is refused for or answered with, without decoding a pixel: the type from
    the bytes, the pixel limit from the header, the decoding budget the thumbnails will need, a
    complete container (photos/containers.py), EXIF (time, GPS, orientation) and the displayed size."""
    image, content_type = open_image(path, head, max_pixels)
    try:
        png_exif = containers.check(path, content_type)
        if content_type == "image/png":  # else Pillow decodes the pixels to look for an eXIf chunk
            image.info.setdefault("exif", png_exif or b"")
        stored_width, stored_height = image.size
        info = read_exif(image, default_tz=default_tz)
        turn = _orient(image, content_type, info)
        _within_budget(image, DISPLAY_SIZE, max_decode_bytes)
    finally:
        image.close()
    width, height = rules.displayed_size(stored_width, stored_height, turn)
    return Inspected(content_type, width, height, info)


def _orient(image: Image.Image, content_type: str, info: ExifInfo) -> int:
    """The turn to apply to the pixels (the EXIF orientation), setting `info.orientation` to the
    camera's value. pillow-heif hands out upright pixels (HEIF irot/imir) and resets the EXIF tag;
    the camera's value is reported, and the pixels are not turned a second time."""
    if content_type == "image/heic":
        info.orientation = rules.normal_orientation(image.info.get("original_orientation") or 1)
        return 1
    return info.orientation


def derive(path: Path, head: bytes, *, max_pixels: int, work_dir: Path,
           default_tz: tzinfo = timezone.utc, max_decode_bytes: int | None = None) -> Derived:
    """Validate the image at `path` and make its display (1280) and small (320) JPEG thumbnails."""
    image, content_type = open_image(path, head, max_pixels)
    temp_files: list[Path] = []
    try:
        stored_width, stored_height = image.size
        # Decode before reading EXIF: for PNG, reading EXIF loads the file, and a failure there must
        # reject the upload, not be skipped as "no EXIF".
        decoded = _jpeg_ready(_decode(image, DISPLAY_SIZE, max_decode_bytes))
        info = read_exif(image, default_tz=default_tz)
        turn = _orient(image, content_type, info)
        display = _resize(decoded, rules.fit_within(*decoded.size, DISPLAY_SIZE))
        # The small thumbnail is made on the other thread while this one encodes the display one.
        small_job = _pool.submit(_small_thumbnail, display, turn, work_dir)
        try:
            temp_files.append(_save_jpeg(_upright(display, turn), DISPLAY_QUALITY, work_dir))
        finally:
            temp_files.append(small_job.result())
    except BaseException:
        for temp in temp_files:
            temp.unlink(missing_ok=True)
        raise
    finally:
        image.close()
    width, height = rules.displayed_size(stored_width, stored_height, turn)
    return Derived(content_type, width, height, info, temp_files[0], temp_files[1], temp_files)
