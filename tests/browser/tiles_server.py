"""A tile server for the map tests: {z}/{x}/{y}.png on 127.0.0.1, threaded, with CORS headers as a
real tile server sends them, counting the tiles it served. Each tile is a PNG drawn for its address;
`noisy` tiles are random pixels (about 200 kB, which PNG cannot compress) for budget tests."""
from __future__ import annotations

import io
import random
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image, ImageDraw

_TILE = re.compile(r"^/tiles/(\d{1,2})/(\d{1,7})/(\d{1,7})\.png$")


def tile_png(z: int, x: int, y: int, noisy: bool = False) -> bytes:
    if noisy:
        image = Image.frombytes("RGB", (256, 256), random.Random(f"{z}/{x}/{y}").randbytes(256 * 256 * 3))
    else:
        image = Image.new("RGB", (256, 256), ((x * 37) % 200 + 40, (y * 53) % 200 + 40, (z * 71) % 200 + 40))
        ImageDraw.Draw(image).text((12, 12), f"{z}/{x}/{y}", fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class TileServer:
    def __init__(self, noisy: bool = False) -> None:
        self.noisy = noisy
        self.served: Counter[str] = Counter()
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                match = _TILE.match(self.path.split("?")[0])
                if not match:
                    self.send_error(404)
                    return
                body = tile_png(*map(int, match.groups()), noisy=owner.noisy)
                with owner.lock:
                    owner.served[self.path] += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Cache-Control", "no-store")  # only the app's own cache may keep a tile
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.url = self.origin + "/tiles/{z}/{x}/{y}.png"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.running = False

    def start(self) -> TileServer:
        self.thread.start()
        self.running = True
        return self

    def stop(self) -> None:
        if self.running:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(timeout=10)
            self.running = False

    @property
    def tiles_served(self) -> int:
        with self.lock:
            return sum(self.served.values())

    def __enter__(self) -> TileServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
