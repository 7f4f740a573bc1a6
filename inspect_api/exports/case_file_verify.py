"""Checking a case file offline: no database, no network, no configuration, no app.

`verify(path, trust=None) -> Report` reads the ZIP that case_file.py wrote and checks, in this order,
stopping at nothing (every check runs; the first problem is the one named at the end):

1. `manifest.json` is there and reads as a case file's manifest;
2. every file the manifest lists is in the ZIP with its size and SHA-256, and the ZIP holds no
   file the manifest does not list;
3. every audit row's `row_hash` is recomputed from the row's own fields (audit_chain.row_hash_of); in
   the public variant a row with a field withheld (`withheld_fields`) cannot be, and its recorded
   hash is what its inclusion proof must lead from;
4. every seal's `seal_hash` is recomputed from its fields and names the seal before it
   (`prev_seal_hash`), its root (`merkle_root`) and seal hash are the ones the manifest lists, and
   each sealed row's inclusion proof leads from the row's recomputed hash to its seal's root; rows
   made since the last seal are listed in `unsealed` and reported as not yet sealed, not as a fault;
5. every signed PDF's signature is intact and cryptographically valid (pyHanko's validator), covers
   the document it signs, and, with `trust` (PEM certificates), chains to one of them.

Run it as `inspect-api case-file verify FILE.zip [--trust ROOT.pem]`, or where only the package is
installed, `python -m inspect_api.exports.case_file_verify FILE.zip [--trust ROOT.pem]`. Exit 0: every
check passed; 1: a problem (named); 2: the file could not be read as a ZIP at all.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .. import audit_chain
from ..signing import outside_event_loop

MANIFEST = "manifest.json"
ROWS = "audit/rows.json"
SEALS = "audit/seals.json"
FORMAT = "inspect-api case file 1"
CHUNK = 1 << 20
# The most a single JSON part of the file may take to read (rows, seals, manifest): far above any
# permit's, and a bound on what a hostile ZIP can make the verifier hold in memory.
MAX_JSON_BYTES = 512 << 20
MAX_PDF_BYTES = 256 << 20


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def first_problem(self) -> Check | None:
        return next((check for check in self.checks if not check.ok), None)

    def lines(self) -> list[str]:
        out = [f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}" for check in self.checks]
        problem = self.first_problem
        out.append("verified: every check passed" if problem is None
                   else f"NOT VERIFIED: first problem: {problem.name}: {problem.detail}")
        return out


def _sha256(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with archive.open(info) as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _json(archive: zipfile.ZipFile, name: str) -> Any:
    info = archive.getinfo(name)
    if info.file_size > MAX_JSON_BYTES:
        raise ValueError(f"{name} is larger than {MAX_JSON_BYTES} bytes")
    with archive.open(info) as handle:
        return json.loads(handle.read(MAX_JSON_BYTES + 1))


# ---- 1 and 2: the manifest and every file's bytes ------------------------------------------------
def _files(archive: zipfile.ZipFile, manifest: dict, report: Report) -> set[str]:
    """Check each listed file; the paths whose bytes are as listed."""
    listed: dict[str, dict] = {}
    good: set[str] = set()
    for entry in manifest.get("files", []):
        path = entry.get("path")
        if not isinstance(path, str) or path in listed or path == MANIFEST:
            report.add(f"file {path!r}", False, "listed twice, not a path, or the manifest listing itself")
            continue
        listed[path] = entry
    names = {info.filename: info for info in archive.infolist() if not info.is_dir()}
    problems = []
    for path, entry in listed.items():
        info = names.get(path)
        if info is None:
            problems.append((path, "missing from the ZIP"))
            continue
        digest, size = _sha256(archive, info)
        if size != entry.get("size"):
            problems.append((path, f"size {size}, the manifest says {entry.get('size')}"))
        elif digest != entry.get("sha256"):
            problems.append((path, f"SHA-256 {digest}, the manifest says {entry.get('sha256')}"))
        else:
            good.add(path)
    extra = sorted(set(names) - set(listed) - {MANIFEST})
    for path, problem in problems:
        report.add(f"file {path}", False, problem)
    for path in extra:
        report.add(f"file {path}", False, "in the ZIP but not in the manifest")
    if not problems and not extra:
        report.add("files", True, f"{len(listed)} files, each with the size and SHA-256 the manifest lists, "
                                  "and nothing else in the ZIP")
    return good


# ---- 3 and 4: the audit rows, their seals and the chain of seals --------------------------------
def _rows(rows: list[dict], report: Report) -> dict[int, str]:
    """Recompute every row's hash; the recomputed hash of each row by seq."""
    recomputed: dict[int, str] = {}
    bad, withheld = [], 0
    for row in rows:
        if row.get("withheld_fields"):
            # The public variant: a field was withheld, so the row cannot be hashed again here; its
            # recorded hash still has to prove into its seal (below).
            recomputed[row.get("seq")] = row.get("row_hash")
            withheld += 1
            continue
        values = {key: value for key, value in row.items() if key != "row_hash"}
        try:
            digest = audit_chain.row_hash_of(values)
        except (ValueError, TypeError) as exc:
            digest = f"(not hashable: {exc})"
        recomputed[row.get("seq")] = digest
        if digest != row.get("row_hash"):
            bad.append(row)
    for row in bad:
        report.add(f"audit row seq {row.get('seq')} ({row.get('id')})", False,
                   f"its fields hash to {recomputed[row.get('seq')]}, not the row_hash {row.get('row_hash')} "
                   "recorded: the row was changed")
    if not bad:
        report.add("audit rows", True, f"{len(rows)} rows, {len(rows) - withheld} with their row_hash recomputed from "
                                       f"the row's fields" + (f", {withheld} with a field withheld (their recorded "
                                                              "hash proved in the seal instead)" if withheld else ""))
    return recomputed


