"""The public permit lookup tells anyone what a permit is and where it stands, and nothing private
(API.md "Public", issue 26): a town with a permit of every status, each naming every kind of party with
planted name, mailing address, e-mail and phone, with documents, photos, findings, conditions and
orders; no public answer holds any planted string, and each item holds exactly the public fields.

The world is built the way the app builds it (services and the API); statuses are set directly and
dated by hand (factory.permit / force_status, as the other suites do), except one review started
through the API, whose status day comes from its event."""
from __future__ import annotations

import json
import uuid
from datetime import date, datetime, timezone

import pytest

from inspect_api.errors import NotFound
from inspect_api.extensions import db
from inspect_api.inspections.findings import create_finding
from inspect_api.permits import cases, parts
from inspect_api.permits import services as permit_services
from inspect_api.permits.models import Permit
from inspect_api.public import lookup

from ..photos.helpers import jpeg, put_photo, sha
from ..town_clock import TownClock

API = "/api/v1"
LIST = f"{API}/public/permits"
# The documented public shape, written out here so that a field added in the code fails this suite.
PUBLIC_KEYS = {"number", "review_level", "status", "status_date", "address", "site", "limit_of_work", "applied_on",
               "decided_on", "work_started_on", "completed_on", "certificate_issued", "open_orders"}
NEAR_KEYS = PUBLIC_KEYS | {"distance_m"}
TODAY = date(2026, 5, 4)
CENTRE = (41.6376, -70.9036)
KINDS = ("draft", "submitted", "under_review", "approved", "issued", "active", "work_complete", "closed",
         "withdrawn", "denied")
PUBLIC_KINDS = ("submitted", "under_review", "approved", "issued", "active", "work_complete", "closed", "denied")


@pytest.fixture
def town_clock(monkeypatch):
    clock_ = TownClock(monkeypatch)
    clock_.set(TODAY)
    return clock_


def utc(day: date, hour: int = 15) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=timezone.utc)


def square(lat: float, lon: float, d: float = 0.0004) -> dict:
    ring = [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]
    return {"type": "Polygon", "coordinates": [ring]}


class Secrets:
    """Strings planted in private fields: each unique, none that a public answer could hold by chance."""

    def __init__(self) -> None:
        self.planted: set[str] = set()

    def text(self, what: str) -> str:
        value = f"Zqx{what.title().replace('_', '')}{uuid.uuid4().hex[:8]}"
        self.planted.add(value)
        return value

    def email(self, what: str) -> str:
        value = f"zqx.{what}.{uuid.uuid4().hex[:8]}@secret-mail.example"
        self.planted.add(value)
        return value

    def phone(self) -> str:
        value = f"+1 508 555 {uuid.uuid4().int % 10000:04d} x{uuid.uuid4().int % 1000:03d}"
        self.planted.add(value)
        return value

    def party(self, role: str) -> dict:
        return {"role": role, "name": self.text(f"{role}_name"), "mailing_address": self.text(f"{role}_mail"),
                "email": self.email(role), "phone": self.phone()}

    def add(self, *values) -> None:
        self.planted.update(str(v) for v in values if v)


