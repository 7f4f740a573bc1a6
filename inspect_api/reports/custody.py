"""A sample's chain-of-custody form (R-S1): gathered through the sample's own read rights, rendered
by custody_pdf.py, kept as a stored rendition like the inspection report (renditions.py)."""
from __future__ import annotations

import logging
from dataclasses import asdict, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select

from .. import clock, renditions
from ..errors import NotFound
from ..extensions import db
from ..permits.models import Permit
from ..photos import derivation as photo_derivation, parents as photo_parents
from ..photos.models import Photo
from ..sampling import rules as sampling_rules
from ..sampling.models import Sample
from ..sampling.services import get_sample
from ..sampling.units import PARAMETERS
from . import custody_pdf

log = logging.getLogger(__name__)

KIND = "custody-form"
# Everyone who may read the sample is shown the same form: its fields, and only the signatures that
# count for it (photos.parents.attached), whoever asks.
AUDIENCE = "reader"
HOLDING_NOTE = ("Holding times: 40 CFR 136.3 Table II, counted from the time sampled. An analysis made exactly "
                "at the limit is within it; any time after it exceeds it.")


def _when(at: datetime | None) -> str:
    return at.astimezone(clock.town_zone()).strftime("%Y-%m-%d %H:%M %Z") if at else "\u2013"


def _blank(value: Any) -> str:
    """A value as recorded, or a line for the lab to write on."""
    return "\u2013" if value is None else str(value)


def _sample_rows(sample: Sample, permit: Permit) -> list[tuple[str, str]]:
    where = []
    if sample.outfall_id:
        where.append(f"discharge point {sample.outfall_id}")
    if sample.location_lat is not None:
        accuracy = f" (\u00b1{sample.location_accuracy_m:g} m)" if sample.location_accuracy_m is not None else ""
        where.append(f"{sample.location_lat:.5f}, {sample.location_lon:.5f}{accuracy}")
    rows = [("Sample id", sample.id),
            ("Permit", permit.number or "not yet numbered (application not submitted)"),
            ("Site", permit.site_address), ("Owner", permit.owner_name),
            ("Sampled at", _when(sample.sampled_at)), ("Sampler", sample.sampler),
            ("Location", "; ".join(where) or "\u2013"),
            ("Sample type", sample.sample_type), ("Analysis", "laboratory" if sample.analysis == "lab" else "field"),
            ("Laboratory", sample.lab_name or "\u2013")]
    if sample.notes:
        rows.append(("Notes", sample.notes))
    return rows


def _status_words(hold: dict[str, Any] | None) -> str:
    if hold is None:
        return "no holding time listed"
    status = hold["status"]
    if status == sampling_rules.EXCEEDED:
        return f"HOLDING TIME EXCEEDED by {sampling_rules.duration_words(hold['exceeded_by_seconds'])}"
    return {sampling_rules.RUNNING: "not yet analysed", sampling_rules.WITHIN: "analysed within the holding time",
            sampling_rules.NOT_JUDGED: "field reading"}[status]


def _analysis_rows(sample: Sample, now: datetime) -> list[tuple[str, str, str, str, str, str]]:
    holds = {h["parameter"]: h for h in sampling_rules.holding_times(
        sample.parameters or [], sample.sampled_at, sample.analyzed_at, sample.analysis, now)}
    rows = []
    for item in sample.parameters or []:
        param = PARAMETERS.get(item["name"])
        hold = holds.get(item["name"])
        result = f"{item['value']} {item['unit']}" if item.get("value") is not None else "result pending"
        rows.append((param.label if param else item["name"], item.get("container") or "\u2013",
                     item.get("preservative") or "\u2013",
                     sampling_rules.duration_words(hold["limit_seconds"]) if hold else "\u2013",
                     _when(hold["deadline"]) if hold else "\u2013", f"{result}; {_status_words(hold)}"))
    return rows


