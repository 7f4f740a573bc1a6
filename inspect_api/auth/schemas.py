from marshmallow import Schema, fields, validate

from ..schemas import Boolean, EmailAddress
from .models import ROLES

PASSWORD_RULE = ("12 to 256 characters, and not a common or easily guessed password (NIST SP 800-63B): the "
                 "zxcvbn estimator must score it 3 of 4 or more (about 10^8 guesses), counting the account's own "
                 "e-mail and name as known words. A weak one is 422 validation_error on this field, saying why; "
                 "a few uncommon words together work well.")


class UserSchema(Schema):
    id = fields.String(dump_only=True)
    email = EmailAddress(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    role = fields.String(dump_only=True)
    active = Boolean(dump_only=True)


class RegisterSchema(Schema):
    email = EmailAddress(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=12, max=256),
                             metadata={"description": PASSWORD_RULE})


class CreateUserSchema(RegisterSchema):
    role = fields.String(required=True, validate=validate.OneOf(ROLES))


CONFIRMATION_RULE = ("Your own password: needed to change another admin's role, password or status "
                     "(403 confirmation_required without it, 422 invalid_credentials when wrong); wrong ones are "
                     "limited like sign-ins (429 with Retry-After)")


class ConfirmPasswordSchema(Schema):
    current_password = fields.String(load_only=True, validate=validate.Length(min=1, max=256),
                                     metadata={"description": CONFIRMATION_RULE})


class UpdateUserSchema(ConfirmPasswordSchema):
    name = fields.String(validate=validate.Length(min=1, max=200))
    role = fields.String(validate=validate.OneOf(ROLES))
    active = Boolean()
    password = fields.String(load_only=True, validate=validate.Length(min=12, max=256),
                             metadata={"description": PASSWORD_RULE})


class ChangePasswordSchema(Schema):
    current_password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=256))
    new_password = fields.String(required=True, load_only=True, validate=validate.Length(min=12, max=256),
                                 metadata={"description": PASSWORD_RULE})


class LoginSchema(Schema):
    email = fields.String(required=True, validate=validate.Length(min=1, max=254))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=256))
    device_name = fields.String(validate=validate.Length(max=200))
    device_id = fields.String(validate=validate.Length(min=1, max=64))


class TokenPairSchema(Schema):
    access_token = fields.String(required=True)
    refresh_token = fields.String(required=True)
    user = fields.Nested(UserSchema)
    device_id = fields.String(allow_none=True, metadata={
        "description": "The device this session signed in on: the one asked for, or a new id when that one "
                       "belongs to another account (keep it and send it from now on)"})


class AccessTokenSchema(Schema):
    access_token = fields.String(required=True)


class SessionSchema(Schema):
    id = fields.String()
    user_id = fields.String()
    device_id = fields.String(allow_none=True)
    device_name = fields.String(allow_none=True)
    created_at = fields.DateTime()
    expires_at = fields.DateTime()
    revoked_at = fields.DateTime(allow_none=True)
    last_used_at = fields.DateTime(allow_none=True)
