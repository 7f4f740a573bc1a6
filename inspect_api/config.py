"""Configuration from the environment.

Development and the demo run on an embedded default (a SQLite file and a local blob folder in the
instance folder). Production sets DATABASE_URL, STORAGE_URL and the secret keys; the app refuses to
start in production without JWT_SECRET_KEY so no token is ever signed with a guessable key.
"""
from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from . import maptiles, signing

# The app's files (the field app in static/, the Alembic scripts in migrations/) ship inside the
# package, so an installed wheel finds them in site-packages just as a checkout does.
PACKAGE_ROOT = Path(__file__).resolve().parent
STATIC_ROOT = PACKAGE_ROOT / "static"
MIGRATIONS_ROOT = PACKAGE_ROOT / "migrations"


def instance_path(configured: str | os.PathLike | None = None) -> Path:
    """The folder for the default SQLite file, local blobs and upload spooling: the configured
    INSTANCE_PATH, else `instance/` in the current working directory. Never inside the package:
    site-packages is no place for data (it may be read-only, and an upgrade replaces it)."""
    return Path(configured).expanduser().resolve() if configured else Path.cwd().resolve() / "instance"


MIN_SECRET_BYTES = 32


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw not in (None, "") else default



# A setting that one domain reads is parsed by that domain, which declares its parser here when its
# package is imported (the app imports every domain before it checks its configuration).
SETTING_PARSERS: dict[str, tuple[Callable[[Any], object], bool]] = {}


def setting_parser(name: str, parse: Callable[[Any], object], *, optional: bool = False) -> None:
    """Check setting `name` at start with `parse`, which raises ValueError on a bad value; an
    optional setting is checked only when set."""
    SETTING_PARSERS[name] = (parse, optional)


def _at_least(low: int) -> Callable[[Any], object]:
    def parse(value: Any) -> int:
        if int(value) < low:
            raise ValueError(f"must be a whole number of at least {low}")
        return int(value)
    return parse


setting_parser("UPLOAD_MIN_BYTES_PER_SECOND", _at_least(0))
setting_parser("UPLOAD_RATE_GRACE_SECONDS", _at_least(0))
setting_parser("UPLOAD_MAX_SECONDS", _at_least(1))
setting_parser("GC_YOUNG_THRESHOLD", _at_least(700))


