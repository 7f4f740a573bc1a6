"""The app shell as served by Flask: the right files, types and headers, a strict CSP, nothing
inline, and a precache list that names every file the app loads. The fixed addresses are revalidated
and name the current version's files, which are immutable and sent compressed."""
from __future__ import annotations

import gzip
import re
from html.parser import HTMLParser
from pathlib import Path

import brotli
import pytest

PWA = Path(__file__).resolve().parents[2] / "inspect_api" / "static" / "pwa"
VERSION = re.search(r'export const VERSION = "([^"]+)"', (PWA / "version.js").read_text()).group(1)
V = f"/static/pwa/{VERSION}"
IMMUTABLE = "public, max-age=31536000, immutable"
STRICT = ["default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
          "connect-src 'self'", "worker-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]


def csp_directives(response) -> list[str]:
    return [d.strip() for d in response.headers["Content-Security-Policy"].split(";")]


@pytest.mark.parametrize("path, content_type, cache_control", [
    ("/", "text/html", "no-cache"), ("/sw.js", "text/javascript", "no-cache"),
    ("/manifest.webmanifest", "application/manifest+json", "no-cache"),
    (f"{V}/js/app.js", "text/javascript", IMMUTABLE), (f"{V}/css/app.css", "text/css", IMMUTABLE),
    (f"{V}/icons/icon-192.png", "image/png", IMMUTABLE), (f"{V}/icons/icon.svg", "image/svg+xml", IMMUTABLE),
    # unversioned, for a page of an earlier version finishing its update: always revalidated
    ("/static/pwa/js/app.js", "text/javascript", "no-cache"),
])
def test_app_files_are_served_with_a_strict_policy(client, path, content_type, cache_control):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == content_type
    directives = csp_directives(response)
    for directive in STRICT:
        assert directive in directives
    assert not any("unsafe" in d for d in directives)
    assert response.headers["Cache-Control"] == cache_control
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-App-Version"] == VERSION


def test_service_worker_headers(client):
    response = client.get("/sw.js")
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert f'from "{V}/shell.js"'.encode() in response.data


def test_fixed_addresses_name_only_the_current_versions_files(client):
    for path in ("/", "/sw.js", "/manifest.webmanifest"):
        text = client.get(path).get_data(as_text=True)
        named = re.findall(r'"(/static/pwa/[^"]+)"', text)
        assert named and all(n.startswith(V + "/") for n in named), (path, named)
        for url in named:
            assert client.get(url).status_code == 200, url


def test_another_versions_path_is_not_found(client):
    response = client.get("/static/pwa/0.0.1/js/app.js")
    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"


@pytest.mark.parametrize("accept, encoding", [
    ("gzip, deflate, br, zstd", "br"), ("gzip", "gzip"), ("br;q=0.5, gzip", "gzip"), ("gzip;q=0, br;q=0", None),
    ("identity", None), ("", None),
])
def test_text_files_are_compressed_as_the_client_accepts(client, accept, encoding):
    plain = (PWA / "js" / "sync.js").read_bytes()
    response = client.get(f"{V}/js/sync.js", headers={"Accept-Encoding": accept} if accept else {})
    assert response.status_code == 200
    assert response.headers.get("Content-Encoding") == encoding
    assert "Accept-Encoding" in response.headers["Vary"]
    body = response.get_data()
    assert int(response.headers["Content-Length"]) == len(body)
    unpack = {"br": brotli.decompress, "gzip": gzip.decompress, None: lambda b: b}[encoding]
    assert unpack(body) == plain
    if encoding:
        assert len(body) < len(plain) / 2


def test_each_encoding_has_its_own_etag_and_revalidates(client):
    tags = {}
    for accept in ("br", "gzip", "identity"):
        first = client.get(f"{V}/js/app.js", headers={"Accept-Encoding": accept})
        tags[accept] = first.headers["ETag"]
        again = client.get(f"{V}/js/app.js", headers={"Accept-Encoding": accept, "If-None-Match": tags[accept]})
        assert again.status_code == 304 and again.get_data() == b"" and again.headers["ETag"] == tags[accept]
        assert again.headers["Cache-Control"] == IMMUTABLE
    assert len(set(tags.values())) == 3
    # a cached gzip copy is not the brotli one: asked for brotli, the client gets it whole
    other = client.get(f"{V}/js/app.js", headers={"Accept-Encoding": "br", "If-None-Match": tags["gzip"]})
    assert other.status_code == 200 and other.headers["Content-Encoding"] == "br"


def test_the_shell_document_is_compressed_and_revalidated(client):
    first = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert first.headers["Content-Encoding"] == "gzip" and first.headers["Cache-Control"] == "no-cache"
    assert f'src="{V}/js/app.js"' in gzip.decompress(first.get_data()).decode()
    again = client.get("/", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_images_go_as_they_are(client):
    response = client.get(f"{V}/icons/icon-512.png", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in response.headers
    assert response.get_data() == (PWA / "icons" / "icon-512.png").read_bytes()


def test_revalidation_answers_not_modified(client):
    first = client.get("/static/pwa/js/app.js")
    again = client.get("/static/pwa/js/app.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("path", ["/static/pwa/../../inspect_api/config.py", "/static/pwa/%2e%2e/%2e%2e/pyproject.toml",
                                  "/static/pwa/icons/make_icons.py", "/static/pwa/nope.js", "/static/pwa/js/"])
def test_nothing_outside_the_app_or_of_other_types(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"


def test_api_responses_keep_their_own_headers(client):
    # The app's policy is for the app; the API documentation page needs its own.
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert "Content-Security-Policy" not in response.headers


def test_manifest_is_installable(client):
    manifest = client.get("/manifest.webmanifest").get_json(force=True)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/" and manifest["name"]
    assert manifest["theme_color"] and manifest["background_color"]
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200


class _Inline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = {name for name, _ in attrs}
        if "style" in names or any(name.startswith("on") for name in names):
            self.problems.append(f"<{tag}> has an inline style or handler")
        if tag == "script" and "src" not in names:
            self.problems.append("inline <script>")
        if tag == "style":
            self.problems.append("inline <style>")


def test_no_inline_script_or_style_in_the_shell():
    parser = _Inline()
    parser.feed((PWA / "index.html").read_text())
    assert parser.problems == []


def app_modules() -> list[Path]:
    """The app's own modules. The vendored map library (vendor/) is someone else's code, checked byte
    for byte against its locked package instead (tests/web/test_vendored.py); the app hands it only
    numbers and DOM nodes it built, never HTML (the operator-set tile attribution is the one string)."""
    return sorted(p for p in PWA.rglob("*.js") if "vendor" not in p.relative_to(PWA).parts)


def test_modules_build_the_dom_safely_and_stay_small():
    forbidden = [r"\.innerHTML\b", r"\.outerHTML\b", r"insertAdjacentHTML", r"\beval\(", r"new Function\(",
                 r"\.style\.", r"setAttribute\(\s*[\"']style", r"document\.write"]
    for path in app_modules():
        text = path.read_text()
        for pattern in forbidden:
            assert not re.search(pattern, text), f"{path.name} uses {pattern}"
        assert len(text.splitlines()) <= 400, f"{path.name} is over 400 lines"


def shell_list(name: str) -> set[str]:
    text = (PWA / "shell.js").read_text()
    return set(re.findall(r'^  "([^"]+)",$', text.split(f"const {name} = [")[1].split("];")[0], re.MULTILINE))


def statically_imported(*entries: str) -> set[str]:
    """The modules `entries` import, and theirs, without the ones imported on first use (import())."""
    seen, stack = set(), list(entries)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        path = PWA / name
        for spec in re.findall(r'from "(\.{1,2}/[^"]+)"', path.read_text()):
            stack.append((path.parent / spec).resolve().relative_to(PWA.resolve()).as_posix())
    return seen


def test_what_is_kept_later_is_no_part_of_the_first_load():
    """LATER (kept after sign-in) holds nothing the page or the worker imports to start: else a first
    load would fetch it anyway, and an offline start could miss it."""
    later = shell_list("LATER")
    assert later and not later & shell_list("FILES")
    assert {"vendor/leaflet/leaflet-src.esm.js", "js/ui/viewer.js"} <= later
    started = statically_imported("js/app.js", "shell.js", "js/sw_tiles.js")
    assert not later & started, later & started
    index = (PWA / "index.html").read_text()
    assert [f for f in later if f in index] == []


def test_precache_lists_every_file_the_app_loads():
    listed = shell_list("FILES") | shell_list("LATER")
    shipped = {p.relative_to(PWA).as_posix() for p in PWA.rglob("*")
               if p.is_file() and p.suffix in {".js", ".css", ".png", ".svg"} and p.name != "sw.js"}
    assert listed == shipped
    imports = set()
    for path in app_modules():
        for spec in re.findall(r'from "(\.{1,2}/[^"]+)"', path.read_text()):
            imports.add((path.parent / spec).resolve().relative_to(PWA.resolve()).as_posix())
    assert imports <= listed


def test_version_is_set_in_one_place():
    version_files = [p for p in PWA.rglob("*.js") if re.search(r"export const VERSION\b", p.read_text())]
    assert [p.name for p in version_files] == ["version.js"]
    sw = (PWA / "sw.js").read_text()
    assert "CACHE = PREFIX + VERSION" in sw and "caches.delete" in sw and "skipWaiting" in sw


def test_media_origins_extend_only_images_and_connections():
    from inspect_api.web.routes import content_security_policy
    policy = content_security_policy("https://bucket.s3.amazonaws.com http://plain.example 'unsafe-inline' https://minio.local:9000")
    directives = [d.strip() for d in policy.split(";")]
    assert "img-src 'self' blob: data: https://bucket.s3.amazonaws.com https://minio.local:9000" in directives
    assert "connect-src 'self' https://bucket.s3.amazonaws.com https://minio.local:9000" in directives
    assert "script-src 'self'" in directives and "unsafe" not in policy and "http://plain" not in policy


# The version the shell's files were last recorded under, with a fingerprint of their bytes. A file
# served under /static/pwa/<VERSION>/ is cached for a year, so changing any shell file under the same
# VERSION would leave devices on the old bytes: the fingerprint makes that change fail here.
FINGERPRINT = Path(__file__).with_name("shell_fingerprint.txt")


def shell_fingerprint() -> str:
    import hashlib
    digest = hashlib.sha256()
    for path in sorted(p for p in PWA.rglob("*") if p.is_file() and p.name != "version.js"):
        digest.update(path.relative_to(PWA).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_a_changed_shell_has_a_new_version():
    import os
    recorded_version, recorded = FINGERPRINT.read_text().split()
    current = shell_fingerprint()
    changed_in_place = current != recorded and recorded_version == VERSION
    if os.environ.get("UPDATE_SHELL_FINGERPRINT") and not changed_in_place:
        FINGERPRINT.write_text(f"{VERSION} {current}\n")
        return
    assert not changed_in_place, (
        f"static/pwa changed under version {VERSION}: devices keep the old files for a year under its path. "
        "Set a new VERSION in version.js, then record it: UPDATE_SHELL_FINGERPRINT=1 "
        ".venv/bin/python -m pytest tests/web/test_routes.py -k changed_shell")
    assert (recorded_version, recorded) == (VERSION, current), (
        f"version.js says {VERSION}, the fingerprint was recorded for {recorded_version}: record the new one with "
        "UPDATE_SHELL_FINGERPRINT=1 .venv/bin/python -m pytest tests/web/test_routes.py -k changed_shell")
