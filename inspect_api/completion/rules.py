"""Close-out rules of the bylaw's completion section as pure functions (DOMAIN.md R-F). No database, no Flask."""
from __future__ import annotations

from datetime import date
from typing import Any, Iterable

FINAL_REPORT_YEARS = 2
ADMIN_REVIEW = "administrative_review"
PERMIT = "land_disturbance_permit"

NOTICE_STATUSES = ("submitted", "accepted", "returned")
REPORT_STATUSES = ("draft", "submitted", "accepted", "returned")
DECISIONS = ("accept", "return")
DOCUMENT_KINDS = ("as_built_plan", "cover_letter", "certification", "om_documentation", "photo", "other")
CONTROL_KINDS = ("structural", "non_structural")
# Statuses in which the applicant may file a notice or report: the work has begun and is not closed.
CLOSEOUT_PERMIT_STATUSES = ("active", "work_complete")
CERTIFICATE_PERMIT_STATUS = "work_complete"


def add_years(start: date, years: int) -> date:
    """The same calendar day `years` later; a 29 February start falls on 28 February of a common year."""
    try:
        return start.replace(year=start.year + years)
    except ValueError:  # 29 February into a year without one
        return start.replace(year=start.year + years, day=28)


def final_report_due_on(work_completed_on: date | None) -> date | None:
    """R-F2: the final report is due no later than two years after completion of work.

    A completion on 29 February is due on 28 February two years later (never 1 March: the bylaw's
    "no later than" must not grow by a day in leap years)."""
    if work_completed_on is None:
        return None
    return add_years(work_completed_on, FINAL_REPORT_YEARS)


def report_overdue(due_on: date | None, today: date, submitted_on: date | None) -> bool:
    """R-F2 overdue flag: the due date has passed and nothing was submitted. The due date itself is still on time."""
    if due_on is None or submitted_on is not None:
        return False
    return today > due_on


def submitted_late(due_on: date | None, submitted_on: date | None) -> bool:
    """A report submitted after its due date (kept as a fact beside the overdue flag)."""
    return due_on is not None and submitted_on is not None and submitted_on > due_on


def closeout_kind(review_level: str) -> str | None:
    """R-F1/R-F2: an administrative review closes with a completion notice, a permit with a final report."""
    return {ADMIN_REVIEW: "completion_notice", PERMIT: "final_report"}.get(review_level)


def notice_problems(statement: str | None, photo_ids: Iterable[str]) -> dict[str, list[str]]:
    """R-F1: a written statement and photographic evidence (at least one photo)."""
    errors: dict[str, list[str]] = {}
    if not (statement or "").strip():
        errors["statement"] = ["Describe how the completed work matches the approved plan."]
    if not list(photo_ids):
        errors["photo_ids"] = ["Attach at least one photo of the completed work (R-F1)."]
    return errors


def acceptance_problem(photo_statuses: Iterable[str]) -> tuple[str, str, dict[str, list[str]]] | None:
    """R-F1: a notice is accepted only once at least one of its photos has arrived and been verified
    ("uploaded": stored with its bytes checked against their SHA-256); a photo still pending on a device
    is no evidence. Returns (error key, sentence, field errors), or None."""
    if "uploaded" in set(photo_statuses):
        return None
    return ("photos_not_received",
            "The notice cannot be accepted before at least one of its photos has arrived: a photo still "
            "on the applicant's device is no photographic evidence (R-F1).",
            {"photo_ids": ["None of the notice's photos has arrived yet."]})


def _stamp_problems(stamp: dict[str, Any] | None, label: str) -> list[str]:
    if not stamp:
        return [f"The as-built plan needs the {label} stamp: name, license number and stamp date."]
    missing = [k for k in ("name", "license_number", "stamp_date") if not stamp.get(k)]
    return [f"The {label} stamp lacks: {', '.join(missing)}."] if missing else []


def report_problems(report: dict[str, Any], document_kinds: Iterable[str], today: date) -> dict[str, list[str]]:
    """R-F2: what a final report must hold before it can be submitted, as field errors (empty when complete):
    among them the as-built plan and the O&M documentation as documents (`document_kinds`, uploaded files
    and papers the Town recorded by name alike).

    `report` holds pls_stamp, pe_stamp (dicts or None), pe_applicable, certification (dict), discrepancies,
    controls and om_statement."""
    errors: dict[str, list[str]] = {}
    pls = _stamp_problems(report.get("pls_stamp"), "professional land surveyor (PLS)")
    if pls:
        errors["pls_stamp"] = pls
    if report.get("pe_applicable", True) or report.get("pe_stamp"):
        pe = _stamp_problems(report.get("pe_stamp"), "professional engineer (PE)")
        if pe:
            errors["pe_stamp"] = pe
    for key in ("pls_stamp", "pe_stamp"):
        stamp_date = (report.get(key) or {}).get("stamp_date")
        if isinstance(stamp_date, date) and stamp_date > today:
            errors.setdefault(key, []).append("The stamp date is in the future.")
    cert = report.get("certification") or {}
    missing = [k for k in ("substantial_compliance", "permanent_erosion_controls", "stormwater_facilities")
               if cert.get(k) is not True]
    if missing:
        errors["certification"] = ["The certification of substantial compliance must cover: "
                                   + ", ".join(missing) + "."]
    if report.get("discrepancies") is None:
        errors["discrepancies"] = ["List the discrepancies from the approved plan "
                                   "(an empty list states there are none)."]
    if not report.get("controls"):
        errors["controls"] = ["List every structural and non-structural control on the site."]
    if not (report.get("om_statement") or "").strip():
        errors["om_statement"] = ["Document that the system was operated and maintained per the O&M plan."]
    # "documentation to verify": the as-built plan and the O&M documentation are documents, uploaded or
    # delivered on paper and recorded by name by the Town; the O&M statement alone does not suffice.
    kinds = set(document_kinds)
    if "as_built_plan" not in kinds:
        errors.setdefault("documents", []).append(
            "Upload the stamped as-built plan (a document of kind as_built_plan).")
    if "om_documentation" not in kinds:
        errors.setdefault("documents", []).append(
            "Upload the documentation that the system was operated and maintained per the O&M plan (a document "
            "of kind om_documentation), or deliver it on paper for the Town to record: a statement alone is not "
            "enough (R-F2).")
    return errors


def review_problems(decision: str, reasons: str | None) -> dict[str, list[str]]:
    """R-F3: a return must say why."""
    if decision == "return" and not (reasons or "").strip():
        return {"reasons": ["Give the reasons for returning it."]}
    return {}


def certificate_problem(permit_status: str, basis_status: str | None, has_certificate: bool) -> tuple[str, str] | None:
    """R-F3: a certificate is issued once, for a permit whose work is complete, on an accepted notice or report.
    Returns (error key, sentence) for what stands in the way, or None."""
    if has_certificate:
        return "certificate_exists", "A certificate of completion was already issued for this permit."
    if permit_status != CERTIFICATE_PERMIT_STATUS:
        return ("permit_not_work_complete",
                f"The permit is {permit_status.replace('_', ' ')}; a certificate needs it to be work complete.")
    if basis_status != "accepted":
        return ("completion_not_accepted",
                "The completion notice or final report has not been accepted yet." if basis_status else
                "No completion notice or final report has been filed yet.")
    return None


def certificate_number(year: int, sequence: int) -> str:
    return f"COC-{year}-{sequence:04d}"
