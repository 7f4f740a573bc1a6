"""Fixtures for signed documents: the test PKI (pki.py) made once per session, its timestamp authority
listening on 127.0.0.1, and every test's app configured to sign with the Town's key 1 (PEM key with
its passphrase, certificate, intermediate chain) and to timestamp with that authority."""
from __future__ import annotations

import pytest

from inspect_api.config import TestConfig

from ..enforcement.conftest import cast, town_clock
from ..notifications.conftest import smtp_factory, smtp_server
from .pki import TimestampServer, make_pki

SIGNING_OFF = {"SIGNING_KEY_FILE": None, "SIGNING_CERT_FILE": None, "SIGNING_CHAIN_FILE": None,
               "SIGNING_KEY_PASSPHRASE": None, "SIGNING_PKCS12_FILE": None, "SIGNING_PKCS12_PASSPHRASE": None,
               "SIGNING_TSA_URL": None}


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="session")
def tsa(pki):
    server = TimestampServer(pki.tsa)
    yield server
    server.stop()


def signing_settings(pki, tsa, key: int = 0) -> dict:
    return {**SIGNING_OFF, **pki.keys[key].settings(pki.chain_file), "SIGNING_TSA_URL": tsa.url}


@pytest.fixture
def config(_schema, tmp_path, pki, tsa):
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      **signing_settings(pki, tsa))
