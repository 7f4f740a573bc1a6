"""A sync storm: K tablets ending their day at once against the real server.

    python benchmarks/storm.py                                  # --workers 1,2 --tablets 8 --threads 4
    python benchmarks/storm.py --pg postgresql://postgres@127.0.0.1:5432/postgres --tablets 4 --photos 5

For each W in --workers: a throwaway PostgreSQL database (created on --pg, upgraded with this tree's
`inspect-api db upgrade`, dropped afterwards), a fresh bucket on moto's S3 server (its own process on
127.0.0.1), and gunicorn serving `inspect_api:create_app()` with W worker processes of --threads
threads each (gthread, as README deploys it) on 127.0.0.1.
Then K tablets at once, each an inspector assigned to its own sites, do a day's end exactly as the
app does it: sign in, pull every page, push --mutations (entry authorizations, inspections with
their checklists, findings, samples: the app's own payloads) in batches of --batch, upload --photos
camera-size JPEGs over tus 1.0 with a checksum per chunk, and pull again. Meanwhile a supervisor
reads lists in a loop. The thumbnails are made as in production: by `inspect-api worker
--photos-only` (--photo-workers processes of it beside gunicorn; 0 makes them inside the upload
request, PHOTO_DERIVE_INLINE). Printed per W: wall time, mutations/s, photos/s, the supervisor's read
latency (p50/p99 over all reads and for each kind of read; goal p99 < 1 s), errors by status, the
requests sent again after a 503 with Retry-After (the server busy, nothing applied), the
server's peak memory (RSS of the gunicorn master and its workers, from /proc), the CPU the photo
workers took and how long after the storm their queue ran dry, and a check through the API that
every record and photo arrived exactly once. Last, the throughput ratio W=max / W=min, measured in
the same run.

Every request goes to 127.0.0.1; every loop is bounded in count and in time (--deadline seconds
per run) and stops by itself. The machine may be shared: figures are as measured, noise included.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from benchmarks.throwaway import Throwaway  # noqa: E402

API = "/api/v1"
PASSWORD = "storm benchmark password 1"
CHUNK = 512 * 1024  # the app's tus chunk (static/pwa/js/upload.js)
PYTHON = sys.executable
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
RETRIES = 3  # a failed request (a 5xx, a dropped connection) is tried again, like the app's next sync
BUSY_TRIES = 20  # a 503 with Retry-After (sync_busy, image_busy) is sent again after it, this many times
READ_GOAL_MS = 1000  # the supervisor's read p99 during the storm


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if requests.get(url, timeout=2).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {seconds:.0f} s")


# --- the photo ------------------------------------------------------------------------------------

def camera_jpeg(lat: float, lon: float) -> bytes:
    """A 12 MP (4000x3000) JPEG of about 3-4 MB, with the EXIF a phone camera writes (make, model,
    time, GPS as degree/minute/second rationals): noise keeps it from compressing below camera size."""
    from fractions import Fraction

    from PIL import Image
    from PIL.TiffImagePlugin import IFDRational
    size = (4000, 3000)
    base = Image.linear_gradient("L").resize(size)
    noise = Image.effect_noise(size, 30)
    image = Image.merge("RGB", (noise, base, Image.blend(noise, base, 0.5)))

    def dms(value: float):
        value = abs(value)
        d, m = int(value), int((abs(value) - int(value)) * 60)
        s = round(((value - d) * 60 - m) * 60 * 100)
        return (IFDRational(d, 1), IFDRational(m, 1), IFDRational(Fraction(s, 100)))

    exif = Image.Exif()
    exif[0x010F], exif[0x0110], exif[0x0132] = "StormCam", "Tablet 12", "2026:05:04 16:15:00"
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2], gps[3], gps[4] = ("N" if lat >= 0 else "S"), dms(lat), ("E" if lon >= 0 else "W"), dms(lon)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=82, exif=exif)
    return out.getvalue()


# --- the services: database, S3, gunicorn ---------------------------------------------------------

class MotoS3:
    """moto's ThreadedMotoServer in a process of its own (its work must not share this process's
    interpreter lock with the tablets); it ends when its stdin closes."""

    CODE = ("import sys; from moto.server import ThreadedMotoServer; "
            "s = ThreadedMotoServer(ip_address='127.0.0.1', port=int(sys.argv[1]), verbose=False); s.start(); "
            "print('ready', flush=True); sys.stdin.read(); s.stop()")

    def __init__(self, env: dict) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([PYTHON, "-c", self.CODE, str(self.port)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("moto's server did not start")

    def bucket(self, name: str) -> None:
        import boto3
        boto3.client("s3", endpoint_url=self.endpoint).create_bucket(Bucket=name)

    def stop(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Gunicorn:
    def __init__(self, workers: int, threads: int, env: dict) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [GUNICORN, "--workers", str(workers), "--threads", str(threads), "--bind", f"127.0.0.1:{self.port}",
             "--timeout", "120", "--chdir", str(ROOT), "--log-level", "warning", "inspect_api:create_app()"],
            env=env, cwd=ROOT)
        wait_for(self.url + "/api/v1/openapi.json", 60)

    def pids(self) -> list[int]:
        pids = [self.proc.pid]
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
            pids += [int(p) for p in children]
        except OSError:
            pass
        return pids

    def rss_bytes(self) -> int:
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            except OSError:
                pass
        return total

    def cpu_seconds(self) -> dict[int, float]:
        return {pid: cpu_seconds(pid) for pid in self.pids()}

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


class PhotoWorkers:
    """`inspect-api worker --photos-only`, `count` processes of it (none: the thumbnails are made
    inline) at scheduling priority `nice` (below the web workers, as README advises running it:
    requests get the CPU first and thumbnails take what is left), stopped with SIGTERM (each finishes the photo in hand)."""

    CODE = "import sys; from inspect_api.cli import main; sys.argv = ['inspect-api', 'worker', '--photos-only']; main()"

    def __init__(self, count: int, env: dict, nice: int) -> None:
        self.procs = [subprocess.Popen([PYTHON, "-c", self.CODE], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                       preexec_fn=lambda: os.nice(nice) if nice else None)
                      for _ in range(count)]

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.procs)

    def stop(self) -> None:
        for proc in self.procs:
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def thumbnail_jobs(db_url: str) -> Counter:
    """Photo derivation jobs by status (queued, leased or not, until done or failed)."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return Counter(dict(conn.exec_driver_sql("SELECT status, count(*) FROM photo_derivations GROUP BY status").all()))
    finally:
        engine.dispose()


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (/proc/PID/stat fields 14 and 15)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy_seconds() -> float:
    """CPU time the whole machine has spent busy (all processes, /proc/stat), to tell how much of
    it this run's server had."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values[:8]) - idle) / TICK


def server_env(db_url: str, s3: MotoS3, bucket: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "STORAGE_URL"))}
    env.update({"DATABASE_URL": db_url, "STORAGE_URL": f"s3://{bucket}/storm", "S3_ENDPOINT_URL": s3.endpoint,
                "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_CONFIG_FILE": "/dev/null",
                "SECRET_KEY": secrets.token_hex(32), "JWT_SECRET_KEY": secrets.token_hex(32),
                "INSPECT_API_ENV": "production", "PYTHONPATH": str(ROOT),
                # The storm's sign-ins all come from 127.0.0.1; only failed ones count, and none fail.
                "LOGIN_RATE_LIMIT": "1000 per minute"})
    env.pop("AWS_SESSION_TOKEN", None)
    env.pop("AWS_PROFILE", None)
    return env


def cli(env: dict, *args: str) -> None:
    code = "import sys; from inspect_api.cli import main; sys.argv = ['inspect-api', *sys.argv[1:]]; main()"
    subprocess.run([PYTHON, "-c", code, *args], env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


SEED = """
import json, sys
from inspect_api import create_app
from inspect_api.extensions import db
app = create_app()
spec = json.loads(sys.argv[1])
with app.app_context():
    from inspect_api.auth.services import create_user
    from inspect_api.permits import services as permits
    from inspect_api.seed import run_all
    run_all()
    db.session.commit()
    supervisor = create_user("supervisor@storm.example", spec["password"], "Storm Supervisor", "supervisor")
    applicant = create_user("applicant@storm.example", spec["password"], "Storm Applicant", "applicant")
    out = {"tablets": []}
    def site(n):
        permit, _ = permits.create_permit(applicant, {
            "site": {"address": f"{n} Storm Road, Fairhaven, MA 02719", "parcel_id": f"90-{n:04d}",
                     "location": {"lat": 41.63 + n * 1e-4, "lon": -70.90}},
            "owner": {"name": f"Owner {n}"}, "disturbed_area_sqft": 30000, "drains_to_ms4": True,
            "drains_to_waters": False, "proposed_use": "warehouse"})
        permits.force_status(permit, "issued")
        return permit
    n = 0
    for t in range(spec["tablets"]):
        inspector = create_user(f"inspector{t}@storm.example", spec["password"], f"Inspector {t}", "inspector")
        sites = []
        for _ in range(spec["sites"]):
            n += 1
            permit = site(n)
            permits.assign_inspector(permit, inspector.id, supervisor)
            sites.append(permit.id)
        out["tablets"].append({"email": inspector.email, "sites": sites})
    for _ in range(spec["background"]):  # other permits, so the supervisor's lists have pages to read
        n += 1
        site(n)
    db.session.commit()
    print(json.dumps(out))
