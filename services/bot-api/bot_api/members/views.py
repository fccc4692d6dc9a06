"""The members API (docs/api.md "Members"): parse, call the use case, render. Owners
only (shared/roles.py); `/account/me` answers any caller who they are."""

from typing import Any

from aiohttp import web

from bot_api.common.schemas import SuccessSchema
from bot_api.common.views import account_of, success
from bot_api.members.keys import MEMBERS
from bot_api.members.schemas import (
    CallerSchema,
    MemberSchema,
    MemberWriteSchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenSchema,
)
from shared.auditing import Audited
from shared.auth import Role
from shared.endpoints import endpoint, principal_of
from shared.members import Member, MemberFields, MemberToken
from shared.timeutil import iso

BASE = "/account/members"
ONE = BASE + "/{id}"
TOKENS = ONE + "/tokens"

routes = web.RouteTableDef()


def _member_id(request: web.Request) -> str:
    return request.match_info["id"]


def _fields(body: dict[str, Any]) -> MemberFields:
    stories = body["stories"]
    return MemberFields(
        email=body["email"],
        name=body["name"],
        role=Role(body["role"]),
        stories=None if stories is None else tuple(stories),
        subject=body["subject"],
    )


def _member(member: Member) -> dict[str, Any]:
    return {
        "id": member.id,
        "email": member.email,
        "name": member.name,
        "role": member.role.value,
        "stories": None if member.stories is None else list(member.stories),
        "subject": member.subject,
        "createdAt": iso(member.created_at),
        "updatedAt": iso(member.updated_at),
    }


def _token(token: MemberToken) -> dict[str, Any]:
    return {
        "id": token.id,
        "name": token.name,
        "createdAt": iso(token.created_at),
        "expiresAt": iso(token.expires_at),
    }


@routes.get("/account/me")
@endpoint(
    summary="Who the token names: its member and role", tag="members", response=CallerSchema()
)
async def read_caller(request: web.Request) -> Any:
    principal = principal_of(request)
    stories = principal.stories
    return {
        "memberId": principal.member_id,
        "name": principal.member_name,
        "role": principal.role.value,
        "stories": None if stories is None else sorted(stories),
        "tokenId": principal.token_id,
    }


@routes.get(BASE)
@endpoint(
    summary="List the account's members, oldest first",
    tag="members",
    response=MemberSchema(many=True),
)
async def list_members(request: web.Request) -> Any:
    return [_member(m) for m in await request.app[MEMBERS].all(account_of(request))]


@routes.post(BASE)
@endpoint(
    summary="Add a member with a role, perhaps narrowed to some stories",
    tag="members",
    audit=Audited("member.create", shows=("email", "name", "role", "stories", "subject")),
    body=MemberWriteSchema(),
    response=MemberSchema(),
    status=201,
    errors=(409,),
)
async def create_member(request: web.Request, body: dict[str, Any]) -> Any:
    return _member(await request.app[MEMBERS].create(account_of(request), _fields(body)))


@routes.get(ONE)
@endpoint(summary="Read a member", tag="members", response=MemberSchema(), errors=(404,))
async def read_member(request: web.Request) -> Any:
    return _member(await request.app[MEMBERS].read(account_of(request), _member_id(request)))


@routes.put(ONE)
@endpoint(
    summary="Replace a member's e-mail, name, role, stories and subject (the last owner stays one)",
    tag="members",
    audit=Audited("member.update", shows=("email", "name", "role", "stories", "subject")),
    body=MemberWriteSchema(),
    response=MemberSchema(),
    errors=(404, 409),
)
async def update_member(request: web.Request, body: dict[str, Any]) -> Any:
    member = await request.app[MEMBERS].update(
        account_of(request), _member_id(request), _fields(body)
    )
    return _member(member)


@routes.delete(ONE)
@endpoint(
    summary="Remove a member and their tokens (not the last owner)",
    tag="members",
    audit=Audited("member.delete"),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def delete_member(request: web.Request) -> Any:
    await request.app[MEMBERS].delete(account_of(request), _member_id(request))
    return success()


@routes.get(TOKENS)
@endpoint(
    summary="List a member's tokens (never the tokens themselves)",
    tag="members",
    response=TokenSchema(many=True),
    errors=(404,),
)
async def list_tokens(request: web.Request) -> Any:
    tokens = await request.app[MEMBERS].tokens(account_of(request), _member_id(request))
    return [_token(token) for token in tokens]


@routes.post(TOKENS)
@endpoint(
    summary="Create a personal API token for a member, shown once",
    tag="members",
    audit=Audited("token.create", shows=("name", "expiresAt")),
    body=TokenCreateSchema(),
    response=TokenIssuedSchema(),
    status=201,
    errors=(404, 409),
)
async def create_token(request: web.Request, body: dict[str, Any]) -> Any:
    issued = await request.app[MEMBERS].create_token(
        account_of(request), _member_id(request), body["name"], body.get("expiresAt")
    )
    return {"id": issued.id, "token": issued.token, "expiresAt": iso(issued.expires_at)}


@routes.delete(TOKENS + "/{token}")
@endpoint(
    summary="Revoke a member's token: it is refused at once",
    tag="members",
    audit=Audited("token.revoke"),
    response=SuccessSchema(),
    errors=(404,),
)
async def revoke_token(request: web.Request) -> Any:
    await request.app[MEMBERS].revoke_token(
        account_of(request), _member_id(request), request.match_info["token"]
    )
    return success()
