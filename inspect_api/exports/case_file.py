"""A permit's or case's whole file, as one ZIP anyone can check offline (README "Case files").

`build(permit, out, *, user, viewer, public=False) -> dict` writes the ZIP to the open binary file
`out` and returns its manifest:

- `records/*.json`: every record of the permit or case, each as the API answers it (each domain's own
  schema and service): the permit with its conditions, phases, documents and exemptions, its parties
  and status events, inspections with their checklist answers, findings, samples, orders, violations,
  citations, cost recoveries, completion notices, certificates, bonds, entry authorizations, photos,
  every issued document and every notice's delivery evidence (recipient, Message-ID, the mail
  server's reply, when);
- `photos/<id>/original.<ext>` (the bytes as received), `photos/<id>/annotations.json` and, when the
  photo has markup, `photos/<id>/annotated.jpg`;
- `documents/uploaded/<id>/<filename>` (application documents), `documents/final-report/<id>/<filename>`
  (the final report's as-built plans, O&M plan, certification) and
  `documents/issued/<kind>/<record id>/revision-<n>.pdf` (every revision of every issued document, as
  stored: signed ones carry their signature);
- `audit/rows.json` (the permit's audit rows with their hashes, in commit order) and
  `audit/seals.json` (the seals that cover them, each sealed row's inclusion proof, the rows not yet
  sealed);
- `index.pdf` (what is in the file, ending with a records custodian's certificate to sign) and
  `manifest.json` (every other file's SHA-256 and size, the seal roots, the system's version, and in
  the public variant what was withheld and why), written last.

The ZIP is written member by member; a photo or document is copied from the blob store in chunks,
never held whole. The format is case_file_verify's: that module checks what this one writes.

`user` reads the records (a supervisor: every record of the permit); `viewer` is whom the permit's
contact details are shown to (the supervisor; None in the public variant, as on the public pages).
The public variant (`public=True`, for a public records request under MGL c.66 §10) holds the same
records with what the public lookup leaves out taken out: personal contact details, internal notes,
the device and network address behind each audit row, and the files of documents that print
mailing addresses (each still listed with its hash and signer). manifest.json "withheld" names each kind of
thing withheld, where, and under which exemption. An audit row with a field withheld keeps its
recorded hash, so its place in the day's seal is still proved.
"""
from __future__ import annotations

import hashlib
import json
import re
import zipfile
from datetime import datetime, timezone
from importlib import metadata
from typing import IO, Any

import sqlalchemy as sa

from .. import audit, audit_chain, clock, renditions
from ..bonds.schemas import BondSchema
from ..bonds.services import list_bonds
from ..completion.certificates import list_certificates
from ..completion.models import FinalReport, ReportDocument
from ..completion.reports import list_final_reports
from ..completion.schemas import CompletionCertificateSchema, CompletionNoticeSchema, FinalReportSchema
from ..completion.services import list_completion_notices
from ..enforcement.costs import cost_recovery_views, list_cost_recoveries
from ..enforcement.penalties import list_citations, list_violations
from ..enforcement.schemas import CostRecoverySchema, OrderSchema
from ..enforcement.schemas_penalties import CitationSchema, ViolationSchema
from ..enforcement.services import list_orders
from ..entry.schemas import EntryAuthorizationSchema
from ..entry.services import list_entry_authorizations
from ..extensions import db
from ..inspections.finding_services import list_findings
from ..inspections.schemas import FindingSchema, InspectionSchema
from ..inspections.services import list_inspections
from ..permits import workflow
from ..permits.models import Permit
from ..permits.schemas import PartySchema, PermitEventSchema, PermitSchema
from ..permits.views import parties_as_seen, shown
from ..photos import annotations as photo_annotations
from ..photos.models import Photo
from ..photos.schemas import PhotoSchema
from ..photos.services import dump_photos, list_photos
from ..program.inspection_requests import annotated as annotated_requests, list_inspection_requests
from ..program.schemas import InspectionRequestSchema
from ..sampling.schemas import SampleSchema
from ..sampling.services import list_samples, sample_views
from ..storage import get_storage
from .case_file_verify import FORMAT, MANIFEST, ROWS, SEALS
from .case_file_pdf import render_index

INDEX = "index.pdf"
SYSTEM = "inspect-api"
CHUNK = 1 << 20
EVERY = 1 << 31  # a page size no permit's records reach: every record on one page
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/heic": "heic", "image/heif": "heif",
              "image/webp": "webp", "image/tiff": "tif", "application/pdf": "pdf"}