def _seal_fields(seal: dict) -> dict:
    return {key: seal.get(key) for key in audit_chain.SEAL_FIELDS}


def _seals(data: dict, manifest: dict, recomputed: dict[int, str], report: Report) -> None:
    seals = sorted(data.get("seals", []), key=lambda s: s.get("number", 0))
    listed = {s.get("number"): s for s in manifest.get("seals", [])}
    problems: list[tuple[str, str]] = []
    previous: dict | None = None
    for seal in seals:
        name = f"seal {seal.get('number')} ({seal.get('day')})"
        if audit_chain.seal_hash_of(_seal_fields(seal)) != seal.get("seal_hash"):
            problems.append((name, "its fields do not hash to its seal_hash: the seal was changed"))
        if previous is not None and seal.get("number") == previous.get("number") + 1 \
                and seal.get("prev_seal_hash") != previous.get("seal_hash"):
            problems.append((name, f"names {seal.get('prev_seal_hash')} as the seal before it, but seal "
                                   f"{previous.get('number')}'s hash is {previous.get('seal_hash')}"))
        if previous is not None and seal.get("number") != previous.get("number") + 1:
            problems.append((name, f"the seals jump from {previous.get('number')} to {seal.get('number')}"))
        mine = listed.get(seal.get("number"))
        if mine is None or mine.get("root") != seal.get("merkle_root") or mine.get("seal_hash") != seal.get("seal_hash"):
            problems.append((name, "its root or seal hash is not the one the manifest lists"))
        previous = seal
    if set(listed) - {s.get("number") for s in seals}:
        problems.append(("seals", f"the manifest lists seals {sorted(set(listed) - {s.get('number') for s in seals})} "
                                  "that audit/seals.json does not hold"))
    by_number = {s.get("number"): s for s in seals}
    proved = 0
    for proof in data.get("proofs", []):
        seq, number = proof.get("seq"), proof.get("seal")
        name = f"audit row seq {seq}"
        seal = by_number.get(number)
        if seq not in recomputed:
            problems.append((name, "has a proof but is not among the audit rows"))
        elif seal is None:
            problems.append((name, f"its proof names seal {number}, which the file does not hold"))
        elif not audit_chain.verify_inclusion(recomputed[seq], proof.get("index"), seal.get("row_count"),
                                              proof.get("path", []), seal.get("merkle_root")):
            problems.append((name, f"its inclusion proof does not lead to the root of seal {number}: the row, "
                                   "its place or the seal was changed"))
        else:
            proved += 1
    unsealed = set(data.get("unsealed", []))
    covered = {proof.get("seq") for proof in data.get("proofs", [])}
    for seq in sorted(set(recomputed) - covered - unsealed, key=lambda s: (s is None, s)):
        problems.append((f"audit row seq {seq}", "neither proved in a seal nor listed as not yet sealed"))
    for seq in sorted(unsealed & covered):
        problems.append((f"audit row seq {seq}", "listed as not yet sealed and also proved in a seal"))
    last_sealed = max((s.get("last_seq") or 0 for s in seals), default=0)
    for seq in sorted(s for s in unsealed if isinstance(s, int) and s <= last_sealed):
        problems.append((f"audit row seq {seq}", f"listed as not yet sealed, yet seal {seals[-1].get('number')} "
                                                 f"covers rows up to seq {last_sealed}"))
    for name, problem in problems:
        report.add(name, False, problem)
    if not problems:
        report.add("audit seals", True, f"{len(seals)} seals chained each to the one before, {proved} rows proved "
                                        f"in their seal's Merkle root, {len(unsealed)} rows not yet sealed")


# ---- 5: signed PDFs --------------------------------------------------------------------------------
def _trust_context(trust: Iterable[bytes] | None):
    from asn1crypto import pem, x509
    from pyhanko_certvalidator import ValidationContext
    roots = []
    for blob in trust or ():
        if pem.detect(blob):
            roots += [x509.Certificate.load(der) for _t, _h, der in pem.unarmor(blob, multiple=True)]
        else:
            roots.append(x509.Certificate.load(blob))
    return ValidationContext(trust_roots=roots, allow_fetching=False), len(roots)


