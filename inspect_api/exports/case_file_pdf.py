"""The case file's index.pdf: what the file holds, the permit in brief, every file with a short hash,
the seals the audit rows prove into, what the public variant withheld, and, last, a records
custodian's certificate (MGL c.233 §79J) for the records officer to fill in, sign and have attested."""
from __future__ import annotations

from typing import Any

from .. import pdf
from ..pdf import inch

SHORT_HASH = 16  # hex digits of a SHA-256 the table prints; manifest.json has the whole


def _permit_rows(manifest: dict[str, Any], permit: dict[str, Any]) -> list[tuple[str, Any]]:
    site = permit.get("site") or {}
    owner = permit.get("owner") or {}
    return [
        ("Number", permit.get("number") or "(none yet)"),
        ("Record id", manifest["permit"]["id"]),
        ("Status", (permit.get("status") or "").replace("_", " ")),
        ("Review level", permit.get("review_level")),
        ("Site", site.get("address")),
        ("Parcel", site.get("parcel_id")),
        ("Owner of record", owner.get("name")),
        ("Proposed use", permit.get("proposed_use")),
        ("Disturbed area (sq ft)", permit.get("disturbed_area_sqft")),
    ]


def _certificate(s: pdf.Styles, width: float, manifest: dict[str, Any]) -> list[Any]:
    number = manifest["permit"].get("number") or manifest["permit"]["id"]
    blank = "_" * 38
    story = [
        pdf.p("Records custodian's certificate (MGL c.233 §79J)", s.heading),
        pdf.p("Commonwealth of Massachusetts, County of Bristol, ss.", s.body),
        pdf.spacer(4),
        pdf.p(f"I, {blank} (name), being duly sworn, depose and say:", s.body),
        pdf.numbered([
            f"I am the {blank} (title) of the {pdf.TOWN} {pdf.AUTHORITY}, and a custodian of its records, or "
            "otherwise qualified to certify them, and I am familiar with the manner in which they are made "
            "and kept.",
            f"The records in this case file, listed in the table above with the SHA-256 of each file, are "
            f"true and complete copies of the records the {pdf.AUTHORITY} keeps on permit or case {number}, "
            f"as produced from its records system on {manifest['generated_at']}.",
            "The records were made in good faith in the regular course of the Town's business, at or near "
            "the time of the acts, events and conditions they record, by, or from information given by, "
            "persons with knowledge of them, and it was the regular course of that business to make such "
            "records at that time or within a reasonable time after.",
            "The records are kept in the regular course of that business; the audit rows in this file, "
            "and the daily seals that cover them, record each change made to them.",
        ], s.body),
        pdf.spacer(6),
        pdf.p("Signed under the pains and penalties of perjury.", s.body),
        pdf.spacer(4),
        pdf.pairs([("Signature", " "), ("Name", " "), ("Title", " "), ("Date", " ")], s, width,
                  label_width=1.2 * inch),
        pdf.spacer(10),
        pdf.p("Notary / attestation", s.subheading),
        pdf.p(f"On this ____ day of ______________, 20___, before me, the undersigned notary public, "
              f"personally appeared {blank}, proved to me through satisfactory evidence of identification, "
              "which was ______________________, to be the person whose name is signed above, and who swore "
              "or affirmed to me that the contents of the document are truthful and accurate to the best of "
              "their knowledge and belief.", s.body),
        pdf.signature_block("Notary Public", "My commission expires: ______________", s, width),
    ]
    return story


def render_index(manifest: dict[str, Any], files: list[dict[str, Any]], permit: dict[str, Any]) -> bytes:
    s = pdf.styles()
    width = pdf.text_width()
    number = manifest["permit"].get("number") or manifest["permit"]["id"]
    variant = " (public records variant)" if manifest.get("public") else ""
    story: list[Any] = [
        pdf.p(f"Case file {number}{variant}", s.title),
        pdf.p(f"{pdf.TOWN} {pdf.AUTHORITY} · {pdf.BYLAW}", s.subtitle),
        pdf.spacer(8),
        pdf.p(f"Made {manifest['generated_at']} by {manifest['system']['name']} {manifest['system']['version']}. "
              "This ZIP holds every record of the permit or case as JSON (records/), every photo original with "
              "its annotations (photos/), every uploaded and issued document, issued ones as signed "
              "(documents/), the audit rows with the daily seals that cover them (audit/), and manifest.json, "
              "which lists each file's SHA-256 and size.", s.body),
        pdf.p("To check it, with no access to the Town's systems: inspect-api case-file verify FILE.zip "
              "[--trust ROOT.pem] (or python -m inspect_api.exports.case_file_verify FILE.zip). It recomputes "
              "every file's hash, every audit row's hash and its proof in its day's seal, and validates every "
              "signed PDF.", s.body),
        pdf.p("The permit", s.heading),
        pdf.pairs(_permit_rows(manifest, permit), s, width),
        pdf.p("What the file holds", s.heading),
        pdf.table(["Records", "Count"], [(name.replace("_", " "), count)
                                         for name, count in manifest.get("counts", {}).items()],
                  [width * 0.7, width * 0.3], s, "No records."),
        pdf.p("Audit trail", s.heading),
        pdf.p(f"{manifest['audit']['rows']} audit rows; {manifest['audit']['sealed']} proved in a daily seal, "
              f"{manifest['audit']['not_yet_sealed']} not yet sealed (made since the last seal).", s.body),
        pdf.table(["Seal", "Day", "Rows", "Merkle root", "Seal hash"],
                  [(seal["number"], seal["day"], seal.get("row_count"), seal["root"], seal["seal_hash"])
                   for seal in manifest.get("seals", [])],
                  [0.5 * inch, 0.9 * inch, 0.5 * inch, (width - 1.9 * inch) / 2, (width - 1.9 * inch) / 2], s,
                  "No seal covers these rows yet."),
    ]
    if manifest.get("withheld"):
        story += [pdf.p("Withheld (MGL c.66 §10)", s.heading),
                  pdf.table(["What", "Why", "Fields"],
                            [(item["what"], item["why"], ", ".join(item["fields"])) for item in manifest["withheld"]],
                            [width * 0.3, width * 0.35, width * 0.35], s, "Nothing withheld.")]
    story += [
        pdf.p("Files", s.heading),
        pdf.table(["File", "Bytes", "SHA-256 (first 16)", "What"],
                  [(f["path"], f["size"], f["sha256"][:SHORT_HASH], f.get("what", "")) for f in files],
                  [width * 0.38, width * 0.1, width * 0.2, width * 0.32], s, "No files."),
        pdf.spacer(12),
    ]
    story += _certificate(s, width, manifest)
    return pdf.render(story, title=f"Case file {number}", subject="Case file index and records certificate",
                      footer=f"Case file {number} · {manifest['generated_at']}")


__all__ = ["render_index"]