class Town:
    """A permit of every status (`permits[kind]`) and two enforcement cases, one before its first order
    (`case_before`) and one after (`case_after`), each loaded with private records."""

    def __init__(self, client, factory) -> None:
        self.client, self.f = client, factory
        self.secrets = Secrets()
        self.supervisor = factory.user("supervisor", name=self.secrets.text("supervisor"),
                                       email=self.secrets.email("supervisor"))
        self.inspector = factory.user("inspector", name=self.secrets.text("inspector"),
                                      email=self.secrets.email("inspector"))
        self.sup = factory.headers(self.supervisor)
        self.secrets.add(self.supervisor.id, self.inspector.id)
        self.permits: dict = {}
        self.applicants: dict = {}
        self.place: dict = {}

    # -- plumbing ----------------------------------------------------------------------------------
    def call(self, method: str, path: str, expect: int = 201, headers=None, **kwargs) -> dict:
        r = self.client.open(API + path, method=method, headers=headers or self.sup, **kwargs)
        assert r.status_code == expect, (method, path, r.status_code, r.get_data(as_text=True))
        return r.get_json(silent=True) or {}

    def point(self, i: int) -> tuple[float, float]:
        """Sites strung out north-east of the centre, each farther than the one before."""
        return round(CENTRE[0] + 0.002 * (i + 1), 6), round(CENTRE[1] + 0.0015 * (i + 1), 6)

    # -- the build ---------------------------------------------------------------------------------
    def build(self) -> "Town":
        for i, kind in enumerate(KINDS):
            self.permits[kind] = self._application(kind, i)
        self._dates()
        self._orders()
        self._close()
        self.case_before = self._case(len(KINDS))
        self.case_after = self._case(len(KINDS) + 1)
        self.call("POST", "/orders", json={
            "permit_id": self.case_after.id, "kinds": ["cease_and_desist", "remediation"], "deadline": "2026-05-20",
            "requirements": [{"kind": "cease_and_desist", "text": self.secrets.text("case_requirement")},
                             {"kind": "remediation", "text": self.secrets.text("case_requirement")}],
            "violated": [{"provision_kind": "bylaw", "provision": self.secrets.text("case_provision")}],
            "referral_note": self.secrets.text("referral")})
        db.session.expire_all()
        return self

    def _application(self, kind: str, i: int):
        s = self.secrets
        applicant = self.f.user("applicant", name=s.text("applicant_user"), email=s.email("applicant_user"))
        s.add(applicant.id)
        self.applicants[kind] = applicant
        lat, lon = self.point(i)
        self.place[kind] = (lat, lon)
        owner = s.party("owner")
        permit = self.f.permit(
            applicant=applicant, disturbed_area_sqft=12000 if kind == "closed" else 30000,
            site={"address": f"{100 + i} Public Way, Fairhaven, MA 02719", "parcel_id": s.text("parcel"),
                  "location": {"lat": lat, "lon": lon}, "limit_of_work": square(lat, lon)},
            owner={"name": owner["name"], "email": owner["email"], "phone": owner["phone"],
                   "mailing_address": owner["mailing_address"]},
            proposed_use=s.text("use"), description=s.text("description"))
        s.add(permit.id)
        self._private_records(permit, applicant)
        if kind in ("withdrawn", "denied", "under_review"):
            permit_services.force_status(permit, "submitted")  # numbered on submission, as in life
        if kind not in ("draft", "under_review"):
            permit_services.force_status(permit, "work_complete" if kind == "closed" else kind)
        db.session.commit()
        if kind == "under_review":  # through the API: its status day is its event's
            self.call("POST", f"/permits/{permit.id}/transitions", expect=200, json={"to": "under_review"})
        return permit

    def _private_records(self, permit, applicant) -> None:
        """Every kind of party, a document, a photo, a finding and a condition, each with planted text."""
        s = self.secrets
        for role in ("owner", "violator", "applicant", "contractor"):
            party = cases.create_party(self.supervisor, permit, s.party(role))
            s.add(party.id)
        document, _ = parts.add_document(applicant, permit, {"kind": "esc_plan", "filename": s.text("file") + ".pdf",
                                                              "title": s.text("document")})
        condition = parts.add_condition(self.supervisor, permit, s.text("condition"))
        finding = create_finding(permit, kind="deficiency", description=s.text("finding"), observed_on=TODAY,
                                 required_action=s.text("required_action"), actor=self.inspector)
        s.add(document.id, condition.id, finding.id)
        db.session.commit()
        data = jpeg()
        r = put_photo(self.client, self.sup, permit.id, data)
        assert r.status_code == 201, r.get_json()
        s.add(r.get_json()["id"], sha(data))

    def _dates(self) -> None:
        """The days an application was received and decided and its work went, as the flow records them."""
        received, decided = utc(date(2026, 3, 2)), utc(date(2026, 3, 20))
        for kind in PUBLIC_KINDS + ("withdrawn",):
            self.permits[kind].submitted_at = received
        for kind in ("approved", "issued", "active", "work_complete", "closed", "denied"):
            self.permits[kind].decided_at = decided
        for kind in ("active", "work_complete", "closed"):
            self.permits[kind].work_commenced_on = date(2026, 3, 25)
        for kind in ("work_complete", "closed"):
            self.permits[kind].work_completed_on = date(2026, 4, 20)
        db.session.commit()

    def _orders(self) -> None:
        """On the active permit an open order and one complied with; on the issued one an overdue order."""
        s = self.secrets
        active, issued = self.permits["active"], self.permits["issued"]
        self.call("POST", "/orders", json={
            "permit_id": active.id, "kinds": ["remediation", "controls"], "deadline": "2026-05-15",
            "requirements": [{"kind": "controls", "text": s.text("requirement")},
                             {"kind": "remediation", "text": s.text("requirement")}]})
        complied = self.call("POST", "/orders", json={
            "permit_id": active.id, "kinds": ["monitoring"], "deadline": "2026-05-10",
            "requirements": [{"kind": "monitoring", "text": s.text("requirement")}]})
        self.call("POST", f"/orders/{complied['id']}/status", expect=200,
                  json={"to": "complied", "note": s.text("order_note")})
        self.call("POST", "/orders", json={
            "permit_id": issued.id, "kinds": ["controls"], "issued_on": "2026-04-01", "deadline": "2026-04-10",
            "requirements": [{"kind": "controls", "text": s.text("requirement")}]})

    def _close(self) -> None:
        """The closed permit closes as the bylaw closes it: a completion notice with a photo, accepted,
        and a certificate of completion (R-F1, R-F3)."""
        permit, applicant = self.permits["closed"], self.applicants["closed"]
        headers = self.f.headers(applicant)
        notice_id, data = str(uuid.uuid4()), jpeg((48, 48))
        photo = put_photo(self.client, headers, permit.id, data, parent_type="completion_notice", parent_id=notice_id)
        assert photo.status_code == 201, photo.get_json()
        self.secrets.add(photo.get_json()["id"], sha(data), notice_id)
        self.call("POST", "/completion-notices", headers=headers, json={
            "id": notice_id, "permit_id": permit.id, "statement": self.secrets.text("statement"),
            "photo_ids": [photo.get_json()["id"]]})
        self.call("POST", f"/completion-notices/{notice_id}/review", expect=200, json={"decision": "accept"})
        certificate = self.call("POST", f"/permits/{permit.id}/certificate", json={})
        self.secrets.add(certificate["id"])

    def _case(self, i: int):
        """An enforcement case on land disturbed with no application (R-O0)."""
        s = self.secrets
        lat, lon = self.point(i)
        owner = s.party("owner")
        body = self.f.permit_payload(
            site={"address": f"{100 + i} Public Way, Fairhaven, MA 02719", "parcel_id": s.text("parcel"),
                  "location": {"lat": lat, "lon": lon}},
            owner={"name": owner["name"], "email": owner["email"], "phone": owner["phone"],
                   "mailing_address": owner["mailing_address"]},
            parties=[s.party("violator"), s.party("contractor")], proposed_use=s.text("use"),
            description=s.text("description"))
        case = self.call("POST", "/permits", json=body)
        assert case["status"] == "unpermitted", case
        s.add(case["id"])
        permit = db.session.get(Permit, case["id"])
        finding = create_finding(permit, kind="deficiency", description=s.text("finding"), observed_on=TODAY,
                                 actor=self.inspector)
        s.add(finding.id)
        db.session.commit()
        data = jpeg((40, 30))
        r = put_photo(self.client, self.sup, permit.id, data)
        assert r.status_code == 201, r.get_json()
        s.add(r.get_json()["id"], sha(data))
        return permit

    # -- what the tests read -----------------------------------------------------------------------
    def public(self) -> dict:
        """kind -> permit, for every record the public may read."""
        return {**{k: self.permits[k] for k in PUBLIC_KINDS}, "case_after": self.case_after}