class Config:
    ENV_NAME = "production"
    TESTING = False

    SECRET_KEY = os.environ.get("SECRET_KEY")
    JWT_SECRET_KEY = os.environ.get("JWT_SECRET_KEY")
    JWT_ALGORITHM = "HS256"
    JWT_DECODE_ALGORITHMS = ["HS256"]
    # Short-lived access, refresh long enough to last a field day offline (R-E2 work is recorded
    # offline and synced in the evening), revocable per device session.
    JWT_ACCESS_TOKEN_EXPIRES = timedelta(minutes=_int("ACCESS_TOKEN_MINUTES", 15))
    JWT_REFRESH_TOKEN_EXPIRES = timedelta(hours=_int("REFRESH_TOKEN_HOURS", 36))
    JWT_TOKEN_LOCATION = ["headers"]
    JWT_ERROR_MESSAGE_KEY = "message"

    INSTANCE_PATH = os.environ.get("INSTANCE_PATH")  # None -> ./instance (see instance_path)
    SQLALCHEMY_DATABASE_URI = os.environ.get("DATABASE_URL")  # None -> SQLite in instance folder
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    # The garbage collector of a serving process, settled once the app is built (inspect_api/collector.py):
    # what the start made is frozen, and the young generation is collected every GC_YOUNG_THRESHOLD
    # new container objects (CPython's default: 700). GC_SETTLE=off leaves CPython's defaults.
    GC_SETTLE = os.environ.get("GC_SETTLE", "on").lower() not in ("0", "false", "no", "off")
    GC_YOUNG_THRESHOLD = _int("GC_YOUNG_THRESHOLD", 50_000)
    STORAGE_URL = os.environ.get("STORAGE_URL")  # None -> local folder in instance folder
    S3_ENDPOINT_URL = os.environ.get("S3_ENDPOINT_URL")
    PRESIGNED_URL_SECONDS = _int("PRESIGNED_URL_SECONDS", 300)

    MAX_UPLOAD_BYTES = _int("MAX_UPLOAD_BYTES", 40 * 1024 * 1024)
    MAX_IMAGE_PIXELS = _int("MAX_IMAGE_PIXELS", 100_000_000)
    # Memory one image may take to read (decoded pixels plus working copies). JPEG decodes reduced
    # (draft mode), so any JPEG within MAX_IMAGE_PIXELS fits; PNG, WebP and HEIC decode at full size:
    # 320 MB admits a 48 MP HEIC from a current phone and a 22 MP PNG with transparency, and
    # refuses larger ones (422 image_too_large). IMAGE_WORKERS images are read at once per process;
    # the next waits up to IMAGE_WAIT_SECONDS, then 503 image_busy.
    MAX_IMAGE_DECODE_BYTES = _int("MAX_IMAGE_DECODE_BYTES", 320 * 1024 * 1024)
    IMAGE_WORKERS = _int("IMAGE_WORKERS", 2)
    IMAGE_WAIT_SECONDS = _int("IMAGE_WAIT_SECONDS", 30)
    # An upload is answered once its original is stored and verified; the display and small thumbnails
    # are made by `inspect-api worker` (README "Photo thumbnails after the answer"). PHOTO_DERIVE_INLINE
    # makes them within the upload request instead. A worker looks for new photos every
    # PHOTO_POLL_SECONDS; a job is the worker's for PHOTO_DERIVE_LEASE_SECONDS, retried (storage away)
    # after PHOTO_DERIVE_RETRY_SECONDS, doubling, up to PHOTO_DERIVE_MAX_ATTEMPTS tries. Until the
    # thumbnails exist GET /photos/{id}/thumbnail answers 202 with Retry-After PHOTO_RETRY_AFTER_SECONDS.
    PHOTO_DERIVE_INLINE = os.environ.get("PHOTO_DERIVE_INLINE", "off").lower() in ("1", "true", "yes", "on")
    PHOTO_POLL_SECONDS = _int("PHOTO_POLL_SECONDS", 1)
    PHOTO_DERIVE_LEASE_SECONDS = _int("PHOTO_DERIVE_LEASE_SECONDS", 300)
    PHOTO_DERIVE_RETRY_SECONDS = _int("PHOTO_DERIVE_RETRY_SECONDS", 30)
    PHOTO_DERIVE_MAX_ATTEMPTS = _int("PHOTO_DERIVE_MAX_ATTEMPTS", 5)
    PHOTO_RETRY_AFTER_SECONDS = _int("PHOTO_RETRY_AFTER_SECONDS", 2)
    MAX_DOCUMENT_BYTES = _int("MAX_DOCUMENT_BYTES", 40 * 1024 * 1024)
    # A JSON body is small; photos and documents have their own streaming paths and limits.
    MAX_CONTENT_LENGTH = None
    MAX_JSON_BYTES = _int("MAX_JSON_BYTES", 5 * 1024 * 1024)
    # No record nests more than a few levels; Python's parser and encoder recurse once per level
    # and fail near 1000, so deeper bodies are refused (400 json_too_deep) before anything parses them.
    MAX_JSON_DEPTH = _int("MAX_JSON_DEPTH", 768)
    # Unsubmitted applications one account may hold at once (409 too_many_drafts beyond).
    MAX_OPEN_DRAFTS = _int("MAX_OPEN_DRAFTS", 20)
    SYNC_MAX_BATCH = _int("SYNC_MAX_BATCH", 500)
    # Pushes applied at once by one process (a batch is CPU-bound for a few hundred milliseconds);
    # SYNC_PUSH_WAITING more wait up to SYNC_PUSH_WAIT_SECONDS for a turn, holding no transaction;
    # any other answers 503 sync_busy with Retry-After SYNC_PUSH_RETRY_SECONDS, nothing applied, and
    # the app sends it again then. So at most AT_ONCE + WAITING of a process's threads (gunicorn
    # --threads) are ever on pushes, and the rest serve the people reading (README "Busy moments").
    SYNC_PUSH_AT_ONCE = _int("SYNC_PUSH_AT_ONCE", 1)
    SYNC_PUSH_WAITING = _int("SYNC_PUSH_WAITING", 1)
    SYNC_PUSH_WAIT_SECONDS = _int("SYNC_PUSH_WAIT_SECONDS", 10)
    SYNC_PUSH_RETRY_SECONDS = _int("SYNC_PUSH_RETRY_SECONDS", 2)
    SYNC_PULL_MAX_LIMIT = _int("SYNC_PULL_MAX_LIMIT", 1000)
    # A pull page also ends once its records reach this many bytes of JSON (a record larger than
    # this still goes, alone), so a few huge records cannot make one page tens of megabytes.
    SYNC_PULL_MAX_BYTES = _int("SYNC_PULL_MAX_BYTES", 5 * 1024 * 1024)
    TOMBSTONE_RETENTION_DAYS = _int("TOMBSTONE_RETENTION_DAYS", 90)
    # How the change feed numbers commits (inspect_api/changes.py): "counter", one row every writer
    # locks until its COMMIT ends; or, on PostgreSQL only, "watermark": the transaction's own id and
    # no lock, pull serving only what lies below the oldest running transaction. The watermark is
    # the server's, across all its databases: give the app a server of its own before choosing it.
    SYNC_FEED_NUMBERING = os.environ.get("SYNC_FEED_NUMBERING", "counter")
    UPLOAD_EXPIRY_HOURS = _int("UPLOAD_EXPIRY_HOURS", 24)
    UPLOAD_TEMP_DIR = os.environ.get("UPLOAD_TEMP_DIR")  # None -> instance/tmp
    # Every body the app spools (photos, tus chunks, documents) must keep this pace or is dropped
    # with 408 (inspect_api/uploads.py): on average UPLOAD_MIN_BYTES_PER_SECOND once the first
    # UPLOAD_RATE_GRACE_SECONDS have passed (0: no minimum), and all of it within UPLOAD_MAX_SECONDS.
    UPLOAD_MIN_BYTES_PER_SECOND = _int("UPLOAD_MIN_BYTES_PER_SECOND", 1024)
    UPLOAD_RATE_GRACE_SECONDS = _int("UPLOAD_RATE_GRACE_SECONDS", 5)
    UPLOAD_MAX_SECONDS = _int("UPLOAD_MAX_SECONDS", 600)
    PHOTO_FAR_FROM_SITE_M = _int("PHOTO_FAR_FROM_SITE_M", 500)
    # With S3 storage, photos redirect to presigned bucket URLs: list the bucket's https origin(s)
    # (space-separated) so the app's Content-Security-Policy lets it show them.
    PWA_MEDIA_ORIGINS = os.environ.get("PWA_MEDIA_ORIGINS", "")
    # The address clients reach the API at (https://permits.example.org); absolute URLs the API
    # hands out (the tus Location) are built on it, never on the request's Host. Unset: relative.
    PUBLIC_BASE_URL = os.environ.get("PUBLIC_BASE_URL") or None
    # Base map tiles (README "Base map tiles and offline maps"; checked at start by maptiles.py). None by
    # default: no tile server is contacted, and maps draw on a plain background. MAP_TILE_URL: one
    # server's {z}/{x}/{y} template, https (http only on 127.0.0.1, localhost or [::1]); its origin joins
    # the app's Content-Security-Policy. Never name a server whose policy forbids prefetching or offline
    # use (tile.openstreetmap.org does): the field app keeps tiles for offline days. MAP_TILE_ATTRIBUTION:
    # the server's required credit, plain text, required with MAP_TILE_URL. MAP_TILE_MAX_ZOOM: the deepest
    # level the server has. MAP_TILE_OFFLINE_ZOOMS ("14-17", "14,16"): the levels kept around each
    # assigned site; MAP_TILE_OFFLINE_BUDGET_MB: the most a device keeps of them (0: none).
    MAP_TILE_URL = os.environ.get("MAP_TILE_URL") or None
    MAP_TILE_ATTRIBUTION = os.environ.get("MAP_TILE_ATTRIBUTION") or None
    MAP_TILE_MAX_ZOOM = os.environ.get("MAP_TILE_MAX_ZOOM") or maptiles.DEFAULT_MAX_ZOOM
    MAP_TILE_OFFLINE_ZOOMS = os.environ.get("MAP_TILE_OFFLINE_ZOOMS") or maptiles.DEFAULT_OFFLINE_ZOOMS
    MAP_TILE_OFFLINE_BUDGET_MB = os.environ.get("MAP_TILE_OFFLINE_BUDGET_MB") or maptiles.DEFAULT_OFFLINE_BUDGET_MB

    # Proxies in front of the app (load balancer, nginx) that set X-Forwarded-For/-Proto: with N, the
    # client address (sign-in limits, audit rows) is the one the Nth proxy from the app saw. 0: the
    # peer's address, and forwarded headers are ignored (a client could forge them).
    TRUSTED_PROXIES = _int("TRUSTED_PROXIES", 0)
    RATELIMIT_STORAGE_URI = os.environ.get("RATELIMIT_STORAGE_URI", "memory://")
    RATELIMIT_HEADERS_ENABLED = True
    LOGIN_RATE_LIMIT = os.environ.get("LOGIN_RATE_LIMIT", "10 per minute;50 per hour")

    API_TITLE = "inspect-api"
    API_VERSION = "v1"
    # JSON answers over 1 kB (sync pull pages, lists, the OpenAPI document) go gzip-compressed to clients
    # that accept it; files and photos are already compressed or streamed.
    COMPRESS_MIMETYPES = ["application/json"]
    COMPRESS_MIN_SIZE = 1024
    COMPRESS_ALGORITHM = ["gzip"]
    COMPRESS_STREAMS = False
    OPENAPI_VERSION = "3.1.0"  # JSON Schema proper: nullable objects as anyOf [$ref, null]
    OPENAPI_URL_PREFIX = "/api/v1"
    OPENAPI_JSON_PATH = "openapi.json"
    OPENAPI_SWAGGER_UI_PATH = "/docs"
    OPENAPI_SWAGGER_UI_URL = None  # set below only when a local copy is not available
    TIMEZONE = "America/New_York"
    # The inspection program (R-I1; README "Inspection program"): the Town may change these.
    INSPECTION_ROUTINE_DAYS = _int("INSPECTION_ROUTINE_DAYS", 14)
    STORM_THRESHOLD_INCHES = os.environ.get("STORM_THRESHOLD_INCHES", "0.25")
    STORM_WINDOW_HOURS = _int("STORM_WINDOW_HOURS", 24)
    INSPECTION_RESPONSE_DAYS = _int("INSPECTION_RESPONSE_DAYS", 5)
    # Rows one NOAA CDO daily CSV may hold (a station's five years is under 2,000); more is refused whole.
    STORM_IMPORT_MAX_ROWS = _int("STORM_IMPORT_MAX_ROWS", 2000)
    # R-O3: the MGL c.59 §57 interest rate on unpaid costs, by the day it takes effect, as
    # "YYYY-MM-DD=rate" pairs separated by commas ("2000-01-01=0.14,2027-07-01=0.12"). A change in
    # the statute is a new entry from its effective date; days before it keep the old rate.
    COST_INTEREST_RATES = os.environ.get("COST_INTEREST_RATES", "1900-01-01=0.14")
    # R-P2: what a §21D citation tells the violator: where to pay, and which court hears a contest.
    CITATION_PAY_TO = os.environ.get(
        "CITATION_PAY_TO", "the Town of Fairhaven, Town Hall, 40 Center Street, Fairhaven, MA 02719")
    CITATION_COURT = os.environ.get("CITATION_COURT", "the New Bedford District Court")
    # Signed documents (README "Signed documents"; checked at start by signing.py): orders, certificates
    # of completion, citations, lien certificates and notices of costs are signed (PAdES) when issued.
    # SIGNING_KEY_FILE + SIGNING_CERT_FILE (PEM; SIGNING_KEY_PASSPHRASE for an encrypted key) with
    # SIGNING_CHAIN_FILE (PEM bundle of the intermediates), or SIGNING_PKCS12_FILE with its passphrase
    # in SIGNING_PKCS12_PASSPHRASE. SIGNING_TSA_URL: an RFC 3161 timestamp authority whose timestamp
    # each signature carries. None set: documents are issued unsigned and say so on the page.
    SIGNING_KEY_FILE = os.environ.get("SIGNING_KEY_FILE") or None
    SIGNING_CERT_FILE = os.environ.get("SIGNING_CERT_FILE") or None
    SIGNING_CHAIN_FILE = os.environ.get("SIGNING_CHAIN_FILE") or None
    SIGNING_KEY_PASSPHRASE = os.environ.get("SIGNING_KEY_PASSPHRASE") or None
    SIGNING_PKCS12_FILE = os.environ.get("SIGNING_PKCS12_FILE") or None
    SIGNING_PKCS12_PASSPHRASE = os.environ.get("SIGNING_PKCS12_PASSPHRASE") or None
    SIGNING_TSA_URL = os.environ.get("SIGNING_TSA_URL") or None
    SIGNING_REASON = os.environ.get("SIGNING_REASON") or signing.DEFAULT_REASON
    SIGNING_LOCATION = os.environ.get("SIGNING_LOCATION") or signing.DEFAULT_LOCATION
    # R-O1 "by the Stormwater Authority or its agents": whether inspectors (the Authority's agents)
    # may issue enforcement orders at the sites they are assigned to. Off: supervisors only.
    ORDERS_BY_AGENTS = os.environ.get("ORDERS_BY_AGENTS", "").lower() in ("1", "true", "yes", "on")
    # Written answers one order takes (each at most 4,000 characters): every device pulls an order
    # with all of them. One more is 409 too_many_responses.
    ORDER_RESPONSES_MAX = _int("ORDER_RESPONSES_MAX", 20)
    # The public (README "The public"): reports one client (TRUSTED_PROXIES-aware address) may send;
    # days after a report is closed that its author's contact details are kept; how long a public
    # answer may be reused by browsers and caches between them and the app.
    PUBLIC_REPORT_RATE_LIMIT = os.environ.get("PUBLIC_REPORT_RATE_LIMIT", "5 per hour;20 per day")
    PUBLIC_REPORT_CONTACT_DAYS = _int("PUBLIC_REPORT_CONTACT_DAYS", 365)
    PUBLIC_CACHE_SECONDS = _int("PUBLIC_CACHE_SECONDS", 300)

    # Notifications (README "Notifications"). SMTP_URL: smtp://user:pass@host:port (STARTTLS as SMTP_TLS
    # says: required|opportunistic|off, required when a user is given) or smtps://... (implicit TLS);
    # SMTP_CA_FILE: PEM CA certificates to trust instead of the system's. Without SMTP_URL messages are
    # written as .eml files under <instance>/mail/ (MAIL_DIR another folder). Links use PUBLIC_BASE_URL.
    SMTP_URL = os.environ.get("SMTP_URL") or None
    SMTP_TLS = os.environ.get("SMTP_TLS") or None
    SMTP_CA_FILE = os.environ.get("SMTP_CA_FILE") or None
    SMTP_TIMEOUT_SECONDS = _int("SMTP_TIMEOUT_SECONDS", 30)
    MAIL_FROM = os.environ.get("MAIL_FROM", "Fairhaven Stormwater Authority <stormwater@fairhaven-ma.gov>")
    MAIL_DIR = os.environ.get("MAIL_DIR") or None
    # Tamper-evident audit trail (README "Tamper-evident audit trail"): each finished day's seal is
    # e-mailed to this address outside the system (e.g. the Town Clerk); unset, seals are not sent.
    AUDIT_SEAL_TO = os.environ.get("AUDIT_SEAL_TO") or None
    TOWN_NAME = os.environ.get("TOWN_NAME", "Town of Fairhaven")
    TOWN_CONTACT = os.environ.get("TOWN_CONTACT", "Town Hall, 40 Center Street, Fairhaven, MA 02719")
    # Temporary failures (4xx, connection errors) are retried after NOTIFY_RETRY_SECONDS, doubling each
    # time up to NOTIFY_RETRY_MAX_SECONDS, until NOTIFY_MAX_ATTEMPTS; a claimed message is the worker's
    # for NOTIFY_LEASE_SECONDS (longer than any one send), then free for another worker again.
    NOTIFY_MAX_ATTEMPTS = _int("NOTIFY_MAX_ATTEMPTS", 8)
    NOTIFY_RETRY_SECONDS = _int("NOTIFY_RETRY_SECONDS", 60)
    NOTIFY_RETRY_MAX_SECONDS = _int("NOTIFY_RETRY_MAX_SECONDS", 6 * 3600)
    NOTIFY_LEASE_SECONDS = _int("NOTIFY_LEASE_SECONDS", 300)
    NOTIFY_BATCH = _int("NOTIFY_BATCH", 20)
    NOTIFY_POLL_SECONDS = _int("NOTIFY_POLL_SECONDS", 5)

    # Reminders (README "Reminders"): the worker runs each Town day's pass once the local hour in
    # TIMEZONE reaches REMINDER_HOUR (0-23), or at its start if it was down then. Off: REMINDERS=off.
    REMINDER_HOUR = _int("REMINDER_HOUR", 7)
    REMINDERS_ENABLED = os.environ.get("REMINDERS", "on").lower() not in ("0", "false", "no", "off")

    def check(self) -> None:
        for name in ("JWT_SECRET_KEY", "SECRET_KEY"):
            value = getattr(self, name)
            if not value:
                raise RuntimeError(f"{name} must be set outside development and tests")
            # HS256 keys shorter than the hash (32 bytes) can be brute-forced from one token (RFC 7518 3.2).
            if len(value.encode("utf-8")) < MIN_SECRET_BYTES:
                raise RuntimeError(f"{name} must be at least {MIN_SECRET_BYTES} bytes long "
                                   "(e.g. `python3 -c 'import secrets; print(secrets.token_hex(32))'`)")
        self.check_settings()

    def check_settings(self) -> None:
        """Settings read only when a record needs them are checked at start, so a typo stops the
        app instead of failing the first cost statement. Each is parsed by the domain that reads it
        (declared with `setting_parser`)."""
        for name, (parse, optional) in SETTING_PARSERS.items():
            value = getattr(self, name, None)
            if optional and not value:
                continue
            try:
                parse(value)
            except ValueError as exc:  # the message names the shape, never the value (SMTP_URL holds a password)
                raise RuntimeError(f"{name}: {exc}") from None
        maptiles.check(self)  # the tile settings depend on each other (an attribution with a URL)
        signing.check(self)  # the signing key loads (files, passphrase, key matching the certificate)