# What the public variant leaves out, as the public lookup does (public/lookup.py: no contact
# details, no notes), each with the exemption of the Public Records Law that covers it.
PERSONAL_CONTACT = "personal_contact_details"
INTERNAL_NOTES = "internal_notes"
SYSTEM_SECURITY = "audit_device_and_network_address"
DOCUMENTS = "documents_with_contact_details"
WITHHOLDING = {
    PERSONAL_CONTACT: ("Personal contact details (e-mail addresses, telephone numbers, mailing addresses) of "
                       "owners, applicants, parties and the recipients of notices",
                       "MGL c.66 §10 / c.4 §7(26)(c): personal information whose disclosure would be an "
                       "unwarranted invasion of personal privacy"),
    INTERNAL_NOTES: ("Staff notes kept on records (inspection, order, sample and review notes)",
                     "MGL c.66 §10 / c.4 §7(26)(d): inter-agency or intra-agency memoranda relating to policy "
                     "positions being developed"),
    SYSTEM_SECURITY: ("The device identifier and network (IP) address recorded with each audit row",
                      "MGL c.66 §10 / c.4 §7(26)(n): records whose disclosure is likely to jeopardize the "
                      "security of the Town's information systems"),
    DOCUMENTS: ("The files of issued documents (orders, citations, notices of costs, liens, certificates) and "
                "of uploaded application documents: they print the mailing addresses of owners, violators and "
                "applicants, and a redacted copy would no longer carry the Town's signature. Each is still "
                "listed, with its SHA-256 and signer, in records/issued_documents.json and records/permit.json; "
                "a redacted copy is made on request",
                "MGL c.66 §10 / c.4 §7(26)(c): personal information whose disclosure would be an unwarranted "
                "invasion of personal privacy"),
}
CONTACT_KEYS = {"email", "phone", "mailing_address", "owner_email", "owner_phone", "owner_mailing_address",
                "recipient_email", "contact_email", "contact_phone", "reporter_email", "reporter_phone"}
SECURITY_KEYS = {"ip_address", "device_id"}


def _is_note(key: str) -> bool:
    return key == "notes" or key.endswith("_notes") or key in ("internal_note", "note")


def _kind_of(key: str) -> str | None:
    if key in CONTACT_KEYS:
        return PERSONAL_CONTACT
    if _is_note(key):
        return INTERNAL_NOTES
    if key in SECURITY_KEYS:
        return SYSTEM_SECURITY
    return None


class Withheld:
    """What the public variant took out: kind -> {where: count}."""

    def __init__(self) -> None:
        self.found: dict[str, dict[str, int]] = {}

    def redact(self, value: Any, where: str) -> tuple[Any, list[str]]:
        """`value` with every withheld field set to null; the dotted paths of the fields withheld."""
        taken: list[str] = []

        def walk(node: Any, path: str) -> Any:
            if isinstance(node, dict):
                out = {}
                for key, item in node.items():
                    kind = _kind_of(str(key))
                    if kind is not None and item not in (None, "", [], {}):
                        self.count(kind, f"{where}: {key}")
                        taken.append(f"{path}{key}")
                        out[key] = None
                    else:
                        out[key] = walk(item, f"{path}{key}.")
                return out
            if isinstance(node, list):
                return [walk(item, path) for item in node]
            return node

        return walk(value, ""), taken

    def count(self, kind: str, where: str) -> None:
        self.found.setdefault(kind, {}).setdefault(where, 0)
        self.found[kind][where] += 1

    def listing(self) -> list[dict[str, Any]]:
        return [{"what": WITHHOLDING[kind][0], "why": WITHHOLDING[kind][1], "kind": kind,
                 "fields": sorted(self.found[kind]), "count": sum(self.found[kind].values())}
                for kind in WITHHOLDING if kind in self.found]


def system_version() -> str:
    try:
        return metadata.version(SYSTEM)
    except metadata.PackageNotFoundError:
        return "unknown"


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str) + "\n").encode("utf-8")


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe_name(name: str | None, fallback: str) -> str:
    cleaned = _SAFE.sub("_", (name or "").strip()).strip("._")[:120]
    return cleaned or fallback