def _signatures(sample: Sample) -> dict[str, Photo]:
    """The signature photos the transfers name that count for this sample (its own permit and parent)."""
    ids = [str(t["signature_photo_id"]) for t in sample.chain_of_custody or [] if t.get("signature_photo_id")]
    if not ids:
        return {}
    found = db.session.scalars(select(Photo).where(
        Photo.id.in_(ids), Photo.permit_id == sample.permit_id, Photo.parent_type == "sample",
        Photo.parent_id == sample.id, photo_parents.attached()))
    return {photo.id: photo for photo in found}


def _transfers(sample: Sample, signatures: dict[str, Photo]) -> tuple[list[custody_pdf.TransferEntry], bool]:
    """The hand-overs with their signature thumbnails, and whether every signature that arrived was read."""
    entries, complete = [], True
    for number, transfer in enumerate(sample.chain_of_custody or [], start=1):
        photo_id = transfer.get("signature_photo_id")
        photo = signatures.get(str(photo_id)) if photo_id else None
        data, note = None, "no signature" if not photo_id else "signature not yet uploaded"
        if photo is not None:
            try:
                # Made from the original before the worker made the thumbnail (the form is then not kept).
                data, stored = photo_derivation.thumbnail_bytes(photo.sha256, photo.original_key, "small",
                                                                photo.small_key)
                complete = complete and stored
            except Exception:  # the record arrived but its bytes did not (yet): not kept as the form
                log.warning("signature %s of sample %s unreadable", photo.id, sample.id, exc_info=True)
                complete, note = False, "signature not yet readable"
        entries.append(custody_pdf.TransferEntry(
            str(number), transfer["from_name"], transfer["to_name"],
            _when(datetime.fromisoformat(transfer["at"])), data, note))
    return entries, complete


def _lab_rows(sample: Sample) -> list[tuple[str, str]]:
    temperature = None if sample.lab_receipt_temperature_c is None else f"{sample.lab_receipt_temperature_c:g} \u00b0C"
    blank = "\u00a0\n\u00a0"  # room to write by hand
    return [("Laboratory", sample.lab_name or blank),
            ("Received by", sample.lab_received_by or blank),
            ("Date and time received", _when(sample.received_by_lab_at) if sample.received_by_lab_at else blank),
            ("Temperature on receipt", temperature or blank),
            ("Analysed at", _when(sample.analyzed_at) if sample.analyzed_at else blank)]


def custody_form(user, sample_id: str):
    """The PDF answer for one sample (visibility exactly as for the sample). Its key holds the sample
    and permit by version, the signatures' stored thumbnails, and the text as gathered: a holding time
    that runs out changes the text, so a form printed after it says so."""
    sample = get_sample(user, sample_id)
    permit = db.session.get(Permit, sample.permit_id)
    if permit is None:
        raise NotFound("No such sample.")
    now = clock.now()
    signatures = _signatures(sample)
    data = custody_pdf.CustodyData(
        title=f"Chain of custody \u2013 sample of {_when(sample.sampled_at)}",
        sample_rows=_sample_rows(sample, permit), analysis_rows=_analysis_rows(sample, now),
        lab_rows=_lab_rows(sample), notes=[HOLDING_NOTE],
        footer=f"Sample {sample.id} \u00b7 version {sample.version}")
    inputs = {
        "records": [["sample", sample.id, sample.version], ["permit", permit.id, permit.version]]
                   + [["photo", photo.id, photo.small_key] for photo in sorted(signatures.values(), key=lambda p: p.id)],
        "content": asdict(data),
    }

    def render() -> renditions.Rendered:
        transfers, complete = _transfers(sample, signatures)
        page = replace(data, transfers=transfers, footer=f"{data.footer} \u00b7 generated {_when(clock.now())}")
        return renditions.Rendered(custody_pdf.render(page), keep=complete)

    day = sample.sampled_at.astimezone(clock.town_zone()).date().isoformat()
    return renditions.respond(KIND, AUDIENCE, inputs, render, filename=f"custody-{permit.number or 'draft'}-{day}.pdf")
