"""Members and their tokens, as written and as read (docs/api.md "Members")."""

from marshmallow import Schema, fields, validate

from shared.auth import MEMBER_ROLES
from shared.members import MAX_STORIES, MAX_SUBJECT
from shared.schema_fields import FullMatch, WriteSchema

ROLE_NAMES = [role.value for role in MEMBER_ROLES]
STORY_ID = FullMatch(r"^[0-9a-f]{24}$", error="A story's id: 24 hex digits.")


class MemberWriteSchema(WriteSchema):
    """A member as created or replaced (PUT sends every field; `stories` left out or
    null: every story; `subject` left out or null: linked again at the next sign-in).
    What a read returns can be sent back."""

    read_only = ("id", "createdAt", "updatedAt")

    email = fields.Email(required=True, validate=validate.Length(max=254))
    name = fields.String(required=True, validate=validate.Length(min=1, max=128))
    role = fields.String(
        required=True,
        validate=validate.OneOf(ROLE_NAMES),
        metadata={"description": 'What the member may do (docs/teams.md "Roles")'},
    )
    stories = fields.List(
        fields.String(validate=STORY_ID),
        allow_none=True,
        load_default=None,
        validate=validate.Length(min=1, max=MAX_STORIES),
        metadata={"description": "The stories the member is narrowed to; null: every story"},
    )
    subject = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate.Length(min=1, max=MAX_SUBJECT),
        metadata={
            "description": "The identity provider's `sub` of the person; null: linked at "
            "their first sign-in by e-mail"
        },
    )


class MemberSchema(Schema):
    id = fields.String(required=True)
    email = fields.String(required=True)
    name = fields.String(required=True)
    role = fields.String(required=True, validate=validate.OneOf(ROLE_NAMES))
    stories = fields.List(fields.String(), required=True, allow_none=True)
    subject = fields.String(required=True, allow_none=True)
    createdAt = fields.String(required=True)
    updatedAt = fields.String(required=True)


class TokenCreateSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=128))
    expiresAt = fields.AwareDateTime(
        metadata={"description": "When the token stops working: within a year; default 90 days"}
    )


class TokenIssuedSchema(Schema):
    id = fields.String(required=True)
    token = fields.String(
        required=True, metadata={"description": "Shown this once: only its hash is kept"}
    )
    expiresAt = fields.String(required=True)


class TokenSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    createdAt = fields.String(required=True)
    expiresAt = fields.String(required=True)


class CallerSchema(Schema):
    """Who the token names: its member (none for the account's own token) and role."""

    memberId = fields.String(required=True, allow_none=True)
    name = fields.String(required=True, allow_none=True)
    role = fields.String(required=True)
    stories = fields.List(fields.String(), required=True, allow_none=True)
    tokenId = fields.String(required=True, allow_none=True)