class _Writer:
    """Adds members to the ZIP and keeps each one's SHA-256 and size for the manifest."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.files: list[dict[str, Any]] = []
        self._names: set[str] = set()

    def _unique(self, path: str) -> str:
        base, n = path, 2
        while path in self._names:
            stem, dot, ext = base.rpartition(".")
            path = f"{stem}-{n}.{ext}" if dot else f"{base}-{n}"
            n += 1
        self._names.add(path)
        return path

    def add_bytes(self, path: str, data: bytes, what: str, *, compress: bool = True, **extra: Any) -> dict:
        path = self._unique(path)
        info = zipfile.ZipInfo(path, date_time=_zip_time())
        info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
        self.archive.writestr(info, data)
        entry = {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "what": what, **extra}
        self.files.append(entry)
        return entry

    def add_json(self, path: str, value: Any, what: str) -> dict:
        return self.add_bytes(path, _json_bytes(value), what)

    def add_stream(self, path: str, handle: IO[bytes], what: str, **extra: Any) -> dict:
        path = self._unique(path)
        info = zipfile.ZipInfo(path, date_time=_zip_time())
        info.compress_type = zipfile.ZIP_STORED  # photos and PDFs are compressed already
        digest, size = hashlib.sha256(), 0
        with self.archive.open(info, "w", force_zip64=True) as member:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
                member.write(chunk)
                size += len(chunk)
        entry = {"path": path, "sha256": digest.hexdigest(), "size": size, "what": what, **extra}
        self.files.append(entry)
        return entry


def _zip_time() -> tuple[int, int, int, int, int, int]:
    now = clock.now().astimezone(timezone.utc)
    return (max(now.year, 1980), now.month, now.day, now.hour, now.minute, now.second)


# ---- the records ---------------------------------------------------------------------------------
def _records(permit: Permit, user, viewer) -> list[tuple[str, str, Any]]:
    """(file name, what it is, its JSON) for each kind of record, as the API answers it."""
    args = {"permit_id": str(permit.id), "limit": EVERY, "offset": 0}
    permit_id = str(permit.id)
    photos = dump_photos(list_photos(user, args)[0])
    return [
        ("permit", "The permit or case: determination, conditions, phases, documents, exemptions",
         PermitSchema().dump(shown(permit, viewer))),
        ("parties", "Parties (owner, operator, violator, ...)", PartySchema(many=True).dump(parties_as_seen(permit, viewer))),
        ("status_events", "Status moves (who, when, from, to, why)",
         PermitEventSchema(many=True).dump(workflow.list_events(permit))),
        ("inspections", "Inspections with their checklist answers",
         InspectionSchema(many=True).dump(list_inspections(user, args)[0])),
        ("findings", "Findings", FindingSchema(many=True).dump(list_findings(user, args)[0])),
        ("samples", "Water quality samples", SampleSchema(many=True).dump(sample_views(list_samples(user, args)[0]))),
        ("orders", "Enforcement orders", OrderSchema(many=True).dump(list_orders(user, args)[0])),
        ("violations", "Violations", ViolationSchema(many=True).dump(list_violations(user, args)[0])),
        ("citations", "Citations (MGL c.40 §21D)", CitationSchema(many=True).dump(list_citations(user, args)[0])),
        ("cost_recoveries", "Cost recoveries, notices of costs and liens",
         CostRecoverySchema(many=True).dump(cost_recovery_views(list_cost_recoveries(user, args)[0]))),
        ("completion_notices", "Notices of completion",
         CompletionNoticeSchema(many=True).dump(list_completion_notices(user, args)[0])),
        ("final_reports", "Final reports (as-built, O&M, engineer's certification) with their documents",
         FinalReportSchema(many=True).dump(list_final_reports(user, args)[0])),
        ("inspection_requests", "Inspection requests",
         InspectionRequestSchema(many=True).dump(annotated_requests(list_inspection_requests(user, args)[0]))),
        ("certificates", "Certificates of completion",
         CompletionCertificateSchema(many=True).dump(list_certificates(user, permit_id))),
        ("bonds", "Performance bonds", BondSchema(many=True).dump(list_bonds(user, args)[0])),
        ("entry_authorizations", "Entry authorizations",
         EntryAuthorizationSchema(many=True).dump(list_entry_authorizations(user, args)[0])),
        ("photos", "Photos (metadata; the originals are under photos/)", PhotoSchema(many=True).dump(photos)),
    ]


def _notices(permit_id: str) -> list[dict[str, Any]]:
    """Each message sent about the permit or case and what became of it: the outbox row as evidence.
    Read from the outbox table itself: the notifications package, beside this one, is not imported."""
    table = db.metadata.tables["notifications"]
    rows = db.session.execute(sa.select(table).where(table.c.permit_id == permit_id)
                              .order_by(table.c.created_at, table.c.id)).mappings()
    out = []
    for row in rows:
        out.append({
            "id": row["id"], "event": row["event"], "record_type": row["record_type"], "record_id": row["record_id"],
            "required": row["required"],
            "recipient": {"kind": row["recipient_kind"], "name": row["recipient_name"],
                          "email": row["recipient_email"], "role": row["recipient_role"],
                          "user_id": row["recipient_user_id"], "party_id": row["recipient_party_id"]},
            "subject": row["subject"], "body_text": row["body_text"],
            "attachments": [{key: item.get(key) for key in ("name", "content_type", "sha256", "bytes")}
                            for item in (row["attachments"] or []) if isinstance(item, dict)],
            "status": row["status"], "attempts": row["attempts"], "message_id": row["message_id"],
            "created_at": _iso(row["created_at"]), "last_attempt_at": _iso(row["last_attempt_at"]),
            "sent_at": _iso(row["sent_at"]), "smtp_reply": row["smtp_reply"],
            "failure_reason": row["failure_reason"], "resent_from": row["resent_from"],
        })
    return out


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


# ---- the audit rows and their seals --------------------------------------------------------------
def _audit(permit_id: str, withheld: Withheld | None) -> tuple[dict, dict, list[dict]]:
    """(audit/rows.json, audit/seals.json, the seals for the manifest)."""
    rows = audit.chain_rows(permit_id)
    seals = sorted(audit.seals_covering([row["seq"] for row in rows]), key=lambda s: s["number"])
    proofs, covered = [], set()
    for seal in seals:
        day = audit.day_row_hashes(seal["number"])
        at = {digest: index for index, digest in enumerate(day)}
        for row in rows:
            if seal["first_seq"] <= row["seq"] <= seal["last_seq"] and row["row_hash"] in at:
                index = at[row["row_hash"]]
                proofs.append({"seq": row["seq"], "seal": seal["number"], "index": index,
                               "path": audit_chain.inclusion_proof(day, index)})
                covered.add(row["seq"])
    unsealed = [row["seq"] for row in rows if row["seq"] not in covered]
    shown_rows = []
    for row in rows:
        row = {key: _plain_time(value) for key, value in row.items()}
        if withheld is not None:
            row, taken = withheld.redact(row, ROWS)
            if taken:
                row["withheld_fields"] = taken
        shown_rows.append(row)
    seal_list = [{key: _plain_time(value) for key, value in seal.items()} for seal in seals]
    listed = [{"number": s["number"], "day": s["day"], "root": s["merkle_root"], "seal_hash": s["seal_hash"],
               "row_count": s["row_count"]} for s in seal_list]
    return ({"rows": shown_rows},
            {"seals": seal_list, "proofs": proofs, "unsealed": unsealed}, listed)


def _plain_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return audit_chain.instant(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


# ---- the files -----------------------------------------------------------------------------------
def _photo_files(writer: _Writer, photos: list[dict[str, Any]]) -> None:
    store = get_storage()
    for item in photos:
        photo = db.session.get(Photo, item["id"])
        folder = f"photos/{photo.id}"
        ext = EXTENSIONS.get(photo.content_type, "bin")
        with store.open(photo.original_key) as handle:
            writer.add_stream(f"{folder}/original.{ext}", handle, f"Photo {photo.id}: the original as received",
                              record_sha256=photo.sha256)
        records = photo_annotations.annotations_of([photo.id]).get(photo.id, [])
        writer.add_json(f"{folder}/annotations.json", photo_annotations.dump_annotations(records),
                        f"Photo {photo.id}: its annotations")
        drawn = [r for r in records if r.shapes]
        if drawn:
            rendered = photo_annotations.render_annotated(photo, drawn)
            writer.add_bytes(f"{folder}/annotated.jpg", rendered.data, f"Photo {photo.id} with its markup drawn",
                             compress=False)


def _uploaded_documents(writer: _Writer, permit: Permit) -> None:
    store = get_storage()
    for document in permit.documents:
        if not document.storage_key:
            continue
        name = _safe_name(document.filename, f"document.{EXTENSIONS.get(document.content_type or '', 'bin')}")
        with store.open(document.storage_key) as handle:
            writer.add_stream(f"documents/uploaded/{document.id}/{name}", handle,
                              f"Application document ({document.kind}): {document.filename}",
                              record_sha256=document.sha256)


def _report_documents(writer: _Writer, permit_id: str) -> None:
    store = get_storage()
    for document in db.session.scalars(sa.select(ReportDocument).join(FinalReport, FinalReport.id == ReportDocument.report_id)
                                       .where(FinalReport.permit_id == permit_id, ReportDocument.storage_key.is_not(None))
                                       .order_by(ReportDocument.uploaded_at, ReportDocument.id)):
        name = _safe_name(document.filename, f"document.{EXTENSIONS.get(document.content_type or '', 'bin')}")
        with store.open(document.storage_key) as handle:
            writer.add_stream(f"documents/final-report/{document.id}/{name}", handle,
                              f"Final report document ({document.kind}): {document.filename}",
                              record_sha256=document.sha256)


def _issued_documents(writer: _Writer, permit_id: str, withheld: Withheld | None) -> list[dict[str, Any]]:
    listed = []
    for doc in renditions.issued_documents_of(permit_id):
        path = None
        if withheld is None:
            data = renditions.issued_bytes(doc)
            path = writer.add_bytes(f"documents/issued/{doc.kind}/{doc.record_id}/revision-{doc.revision}.pdf", data,
                                    f"Issued {doc.kind.replace('_', ' ')}, revision {doc.revision}"
                                    f"{', digitally signed' if doc.signed else ''}", compress=False,
                                    signed=bool(doc.signed))["path"]
        else:
            withheld.count(DOCUMENTS, f"documents/issued/{doc.kind}")
        listed.append({"id": doc.id, "kind": doc.kind, "record_id": doc.record_id, "revision": doc.revision,
                       "file": path, "sha256": doc.sha256, "size": doc.size, "signed": doc.signed,
                       "signer_subject": doc.signer_subject, "signer_fingerprint": doc.signer_fingerprint,
                       "timestamped": doc.timestamped, "issued_at": _iso(doc.issued_at)})
    return listed


# ---- the whole -----------------------------------------------------------------------------------
def build(permit: Permit, out: IO[bytes], *, user, viewer, public: bool = False) -> dict[str, Any]:
    """Write the case file of `permit` to `out` (an open binary file) and return its manifest."""
    withheld = Withheld() if public else None

    def shown_value(value: Any, where: str) -> Any:
        return withheld.redact(value, where)[0] if withheld is not None else value

    permit_id = str(permit.id)
    generated_at = _iso(clock.now())
    with zipfile.ZipFile(out, "w", allowZip64=True) as archive:
        writer = _Writer(archive)
        records = _records(permit, user, viewer)
        counts, written = {}, {}
        for name, what, value in records:
            written[name] = shown_value(value, f"records/{name}.json")
            writer.add_json(f"records/{name}.json", written[name], what)
            counts[name] = len(value) if isinstance(value, list) else 1
        notices = _notices(permit_id)
        writer.add_json("records/notices.json", shown_value(notices, "records/notices.json"),
                        "Notices sent and their delivery evidence (recipient, Message-ID, the mail server's reply, "
                        "time)")
        counts["notices"] = len(notices)
        _photo_files(writer, written["photos"])
        if withheld is None:
            _uploaded_documents(writer, permit)
            _report_documents(writer, permit_id)
        else:
            for document in permit.documents:
                if document.storage_key:
                    withheld.count(DOCUMENTS, "documents/uploaded")
            for report in written["final_reports"]:
                for document in report.get("documents") or []:
                    if document.get("content_type"):
                        withheld.count(DOCUMENTS, "documents/final-report")
        issued = _issued_documents(writer, permit_id, withheld)
        writer.add_json("records/issued_documents.json", issued,
                        "Documents issued (every revision): SHA-256, signer, timestamp")
        counts["issued_documents"] = len(issued)
        rows, seals, seal_list = _audit(permit_id, withheld)
        writer.add_json(ROWS, rows, "Audit rows of the permit or case, in commit order, with their hashes")
        writer.add_json(SEALS, seals, "The daily seals covering those rows, with each row's inclusion proof")
        manifest = {
            "format": FORMAT, "generated_at": generated_at,
            "system": {"name": SYSTEM, "version": system_version()},
            "permit": {"id": permit_id, "number": permit.number, "status": permit.status,
                       "address": permit.site_address},
            "public": public, "counts": counts,
            "audit": {"rows": len(rows["rows"]), "sealed": len(seals["proofs"]),
                      "not_yet_sealed": len(seals["unsealed"])},
            "seals": seal_list,
            "withheld": withheld.listing() if withheld is not None else [],
        }
        index = render_index(manifest, list(writer.files), written["permit"])
        writer.add_bytes(INDEX, index, "This index, with the records custodian's certificate", compress=False)
        manifest["files"] = writer.files
        info = zipfile.ZipInfo(MANIFEST, date_time=_zip_time())
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, _json_bytes(manifest))
    return manifest


def find_permit(reference: str) -> Permit | None:
    """A permit or case by its number (current or former) or its id."""
    reference = reference.strip()
    permit = db.session.scalar(sa.select(Permit).where(Permit.number == reference))
    if permit is None and re.fullmatch(r"[0-9a-fA-F-]{36}", reference):
        permit = db.session.get(Permit, reference.lower())
    return permit


__all__ = ["INDEX", "WITHHOLDING", "build", "find_permit", "system_version"]
