"""Extension objects, created once and bound in create_app()."""
from flask_compress import Compress
from flask_jwt_extended import JWTManager
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_smorest import Api
from flask_sqlalchemy import SQLAlchemy

from .db import Base

db = SQLAlchemy(model_class=Base)
migrate = Migrate()
jwt = JWTManager()


class InspectApi(Api):
    """flask-smorest's Api publishing the error shape the app really answers with (API.md)."""

    from .schemas import ErrorSchema as ERROR_SCHEMA  # noqa: N811


api = InspectApi()
compress = Compress()
limiter = Limiter(key_func=get_remote_address, default_limits=[], headers_enabled=True)