class DevelopmentConfig(Config):
    ENV_NAME = "development"

    def __init__(self) -> None:
        # A random per-process key is safe for local use: tokens simply die with the process.
        self.SECRET_KEY = self.SECRET_KEY or secrets.token_hex(32)
        self.JWT_SECRET_KEY = self.JWT_SECRET_KEY or secrets.token_hex(32)

    def check(self) -> None:  # development may run with generated keys
        self.check_settings()


class TestConfig(DevelopmentConfig):
    __test__ = False  # a configuration, not a pytest test class

    ENV_NAME = "testing"
    TESTING = True
    SQLALCHEMY_DATABASE_URI = "sqlite://"
    RATELIMIT_STORAGE_URI = "memory://"
    RATELIMIT_ENABLED = True
    PASSWORD_HASH_FAST = True  # cheaper argon2 parameters so the suite stays quick
    # A worker run in a test delivers only; a test of the daily reminders switches them on.
    REMINDERS_ENABLED = False
    # Thumbnails are made within the upload request, so the many tests that read a thumbnail right
    # after uploading need no worker; tests/photos/test_background_derivation.py turns this off.
    PHOTO_DERIVE_INLINE = True
    # The suite builds thousands of apps in one process: freezing each one's leftovers would keep them.
    GC_SETTLE = False

    def __init__(self, **overrides) -> None:
        super().__init__()
        self.SECRET_KEY = "test-secret-key-" + "x" * 32
        self.JWT_SECRET_KEY = "test-jwt-key-" + "y" * 32
        for key, value in overrides.items():
            setattr(self, key, value)


def config_for_environment() -> Config:
    name = os.environ.get("INSPECT_API_ENV", "development" if not os.environ.get("DATABASE_URL") else "production")
    if name == "production":
        cfg = Config()
    else:
        cfg = DevelopmentConfig()
    return cfg