@pytest.fixture
def town(client, factory, town_clock):
    return Town(client, factory).build()


def leaks(response, secrets: Secrets) -> list[str]:
    """The planted strings found anywhere in the answer: its body or any header."""
    text = response.get_data(as_text=True) + "\n" + "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    lowered = text.lower()
    return sorted(s for s in secrets.planted if s.lower() in lowered)


def assert_public(response, secrets: Secrets, keys=PUBLIC_KEYS) -> list[dict]:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert leaks(response, secrets) == []
    body = response.get_json()
    items = body if isinstance(body, list) else [body]
    for item in items:
        assert set(item) == keys, item
        assert set(item["open_orders"]) == {"count", "kinds"}
        assert item["site"] is None or set(item["site"]) == {"lat", "lon"}
    return items


# --- nothing private, on every public answer ---------------------------------------------------------
def test_no_public_answer_holds_anything_private(client, town):
    public = town.public()
    urls = [LIST, f"{LIST}?limit=100", f"{LIST}?street=public%20way", f"{LIST}?q=PUBLIC",
            *(f"{LIST}?status={status}" for status in lookup.PUBLIC_STATUSES),
            *(f"{LIST}?q={p.number}" for p in public.values()),
            *(f"{LIST}?q={p.number.lower()}&street={p.site_address.split(',')[0]}" for p in public.values())]
    seen = set()
    for url in urls:
        for item in assert_public(client.get(url), town.secrets):
            seen.add(item["number"])
    assert seen == {p.number for p in public.values()}
    near = f"{CENTRE[0]},{CENTRE[1]}"
    items = assert_public(client.get(f"{LIST}?near={near}&limit=100"), town.secrets, NEAR_KEYS)
    assert len(items) == len(public)
    for number in sorted(p.number for p in public.values()):
        [item] = assert_public(client.get(f"{LIST}/{number}"), town.secrets)
        assert item["number"] == number
    # Page by page, the cursors too.
    r, pages = client.get(f"{LIST}?limit=2&near={near}"), 0
    while True:
        assert_public(r, town.secrets, NEAR_KEYS)
        pages += 1
        if "X-Next-Cursor" not in r.headers:
            break
        r = client.get(f"{LIST}?limit=2&near={near}&cursor={r.headers['X-Next-Cursor']}")
    assert pages == (len(public) + 1) // 2