def _signature_problem(data: bytes, trust: Iterable[bytes] | None) -> tuple[str | None, str]:
    """(problem or None, what was found) for one signed PDF."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.status import ModificationLevel, SignatureCoverageLevel
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        signatures = reader.embedded_signatures
    except Exception as exc:  # a PDF pyHanko cannot parse is a problem, not a crash
        return f"not readable as a PDF ({exc.__class__.__name__}: {exc})", ""
    if not signatures:
        return "the manifest says it is signed, but it holds no signature", ""
    found = []
    for signature in signatures:
        context, roots = _trust_context(trust)
        try:
            status = outside_event_loop(lambda: validate_pdf_signature(signature, context,
                                                                       ts_validation_context=context))
        except Exception as exc:
            return f"signature {signature.field_name!r} could not be validated ({exc.__class__.__name__}: {exc})", ""
        if not status.intact:
            return f"signature {signature.field_name!r}: the signed bytes were changed (digest does not match)", ""
        if not status.valid:
            return f"signature {signature.field_name!r}: not a valid signature over its bytes", ""
        whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE or (
            status.coverage == SignatureCoverageLevel.ENTIRE_REVISION
            and status.modification_level in (ModificationLevel.NONE, ModificationLevel.LTA_UPDATES))
        if not whole:
            return f"signature {signature.field_name!r}: the file was changed after it was signed", ""
        if trust is not None and not status.trusted:
            return f"signature {signature.field_name!r}: the signer's certificate does not chain to the " \
                   f"{roots} trusted certificate(s) given", ""
        signer = status.signing_cert.subject.human_friendly if status.signing_cert is not None else "?"
        stamp = " with a timestamp" if status.timestamp_validity is not None else ""
        found.append(f"signed by {signer}{stamp}" + (", trusted" if trust is not None else ""))
    return None, "; ".join(found)


def _signed(archive: zipfile.ZipFile, manifest: dict, good: set[str], trust: list[bytes] | None,
            report: Report) -> None:
    entries = [e for e in manifest.get("files", []) if e.get("signed") and e.get("path") in good]
    count = 0
    for entry in entries:
        if entry.get("size", 0) > MAX_PDF_BYTES:
            report.add(f"signature of {entry['path']}", False, "larger than the verifier reads")
            continue
        problem, found = _signature_problem(archive.read(entry["path"]), trust)
        if problem:
            report.add(f"signature of {entry['path']}", False, problem)
        else:
            count += 1
    if count == len(entries):
        how = "trusted to the certificates given" if trust is not None else \
            "not checked against a trusted root (give --trust ROOT.pem)"
        report.add("signatures", True, f"{count} signed PDFs, each intact and valid, {how}")


# ---- the whole ---------------------------------------------------------------------------------------
def verify(path: str | Path | io.BufferedIOBase, trust: list[bytes] | None = None) -> Report:
    report = Report()
    with zipfile.ZipFile(path) as archive:
        try:
            manifest = _json(archive, MANIFEST)
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise ValueError(f"not a manifest of the format {FORMAT!r}")
        except (KeyError, ValueError) as exc:
            report.add("manifest", False, f"no readable {MANIFEST}: {exc}")
            return report
        with archive.open(MANIFEST) as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        permit = manifest.get("permit") or {}
        report.add("manifest", True, f"permit {permit.get('number') or permit.get('id')}, made "
                                     f"{manifest.get('generated_at')} by {manifest.get('system', {}).get('name')} "
                                     f"{manifest.get('system', {}).get('version')}"
                                     f"{', public variant' if manifest.get('public') else ''}; "
                                     f"manifest SHA-256 {digest}")
        good = _files(archive, manifest, report)
        rows = _json(archive, ROWS) if ROWS in good else None
        recomputed = _rows(rows.get("rows", []), report) if isinstance(rows, dict) else {}
        if SEALS in good:
            _seals(_json(archive, SEALS), manifest, recomputed, report)
        elif rows is not None:
            report.add("audit seals", False, f"{SEALS} is missing or not as listed")
        _signed(archive, manifest, good, trust, report)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m inspect_api.exports.case_file_verify",
                                     description="Check a case file offline: hashes, audit chain, signatures.")
    parser.add_argument("file", help="the case file (.zip)")
    parser.add_argument("--trust", action="append", metavar="ROOT.pem",
                        help="PEM certificate(s) the signatures must chain to; may be given more than once")
    args = parser.parse_args(argv)
    return run(args.file, args.trust, print)


def run(file: str, trust_files: list[str] | None, echo) -> int:
    trust = [Path(name).read_bytes() for name in trust_files] if trust_files else None
    try:
        report = verify(file, trust)
    except (zipfile.BadZipFile, OSError) as exc:
        echo(f"FAIL  zip: {file} cannot be read as a ZIP file ({exc})")
        return 2
    for line in report.lines():
        echo(line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