"""


def seed(env: dict, tablets: int, sites: int, background: int) -> dict:
    spec = json.dumps({"tablets": tablets, "sites": sites, "background": background, "password": PASSWORD})
    done = subprocess.run([PYTHON, "-c", SEED, spec], env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the clients ----------------------------------------------------------------------------------

@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    errors: Counter = field(default_factory=Counter)
    deferred: Counter = field(default_factory=Counter)  # 503s with Retry-After, waited out and sent again
    outcomes: Counter = field(default_factory=Counter)
    photos_ok: int = 0

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] += 1


class Client:
    def __init__(self, base: str, tally: Tally, deadline: float) -> None:
        self.base, self.tally, self.deadline = base, tally, deadline
        self.http = requests.Session()
        self.headers: dict = {}

    def call(self, method: str, path: str, *, ok=(200, 201, 204), **kwargs) -> requests.Response:
        """One request; a 5xx or a dropped connection is counted, then tried again (at most RETRIES
        times, and never past the run's deadline). A 503 with Retry-After (sync_busy: the server was
        applying other batches and applied nothing of this one; image_busy) is not an error: like the
        app (static/pwa/js/sync_progress.js busyRetry), the client waits that long, plus up to half
        again at random, and sends it again, at most BUSY_TRIES times; each such wait is counted."""
        headers = kwargs.pop("headers", {})
        attempt = busy = 0
        while True:
            if time.monotonic() > self.deadline:
                raise TimeoutError("the run's deadline passed")
            try:
                response = self.http.request(method, self.base + path, headers={**self.headers, **headers},
                                             timeout=120, **kwargs)
            except requests.RequestException as exc:
                self.tally.error(f"{method} {path.split('?')[0].rsplit('/', 1)[0]}: {type(exc).__name__}")
                if attempt == RETRIES:
                    raise
                attempt += 1
                time.sleep(1)
                continue
            if response.status_code in ok:
                return response
            is_json = response.headers.get("Content-Type", "").startswith("application/json")
            key = response.json().get("error") if is_json else None
            if response.status_code == 503 and "Retry-After" in response.headers and busy < BUSY_TRIES:
                with self.tally.lock:
                    self.tally.deferred[key] += 1
                busy += 1
                time.sleep(float(response.headers["Retry-After"]) * (1 + random.random() / 2))
                continue
            self.tally.error(f"{response.status_code} {key}")
            if response.status_code < 500 or attempt == RETRIES:
                return response
            attempt += 1
            time.sleep(attempt)

    def login(self, email: str, device: str) -> None:
        body = self.call("POST", f"{API}/auth/login", json={"email": email, "password": PASSWORD, "device_id": device}).json()
        self.headers = {"Authorization": "Bearer " + body["access_token"], "X-Device-Id": device}

    def pull_all(self, cursor: str | None) -> tuple[str | None, int]:
        seen = 0
        for _page in range(1000):
            query = {"limit": 500, **({"cursor": cursor} if cursor else {})}
            response = self.call("GET", f"{API}/sync/pull", params=query)
            if response.status_code != 200:
                return cursor, seen
            body = response.json()
            seen += len(body["changes"])
            cursor = body["cursor"]
            if not body["has_more"]:
                break
        return cursor, seen


def day_of_work(sites: list[str], count: int) -> tuple[list[dict], list[tuple[str, str]], dict[str, list[str]]]:
    """`count` mutations as the app queues them (screens/entry.js, inspection.js, sample.js), in
    visits of four: an entry authorization, an inspection on it with its checklist, a finding of the
    inspection, a water sample. Returns the mutations, (inspection id, permit id) pairs for the photos,
    and the ids made per entity."""
    from inspect_api.checklists.defaults import DEFAULT_ITEMS
    now = datetime.now(timezone.utc)
    iso = lambda t: t.isoformat().replace("+00:00", "Z")  # noqa: E731
    mutations, inspections, made = [], [], {"entry_authorization": [], "inspection": [], "finding": [], "sample": []}

    def add(entity: str, data: dict) -> str:
        if len(mutations) >= count:
            return data["id"]
        mutations.append({"mutation_id": str(uuid.uuid4()), "entity": entity, "id": data["id"], "op": "upsert",
                          "base_version": None, "data": data})
        made[entity].append(data["id"])
        return data["id"]

    visit = 0
    while len(mutations) < count:
        permit_id = sites[visit % len(sites)]
        started = now - timedelta(hours=6) + timedelta(minutes=visit)
        entry = add("entry_authorization", {
            "id": str(uuid.uuid4()), "permit_id": permit_id, "basis": "permit_condition", "granted_by_name": f"Owner {visit}",
            "granted_by_relation": "owner", "scope": ["examination", "survey", "sampling"],
            "valid_from": iso(now - timedelta(days=1)), "valid_to": iso(now + timedelta(days=30)),
            "signature_photo_id": None, "notes": f"Gate code {visit:04d}", "device_created_at": iso(started)})
        items = [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]
        items[0] = {"key": items[0]["key"], "answer": "deficient", "note": "Silt fence down along the east edge"}
        inspection = add("inspection", {
            "id": str(uuid.uuid4()), "permit_id": permit_id, "entry_authorization_id": entry, "kind": "routine",
            "started_at": iso(started), "ended_at": iso(started + timedelta(minutes=40)),
            "location": {"lat": 41.63, "lon": -70.90, "accuracy_m": 6.0},
            "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.1}, "phase": None,
            "unsafe_areas": [], "notes": f"Visit {visit}", "disturbance_observed": False,
            "checklist": {"template": "esc", "template_version": None, "items": items},
            "device_created_at": iso(started)})
        if len(made["inspection"]) and made["inspection"][-1] == inspection:
            inspections.append((inspection, permit_id))
        add("finding", {"id": str(uuid.uuid4()), "permit_id": permit_id, "inspection_id": inspection,
                        "kind": "deficiency", "item_key": items[0]["key"], "severity": "moderate",
                        "description": "Silt fence down along the east edge", "required_action": "Reset and trench the fence",
                        "needs_new_control": False, "observed_on": started.date().isoformat(), "photo_ids": [],
                        "device_created_at": iso(started)})
        add("sample", {"id": str(uuid.uuid4()), "permit_id": permit_id, "entry_authorization_id": entry,
                       "sampled_at": iso(started + timedelta(minutes=20)), "sampler": "Inspector",
                       "location": {"lat": 41.63, "lon": -70.90}, "outfall_id": "OF-1", "sample_type": "grab",
                       "analysis": "field", "lab_name": None,
                       "parameters": [{"name": "turbidity", "value": "12", "unit": "NTU"}], "notes": None,
                       "device_created_at": iso(started)})
        visit += 1
    return mutations, inspections, made


def b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def upload(client: Client, photo: bytes, sha: str, permit_id: str, parent_id: str) -> str | None:
    photo_id = str(uuid.uuid4())
    meta = {"photo_id": photo_id, "id": photo_id, "permit_id": permit_id, "parent_type": "inspection",
            "parent_id": parent_id, "sha256": sha, "content_type": "image/jpeg", "filetype": "image/jpeg",
            "filename": f"{photo_id}.jpg", "captured_at": datetime.now(timezone.utc).isoformat(),
            "device_lat": "41.63", "device_lon": "-70.9", "device_accuracy_m": "6"}
    tus = {"Tus-Resumable": "1.0.0"}
    created = client.call("POST", f"{API}/uploads", headers={**tus, "Upload-Length": str(len(photo)),
                          "Upload-Metadata": ",".join(f"{k} {b64(v)}" for k, v in meta.items())})
    if created.status_code != 201:
        return None
    path = "/" + created.headers["Location"].split("://", 1)[-1].split("/", 1)[-1] if "://" in created.headers["Location"] \
        else created.headers["Location"]
    offset = 0
    for _chunk in range(len(photo) // CHUNK + 2):
        if offset >= len(photo):
            break
        chunk = photo[offset:offset + CHUNK]
        checksum = base64.b64encode(hashlib.sha256(chunk).digest()).decode()
        response = client.call("PATCH", path, ok=(200, 204), data=chunk, headers={
            **tus, "Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream",
            "Upload-Checksum": f"sha256 {checksum}"})
        if response.status_code == 200:
            return photo_id
        if response.status_code != 204:
            head = client.call("HEAD", path, headers=tus)  # where the server is, as the app asks after a refusal
            if head.status_code != 200:
                return None
            offset = int(head.headers.get("Upload-Offset", 0))
            continue
        offset = int(response.headers["Upload-Offset"])
    return None


@dataclass
class TabletResult:
    made: dict
    photos: list[str]
    pulled_before: int = 0
    pulled_after: int = 0


def distinct(photo: bytes, label: str) -> bytes:
    """The photo with a JPEG comment (COM segment) naming it: the same pixels, other bytes, so each
    upload is a photo of its own with its own thumbnails to make, as a tablet's photos are (the
    server makes one pair of thumbnails per distinct original)."""
    comment = f"storm {label}".encode()
    return photo[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + photo[2:]


def tablet(base: str, tally: Tally, deadline: float, n: int, spec: dict, args, photo: bytes) -> TabletResult:
    client = Client(base, tally, deadline)
    device = f"storm-tablet-{n}"
    mutations, inspections, made = day_of_work(spec["sites"], args.mutations)
    result = TabletResult(made, [])
    client.login(spec["email"], device)
    cursor, result.pulled_before = client.pull_all(None)
    for start in range(0, len(mutations), args.batch):
        response = client.call("POST", f"{API}/sync/push", json={
            "device_id": device, "app_version": "storm", "pending_count": len(mutations) - start,
            "mutations": mutations[start:start + args.batch]})
        if response.status_code == 200:
            with tally.lock:
                tally.outcomes.update(r["status"] for r in response.json()["results"])
    for k in range(args.photos):
        parent, permit_id = inspections[k % len(inspections)]
        mine = distinct(photo, f"{uuid.uuid4()}")
        photo_id = upload(client, mine, hashlib.sha256(mine).hexdigest(), permit_id, parent)
        if photo_id:
            result.photos.append(photo_id)
            with tally.lock:
                tally.photos_ok += 1
    _cursor, result.pulled_after = client.pull_all(cursor)
    return result


READS = ["/permits?limit=50", "/inspections?limit=50", "/inspections/due?limit=50", "/findings?limit=50",
         "/samples?limit=50", "/inspections?status=submitted&limit=50"]


def supervisor_loop(base: str, tally: Tally, deadline: float, stop: threading.Event,
                    latencies: list[tuple[str, float]]) -> None:
    """Reads the lists in turn; each latency is kept with the kind of read (its path) it was."""
    client = Client(base, tally, deadline)
    client.login("supervisor@storm.example", "storm-office")
    for n in range(100_000):
        if stop.is_set() or time.monotonic() > deadline:
            return
        path = READS[n % len(READS)]
        start = time.perf_counter()
        client.call("GET", API + path)
        latencies.append((path, time.perf_counter() - start))
        time.sleep(0.05)  # a person clicking through lists, not a flood


def memory_sampler(server: Gunicorn, stop: threading.Event, peak: list[int], cpu: dict[int, float]) -> None:
    """Peak RSS of master + workers, and each process's CPU time (the last value seen: workers are
    gone once the server stops)."""
    while not stop.wait(0.2):
        peak[0] = max(peak[0], server.rss_bytes())
        cpu.update(server.cpu_seconds())


def listed(client: Client, path: str, permit_id: str) -> list[dict]:
    found: list[dict] = []
    for offset in range(0, 100_000, 500):
        response = client.call("GET", f"{API}{path}", params={"permit_id": permit_id, "limit": 500, "offset": offset})
        page = response.json()
        found += page
        if len(page) < 500:
            break
    return found


def verify(base: str, tally: Tally, results: list[TabletResult], specs: list[dict]) -> list[str]:
    """Through the API, as the supervisor: each permit holds exactly the records and photos its
    tablet sent, each once."""
    client = Client(base, tally, time.monotonic() + 600)
    client.login("supervisor@storm.example", "storm-check")
    problems = []
    paths = {"entry_authorization": "/entry-authorizations", "inspection": "/inspections", "finding": "/findings",
             "sample": "/samples"}
    for result, spec in zip(results, specs):
        for entity, path in [*paths.items(), ("photo", "/photos")]:
            sent = result.photos if entity == "photo" else result.made[entity]
            rows = [r for permit_id in spec["sites"] for r in listed(client, path, permit_id)]
            if entity == "finding":  # the server raises findings of its own from a sample's exceedance (R-S2)
                rows = [r for r in rows if not r.get("sample_id")]
            found = [r["id"] for r in rows]
            if len(found) != len(set(found)):
                problems.append(f"{spec['email']}: {entity} listed twice")
            if sorted(found) != sorted(sent):
                problems.append(f"{spec['email']}: {entity} sent {len(sent)}, found {len(found)}, "
                                f"missing {len(set(sent) - set(found))}, extra {len(set(found) - set(sent))}")
    return problems


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(workers: int, args, s3: MotoS3, photo: bytes) -> dict:
    db = Throwaway(args.pg, "storm_bench")  # upgraded to head by this tree's CLI below
    bucket = f"storm-{uuid.uuid4().hex[:8]}"
    s3.bucket(bucket)
    env = server_env(db.url, s3, bucket)
    env["PHOTO_DERIVE_INLINE"] = "off" if args.photo_workers else "on"
    server = photo_workers = None
    try:
        cli(env, "db", "upgrade")
        people = seed(env, args.tablets, args.sites, args.background)
        server = Gunicorn(workers, args.threads, env)
        photo_workers = PhotoWorkers(args.photo_workers, env, args.photo_nice)
        tally, latencies, peak, stop, cpu = Tally(), [], [0], threading.Event(), {}
        deadline = time.monotonic() + args.deadline
        sampler = threading.Thread(target=memory_sampler, args=(server, stop, peak, cpu), daemon=True)
        reader = threading.Thread(target=supervisor_loop, args=(server.url, tally, deadline, stop, latencies), daemon=True)
        results: list[TabletResult | None] = [None] * args.tablets
        failures: list[str] = []

        def one(n: int) -> None:
            try:
                results[n] = tablet(server.url, tally, deadline, n, people["tablets"][n], args, photo)
            except Exception as exc:  # counted and shown; the other tablets go on
                failures.append(f"tablet {n}: {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=one, args=(n,), daemon=True) for n in range(args.tablets)]
        sampler.start()
        reader.start()
        time.sleep(0.5)  # the supervisor is reading before the storm starts
        cpu_before = {pid: cpu_seconds(pid) for pid in server.pids()}
        moto_before, busy_before, load_before = cpu_seconds(s3.proc.pid), machine_busy_seconds(), os.getloadavg()[0]
        photo_cpu_before = photo_workers.cpu_seconds()
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()) + 5)
        wall = time.perf_counter() - start
        cpu.update(server.cpu_seconds())
        server_cpu = sum(cpu.get(pid, 0.0) - cpu_before.get(pid, 0.0) for pid in cpu)
        moto_cpu, busy = cpu_seconds(s3.proc.pid) - moto_before, machine_busy_seconds() - busy_before
        photo_cpu = photo_workers.cpu_seconds() - photo_cpu_before
        stop.set()
        reader.join(10)
        sampler.join(5)
        drained_after = None  # seconds after the storm until no thumbnail was left to make
        if args.photo_workers:
            waited = time.perf_counter()
            while time.perf_counter() - waited < 300:
                if thumbnail_jobs(db.url)["queued"] == 0:
                    drained_after = time.perf_counter() - waited
                    break
                time.sleep(0.5)
        done = [r for r in results if r is not None]
        problems = failures + verify(server.url, tally, done, [people["tablets"][n] for n, r in enumerate(results) if r])
        if len(done) < args.tablets:
            problems.append(f"{args.tablets - len(done)} tablet(s) did not finish")
        applied = tally.outcomes.get("applied", 0)
        if args.photo_workers and drained_after is None:
            problems.append("thumbnails still queued 300 s after the storm")
        jobs = thumbnail_jobs(db.url)
        if jobs["done"] != tally.photos_ok or jobs["failed"]:
            problems.append(f"thumbnails: {tally.photos_ok} photos, jobs {dict(jobs)}")
        seconds = [s for _kind, s in latencies]
        by_kind = {kind: [s for k, s in latencies if k == kind] for kind in READS}
        return {"workers": workers, "wall_s": wall, "applied": applied, "outcomes": dict(tally.outcomes),
                "photos": tally.photos_ok, "mutations_per_s": applied / wall, "photos_per_s": tally.photos_ok / wall,
                "reads": len(latencies), "p50_ms": pct(seconds, 0.5) * 1000, "p99_ms": pct(seconds, 0.99) * 1000,
                "by_kind": {kind: (len(v), pct(v, 0.5) * 1000, pct(v, 0.99) * 1000) for kind, v in by_kind.items()},
                "photo_cpu_s": photo_cpu, "drained_after_s": drained_after,
                "errors": dict(tally.errors), "deferred": dict(tally.deferred), "peak_rss_mb": peak[0] / 2**20, "problems": problems,
                "server_cpu_s": server_cpu, "moto_cpu_s": moto_cpu, "machine_busy_s": busy,
                "load": (load_before, os.getloadavg()[0])}
    finally:
        if photo_workers is not None:
            photo_workers.stop()
        if server is not None:
            server.stop()
        db.drop()


def wall_cores(r: dict) -> float:
    return r["wall_s"] * (os.cpu_count() or 1)


def report(r: dict, args) -> str:
    if r["drained_after_s"] is not None:
        thumbnails = (f"{args.photo_workers} worker process(es) at nice {args.photo_nice}, "
                      f"{r['photo_cpu_s']:.0f} s CPU during the storm, "
                      f"queue empty {r['drained_after_s']:.1f} s after it")
    else:
        thumbnails = "made inside the upload requests" if not args.photo_workers else "queue NOT empty 300 s after the storm"
    met = "met" if r["p99_ms"] < READ_GOAL_MS else "NOT met"
    return "\n".join([
        f"\nW={r['workers']}: wall {r['wall_s']:.1f} s; {r['applied']} mutations applied ({r['mutations_per_s']:.1f}/s), "
        f"outcomes {r['outcomes']}; {r['photos']} photos ({r['photos_per_s']:.2f}/s)",
        f"  supervisor: {r['reads']} reads, p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms "
        f"(goal p99 < {READ_GOAL_MS} ms: {met})",
        *(f"    GET {kind}: {n} reads, p50 {p50:.0f} ms, p99 {p99:.0f} ms" for kind, (n, p50, p99) in r["by_kind"].items()),
        f"  thumbnails: {thumbnails}",
        f"  errors by status: {r['errors'] or 'none'}",
        f"  sent again after the server's Retry-After (503, nothing applied): {r['deferred'] or 'none'}",
        f"  server peak memory (gunicorn master + workers RSS): {r['peak_rss_mb']:.0f} MiB",
        f"  CPU: server {r['server_cpu_s']:.0f} s ({r['server_cpu_s'] / r['wall_s']:.2f} cores on average), "
        f"moto's S3 {r['moto_cpu_s']:.0f} s, whole machine {r['machine_busy_s']:.0f} s of {wall_cores(r):.0f} s "
        f"available; load {r['load'][0]:.1f} -> {r['load'][1]:.1f}",
        f"  arrived exactly once: {'yes' if not r['problems'] else 'NO: ' + '; '.join(r['problems'][:10])}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts, one run each")
    parser.add_argument("--threads", type=int, default=4,
                        help="gunicorn --threads per worker: gthread workers, as README deploys them (1: sync workers, "
                             "where a read waits in the accept queue behind the tablets' push batches)")
    parser.add_argument("--tablets", type=int, default=8)
    parser.add_argument("--sites", type=int, default=2, help="sites assigned to each tablet's inspector")
    parser.add_argument("--background", type=int, default=200, help="other permits, for the supervisor's lists")
    parser.add_argument("--mutations", type=int, default=300)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--photos", type=int, default=20)
    parser.add_argument("--photo-workers", type=int, default=1,
                        help="`inspect-api worker --photos-only` processes making thumbnails (0: inline, in the upload)")
    parser.add_argument("--photo-nice", type=int, default=10, help="the photo workers' nice value (0: as the server)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the --workers list this many times, alternating; the best wall time per W counts")
    parser.add_argument("--deadline", type=float, default=900, help="seconds one run may take before it stops")
    args = parser.parse_args()
    args.pg = args.pg.replace("postgresql+psycopg://", "postgresql://", 1)
    workers = [int(w) for w in args.workers.split(",")]
    photo = camera_jpeg(41.63, -70.90)
    print(f"photo: 4000x3000 JPEG, {len(photo) / 1e6:.2f} MB; {args.tablets} tablets x ({args.mutations} mutations "
          f"in batches of {args.batch} + {args.photos} photos); machine: {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f} (shared: figures are as measured)", flush=True)
    s3 = MotoS3({**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                 "AWS_DEFAULT_REGION": "us-east-1"})
    os.environ.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                       "AWS_CONFIG_FILE": "/dev/null"})
    runs = []
    try:
        for round_ in range(args.rounds):
            for w in (workers if round_ % 2 == 0 else workers[::-1]):
                r = run(w, args, s3, photo)
                runs.append(r)
                print(report(r, args), flush=True)
    finally:
        s3.stop()
    best = {w: min((r for r in runs if r["workers"] == w), key=lambda r: r["wall_s"]) for w in workers}
    if len(best) > 1:
        low, high = best[workers[0]], best[workers[-1]]
        print(f"\nthroughput W={high['workers']} / W={low['workers']}: {low['wall_s'] / high['wall_s']:.2f}x "
              f"(best wall of {args.rounds} round(s) each; mutations/s {high['mutations_per_s'] / max(low['mutations_per_s'], 1e-9):.2f}x, "
              f"photos/s {high['photos_per_s'] / max(low['photos_per_s'], 1e-9):.2f}x; goal 1.7x)\n"
              f"server CPU per run: W={low['workers']} {low['server_cpu_s']:.0f} s, W={high['workers']} {high['server_cpu_s']:.0f} s; "
              f"server share of the machine's busy time: {low['server_cpu_s'] / max(low['machine_busy_s'], 1e-9):.0%} and "
              f"{high['server_cpu_s'] / max(high['machine_busy_s'], 1e-9):.0%}")
    if any(r["problems"] for r in runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