def test_the_functions_the_pages_call_hold_nothing_private(app, town):
    items, total, _ = lookup.search({"q": None, "street": None, "status": None, "near": CENTRE, "limit": 100,
                                     "cursor": None})
    everything = items + [lookup.get_by_number(p.number) for p in town.public().values()] + lookup.active_sites()
    text = json.dumps(everything)
    assert sorted(s for s in town.secrets.planted if s in text) == []
    assert total == len(town.public()) and {frozenset(i) for i in items} == {frozenset(NEAR_KEYS)}
    assert all(set(item) == PUBLIC_KEYS for item in everything[len(items):])


def test_searching_a_private_field_finds_nothing(client, town):
    """`q` and `street` read the number and the address only: a search by a party's name, e-mail or
    mailing address, a finding's text or a parcel finds nothing, so it cannot tell that one exists."""
    words = sorted(s for s in town.secrets.planted if s.lower().startswith(("zqx", "+1")))
    assert len(words) > 100  # names, mailing addresses, e-mails, phones and texts of every kind
    for secret in words:
        for name in ("q", "street"):
            r = client.get(LIST, query_string={name: secret})
            assert r.status_code == 200 and r.get_json() == [] and r.headers["X-Total-Count"] == "0", (name, secret)


# --- what is public, and what is never ------------------------------------------------------------------
def test_drafts_withdrawn_applications_and_cases_before_an_order_are_never_public(client, town):
    listed = {item["number"] for item in client.get(f"{LIST}?limit=100").get_json()}
    hidden = [town.permits["draft"], town.permits["withdrawn"], town.case_before]
    assert town.permits["draft"].number is None  # a draft has no number yet
    assert town.permits["withdrawn"].number and town.case_before.number.startswith("ENF-")
    assert listed == {p.number for p in town.public().values()}
    for permit in hidden:
        address = permit.site_address.split(",")[0]
        r = client.get(LIST, query_string={"q": address, "limit": 100})
        assert r.status_code == 200 and r.get_json() == [] and r.headers["X-Total-Count"] == "0", address
    unknown = client.get(f"{LIST}/LDP-2026-9999")
    assert unknown.status_code == 404 and unknown.get_json() == {
        "code": 404, "status": "Not Found", "message": "No such permit.", "error": "not_found", "errors": {}}
    for number in (town.permits["withdrawn"].number, town.case_before.number):
        r = client.get(f"{LIST}/{number}")
        assert r.status_code == 404 and r.get_data() == unknown.get_data(), number
        assert r.headers["Cache-Control"] == "no-store"
    # Not even a draft that somehow held a number: the status alone keeps it private.
    town.permits["draft"].number = "LDP-2026-0990"
    db.session.commit()
    r = client.get(f"{LIST}/LDP-2026-0990")
    assert r.status_code == 404 and r.get_data() == unknown.get_data()
    with pytest.raises(NotFound):
        lookup.get_by_number("LDP-2026-0990")


