"""The instance folder (default SQLite file, local blobs, upload spool) comes from INSTANCE_PATH or the
working directory, never from the installed package, and is made only when a default needs it."""
from pathlib import Path

import inspect_api
from inspect_api import create_app
from inspect_api.config import TestConfig


def test_instance_path_from_configuration_and_made_for_the_default_database(tmp_path):
    folder = tmp_path / "data"
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=None, STORAGE_URL=None, INSTANCE_PATH=str(folder)))
    assert app.instance_path == str(folder.resolve())
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{folder.resolve() / 'inspect_api.sqlite3'}"
    assert app.config["STORAGE_URL"] == (folder.resolve() / "blobs").as_uri()
    assert folder.is_dir()


def test_instance_path_defaults_to_the_working_directory_not_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", STORAGE_URL=(tmp_path / "b").as_uri()))
    assert app.instance_path == str(tmp_path.resolve() / "instance")
    package = Path(inspect_api.__file__).resolve().parent
    assert not Path(app.instance_path).is_relative_to(package)
    # Database and storage are configured: nothing needs the folder, so it is not made.
    assert not (tmp_path / "instance").exists()


def test_the_demo_keeps_its_database_blobs_and_mail_in_the_configured_instance_folder(tmp_path, monkeypatch):
    from inspect_api import demo
    from inspect_api.config import DevelopmentConfig
    folder, elsewhere = tmp_path / "town-demo", tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(DevelopmentConfig, "INSTANCE_PATH", str(folder))
    instance = demo.demo_instance()
    assert instance == folder.resolve()
    app = demo._demo_app(instance, "http://127.0.0.1:5000/")
    # One folder for everything the demo writes: its database, its blobs and the .eml files of its mail.
    assert app.instance_path == str(folder.resolve())
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{folder.resolve() / 'demo.sqlite3'}"
    assert app.config["STORAGE_URL"] == (folder.resolve() / "demo-blobs").as_uri()
    assert not (elsewhere / "instance").exists()
