"""Photo ingest against its floor, measured in the same run.

    .venv/bin/python benchmarks/photo_ingest.py [--count 8] [--rounds 3]

Makes N camera-like 12-megapixel JPEGs (noise over gradients, quality 90, EXIF GPS) in a temporary
folder, then times per file, interleaved so machine noise hits all three alike:
- floor:  Pillow decoding the file at 1/4 scale (JPEG draft mode) plus the SHA-256 of its bytes;
- ingest: the server's path without the database: spool + hash (receive_to_tempfile), verify the
          digest, EXIF, decode, display and small thumbnails, store all three blobs (local store);
- naive:  full-size decode, orientation, resize to both sizes, save (for reference).
Prints the medians and ratios (goal: ingest <= 1.5x floor), and the peak Python memory of streaming
a 40 MB and a 4 MB body through the upload path (it should not grow with the body).
"""
from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageOps  # noqa: E402
from werkzeug.wsgi import LimitedStream  # noqa: E402

from inspect_api.photos import imaging  # noqa: E402
from inspect_api.photos.exif import gps_exif_bytes  # noqa: E402
from inspect_api.storage import LocalBlobStore, blob_key  # noqa: E402
from inspect_api.uploads import receive_to_tempfile  # noqa: E402

WIDTH, HEIGHT = 4000, 3000  # 12 megapixels
MAX_BYTES = 40 * 1024 * 1024


def camera_like(seed: int) -> Image.Image:
    """Sensor-like noise over smooth colour gradients: compresses like a detailed outdoor photo
    (about 4 MB at quality 90, as phones and tablets write them)."""
    gradient = Image.linear_gradient("L").resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR)
    base = Image.merge("RGB", (gradient, gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
                               gradient.transpose(Image.Transpose.ROTATE_180)))
    rng = random.Random(seed)
    noise = Image.frombytes("RGB", (WIDTH, HEIGHT), rng.randbytes(WIDTH * HEIGHT * 3))
    return Image.blend(base, noise, 0.22)


def make_files(folder: Path, count: int) -> list[Path]:
    files = []
    for n in range(count):
        path = folder / f"camera-{n:02d}.jpg"
        exif = gps_exif_bytes(41.6376 + n * 1e-4, -70.9036 - n * 1e-4, 3.5, orientation=1)
        camera_like(n).save(path, "JPEG", quality=90, exif=exif)
        files.append(path)
    return files


def floor(path: Path) -> None:
    with path.open("rb") as handle:
        hashlib.file_digest(handle, "sha256")
    image = Image.open(path)
    image.draft("RGB", (image.width // 4, image.height // 4))
    image.load()


def ingest(path: Path, expected: str, work: Path) -> None:
    store = LocalBlobStore(work / "blobs")
    with path.open("rb") as body, receive_to_tempfile(body, MAX_BYTES, dir=work) as received:
        if received.sha256 != expected:
            raise SystemExit("digest mismatch")
        derived = imaging.derive(received.path, received.head, max_pixels=100_000_000, work_dir=work)
        try:
            store.put_file(received.path, blob_key(received.sha256), derived.content_type, owned=True)
            store.put_file(derived.display_path, blob_key(received.sha256, ".display.jpg"), "image/jpeg", owned=True)
            store.put_file(derived.small_path, blob_key(received.sha256, ".small.jpg"), "image/jpeg", owned=True)
        finally:
            derived.cleanup()
    shutil.rmtree(work / "blobs")  # the next round stores again rather than finding the blobs present


def naive(path: Path) -> None:
    """Decode at full size, turn upright, resize to both sizes, save."""
    with path.open("rb") as handle:
        hashlib.file_digest(handle, "sha256")
    image = ImageOps.exif_transpose(Image.open(path))
    display = image.resize(imaging.rules.fit_within(*image.size, 1280), Image.Resampling.BILINEAR)
    small = display.resize(imaging.rules.fit_within(*display.size, 320), Image.Resampling.BILINEAR)
    for thumb in (display, small):
        thumb.save(io.BytesIO(), "JPEG", quality=85)


def timed(fn, *args) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


class _Body:
    """A request body arriving in 16 KB network reads, never whole in memory."""

    def __init__(self, size: int) -> None:
        self.left, self.block = size, bytes(range(256)) * 64

    def read(self, size: int = -1) -> bytes:
        n = min(self.left, len(self.block), size if size > 0 else len(self.block))
        self.left -= n
        return self.block[:n]


def upload_peak(size: int, work: Path) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    with receive_to_tempfile(LimitedStream(_Body(size), size), MAX_BYTES, dir=work):
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=8, help="number of 12 MP JPEGs (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the files (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="photo-bench-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        files = make_files(folder, args.count)
        digests = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
        sizes = [p.stat().st_size for p in files]
        print(f"{len(files)} JPEGs of {WIDTH}x{HEIGHT}, median {statistics.median(sizes) / 1e6:.1f} MB, "
              f"made in {time.perf_counter() - started:.1f}s")
        for path in files[:1]:  # warm caches and the resize threads
            floor(path), ingest(path, digests[path], folder), naive(path)
        times: dict[str, list[tuple[float, float]]] = {"floor": [], "ingest": [], "naive": []}
        for _ in range(args.rounds):
            for path in files:
                times["floor"].append(timed(floor, path))
                times["ingest"].append(timed(ingest, path, digests[path], folder))
                times["naive"].append(timed(naive, path))
        wall = {name: statistics.median(t[0] for t in values) for name, values in times.items()}
        cpu = {name: statistics.median(t[1] for t in values) for name, values in times.items()}
        for name in ("floor", "ingest", "naive"):
            print(f"{name:>7}: median {wall[name] * 1000:7.1f} ms wall, {cpu[name] * 1000:7.1f} ms CPU")
        print(f"ingest / floor = {wall['ingest'] / wall['floor']:.2f}x wall (goal <= 1.5x), "
              f"{cpu['ingest'] / cpu['floor']:.2f}x CPU")
        print(f" naive / floor = {wall['naive'] / wall['floor']:.2f}x wall, {cpu['naive'] / cpu['floor']:.2f}x CPU")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times need idle cores; "
              "the display thumbnail is resized on two threads)")
        big, small = upload_peak(40 * 1024 * 1024, folder), upload_peak(4 * 1024 * 1024, folder)
        print(f"peak Python memory streaming an upload: 40 MB body {big / 1024:.0f} KiB, "
              f"4 MB body {small / 1024:.0f} KiB (ratio {big / max(small, 1):.2f})")
        print(f"total {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