def test_a_case_is_public_from_its_first_order(client, town):
    case = town.case_before
    assert client.get(f"{LIST}/{case.number}").status_code == 404
    assert client.get(LIST, query_string={"status": "unpermitted"}).get_json() == [
        client.get(f"{LIST}/{town.case_after.number}").get_json()]
    town.call("POST", "/orders", json={"permit_id": case.id, "kinds": ["controls"], "deadline": "2026-05-18",
                                       "requirements": [{"kind": "controls", "text": "Stabilise the slope"}]})
    r = client.get(f"{LIST}/{case.number}")
    [item] = assert_public(r, town.secrets)
    assert item["status"] == "unpermitted" and item["open_orders"] == {"count": 1, "kinds": ["controls"]}
    assert item["applied_on"] is None and item["decided_on"] is None
    # Complied with, the order closes; the case stays public, with no order in force.
    [order] = town.call("GET", f"/orders?permit_id={case.id}", expect=200)
    town.call("POST", f"/orders/{order['id']}/status", expect=200, json={"to": "complied"})
    item = client.get(f"{LIST}/{case.number}").get_json()
    assert item["open_orders"] == {"count": 0, "kinds": []}
    r = client.get(LIST, query_string={"status": "unpermitted"})
    assert {i["number"] for i in r.get_json()} == {case.number, town.case_after.number}
    assert r.headers["X-Total-Count"] == "2"


def test_each_item_says_where_the_record_stands(client, town):
    item = {k: client.get(f"{LIST}/{p.number}").get_json() for k, p in town.public().items()}
    active = item["active"]
    lat, lon = town.place["active"]
    assert active == {
        "number": town.permits["active"].number, "review_level": "land_disturbance_permit", "status": "active",
        "status_date": "2026-03-25", "address": town.permits["active"].site_address,
        "site": {"lat": lat, "lon": lon}, "limit_of_work": square(lat, lon), "applied_on": "2026-03-02",
        "decided_on": "2026-03-20", "work_started_on": "2026-03-25", "completed_on": None,
        "certificate_issued": False, "open_orders": {"count": 1, "kinds": ["controls", "remediation"]}}
    # Overdue is still in force.
    assert item["issued"]["open_orders"] == {"count": 1, "kinds": ["controls"]}
    assert item["submitted"]["status_date"] == "2026-03-02" and item["submitted"]["decided_on"] is None
    assert item["under_review"]["status_date"] == TODAY.isoformat()  # its event, made through the API
    assert item["approved"]["status_date"] == item["denied"]["status_date"] == "2026-03-20"
    assert item["work_complete"]["status_date"] == item["work_complete"]["completed_on"] == "2026-04-20"
    closed = item["closed"]
    assert (closed["status"], closed["status_date"], closed["certificate_issued"]) == (
        "closed", TODAY.isoformat(), True)
    assert closed["review_level"] == "administrative_review" and closed["number"].startswith("ALDR-")
    assert [k for k, v in item.items() if v["certificate_issued"]] == ["closed"]
    case = item["case_after"]
    assert (case["status"], case["limit_of_work"], case["status_date"]) == ("unpermitted", None, TODAY.isoformat())
    assert case["open_orders"] == {"count": 1, "kinds": ["cease_and_desist", "remediation"]}
    # A number is found whatever its case and surrounding spaces.
    number = town.permits["active"].number
    assert client.get(f"{LIST}/{number.lower()}").get_json() == active
    assert lookup.get_by_number(f"  {number.lower()} ") == active

