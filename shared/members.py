"""An account's members (people with a role) and their personal tokens (docs/teams.md).

The `members` and `member_tokens` collections live beside `accounts`, which both services
read: shared/auth.py authenticates a member token; this module writes them, for
bot-api's `/account/members` and the `accounts members|tokens` command. Counts are
bounded with counters kept on the account (`memberCount`, `ownerCount`) and on the
member (`tokenCount`), changed by conditional updates, so that two requests at once can
neither pass a bound nor remove the last two owners together.
"""

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from shared.auth import MEMBER_TOKEN_PREFIX, Role, hash_token
from shared.errors import BadRequest, Conflict, NotFound
from shared.ids import is_object_id
from shared.mongo import Database
from shared.timeutil import utcnow

MAX_MEMBERS = 200
"""Members of one account: a team's people and its CI's service members, not a user
directory (sign-in maps people to members one by one); every member's tokens are
listed and checked, so the count is bounded."""
MAX_ACCOUNTS_PER_PERSON = 50
"""Accounts one person signing in is offered (one member each); a deployment's accounts
are its tenants, and a person is rarely in more than a few."""
MAX_TOKENS_PER_MEMBER = 20
"""Live tokens of one member: one per machine or CI job that acts for them; more is a
sign of tokens never revoked."""
DEFAULT_TOKEN_DAYS = 90
"""A token created without `expiresAt` expires this many days later."""
MAX_TOKEN_DAYS = 366
"""No token lives longer than a year: a leaked one stops working by itself."""
MAX_STORIES = 100
"""Stories a member may be narrowed to (the stories quota's default)."""
MAX_SUBJECT = 255
"""Characters of a subject: OpenID Connect Core §2 bounds `sub` to 255 ASCII characters."""


@dataclass(frozen=True)
class Member:
    id: str
    account_id: str
    email: str
    name: str
    role: Role
    stories: tuple[str, ...] | None
    """None: every story of the account."""
    created_at: datetime
    updated_at: datetime
    subject: str | None = None
    """The identity provider's `sub` of the person: given by an owner, or learnt at the
    member's first sign-in by e-mail (None: not yet linked)."""


@dataclass(frozen=True)
class MemberToken:
    """A token as listed: never the token itself."""

    id: str
    member_id: str
    name: str
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class IssuedMemberToken:
    id: str
    token: str
    """Shown once: only its hash is stored."""
    expires_at: datetime


@dataclass(frozen=True)
class MemberFields:
    """What a member is given, checked: their e-mail, name, role and stories."""

    email: str
    name: str
    role: Role
    stories: tuple[str, ...] | None = None
    subject: str | None = None

    def __post_init__(self) -> None:
        if self.subject is not None and not 0 < len(self.subject) <= MAX_SUBJECT:
            raise BadRequest(f"subject is 1 to {MAX_SUBJECT} characters")
        if self.role is Role.VISITOR:
            raise BadRequest("role must be one of owner, editor, publisher, agent, viewer")
        if self.stories is not None:
            if self.role is Role.OWNER:
                raise BadRequest("an owner holds every story: leave out stories")
            if not self.stories:
                raise BadRequest("stories, when given, names at least one story")
            if len(self.stories) > MAX_STORIES:
                raise BadRequest(f"a member is narrowed to at most {MAX_STORIES} stories")
            for story_id in self.stories:
                if not is_object_id(story_id):
                    raise BadRequest(f"{story_id!r} is not a story id (24 hex digits)")


def _member(document: dict[str, Any]) -> Member:
    stories = document.get("stories")
    return Member(
        id=str(document["_id"]),
        account_id=document["accountId"],
        email=document["email"],
        name=document["name"],
        role=Role(document["role"]),
        stories=None if stories is None else tuple(stories),
        created_at=document["createdAt"],
        updated_at=document["updatedAt"],
        subject=document.get("subject"),
    )


def _token(document: dict[str, Any]) -> MemberToken:
    return MemberToken(
        id=str(document["_id"]),
        member_id=str(document["memberId"]),
        name=document["name"],
        created_at=document["createdAt"],
        expires_at=document["expiresAt"],
    )


def _below(counter: str, bound: int) -> dict[str, Any]:
    return {"$or": [{counter: {"$exists": False}}, {counter: {"$lt": bound}}]}


class MemberRepository:
    def __init__(self, database: Database, now: Callable[[], datetime] = utcnow) -> None:
        self._accounts = database["accounts"]
        self._members = database["members"]
        self._tokens = database["member_tokens"]
        self._now = now

    async def all(self, account_id: str) -> list[Member]:
        cursor = self._members.find({"accountId": account_id}).sort("_id", 1)
        return [_member(document) async for document in cursor]

    async def read(self, account_id: str, member_id: str) -> Member:
        return _member(await self._document(account_id, member_id))

    async def by_email(self, account_id: str, email: str) -> Member:
        """The member of that e-mail, whatever its case (for the command line)."""
        document = await self._members.find_one(
            {"accountId": account_id, "emailKey": email.casefold()}
        )
        if document is None:
            raise NotFound(f"no member {email!r} in this account")
        return _member(document)

    async def with_subject(self, subject: str) -> list[Member]:
        """The members linked to this identity provider subject in every account (a
        person signing in to the console), at most `MAX_ACCOUNTS_PER_PERSON`."""
        return await self._found({"subject": subject})

    async def unlinked_with_email(self, email: str) -> list[Member]:
        """The members with this e-mail address, whatever its case, and no subject yet,
        in every account, at most `MAX_ACCOUNTS_PER_PERSON`."""
        return await self._found({"emailKey": email.casefold(), "subject": None})

    async def _found(self, query: dict[str, Any]) -> list[Member]:
        found = self._members.find(query).sort("_id", 1).limit(MAX_ACCOUNTS_PER_PERSON)
        return [_member(document) async for document in found]

    async def link(self, member: Member, subject: str) -> bool:
        """Give a member who has none the subject they signed in with; False when they
        have one already, or another member of their account has this one."""
        try:
            linked = await self._members.update_one(
                {"_id": ObjectId(member.id), "subject": None}, {"$set": {"subject": subject}}
            )
        except DuplicateKeyError:
            return False
        return linked.modified_count == 1

    async def _document(self, account_id: str, member_id: str) -> dict[str, Any]:
        document = None
        if is_object_id(member_id):
            document = await self._members.find_one(
                {"_id": ObjectId(member_id), "accountId": account_id}
            )
        if document is None:
            raise NotFound(f"no member {member_id!r} in this account")
        return document

    async def create(self, account_id: str, fields: MemberFields) -> Member:
        owner = int(fields.role is Role.OWNER)
        counted = await self._accounts.update_one(
            {"_id": ObjectId(account_id), **_below("memberCount", MAX_MEMBERS)},
            {"$inc": {"memberCount": 1, "ownerCount": owner}},
        )
        if counted.matched_count != 1:
            raise Conflict(f"an account has at most {MAX_MEMBERS} members")
        now = self._now()
        document = {
            "_id": ObjectId(),
            "accountId": account_id,
            **self._fields(fields),
            "tokenCount": 0,
            "createdAt": now,
            "updatedAt": now,
        }
        try:
            await self._members.insert_one(document)
        except DuplicateKeyError:
            await self._count(account_id, members=-1, owners=-owner)
            raise await self._taken(account_id, fields) from None
        return _member(document)

    @staticmethod
    def _fields(fields: MemberFields) -> dict[str, Any]:
        return {
            "email": fields.email,
            "emailKey": fields.email.casefold(),
            "name": fields.name,
            "role": fields.role.value,
            "stories": None if fields.stories is None else sorted(set(fields.stories)),
            "subject": fields.subject,
        }

    async def _taken(self, account_id: str, fields: MemberFields) -> Conflict:
        """Which of the fields another member of the account holds already."""
        if fields.subject is not None:
            holder = await self._members.find_one(
                {"accountId": account_id, "subject": fields.subject}, projection={"email": 1}
            )
            if holder is not None:
                return Conflict(f"subject {fields.subject!r} is already {holder['email']!r}'s")
        return Conflict(f"{fields.email!r} is already a member of this account")

    async def _count(self, account_id: str, members: int, owners: int) -> None:
        await self._accounts.update_one(
            {"_id": ObjectId(account_id)}, {"$inc": {"memberCount": members, "ownerCount": owners}}
        )

    async def _release_owner(self, account_id: str, member_id: str) -> None:
        """Count one owner fewer, unless they are the last (a 409)."""
        released = await self._accounts.update_one(
            {"_id": ObjectId(account_id), "ownerCount": {"$gt": 1}}, {"$inc": {"ownerCount": -1}}
        )
        if released.matched_count != 1:
            raise Conflict(f"member {member_id!r} is the account's last owner")

    async def update(self, account_id: str, member_id: str, fields: MemberFields) -> Member:
        before = await self._document(account_id, member_id)
        was_owner = before["role"] == Role.OWNER.value
        is_owner = fields.role is Role.OWNER
        if was_owner and not is_owner:
            await self._release_owner(account_id, member_id)
        elif is_owner and not was_owner:
            await self._count(account_id, members=0, owners=1)
        after = {**before, **self._fields(fields), "updatedAt": self._now()}
        try:
            # replaced whole: nx-27017 stores a datetime `$set` as a string
            replaced = await self._members.replace_one(
                {"_id": before["_id"], "accountId": account_id}, after
            )
        except DuplicateKeyError:
            await self._count(account_id, members=0, owners=int(was_owner) - int(is_owner))
            raise await self._taken(account_id, fields) from None
        if replaced.matched_count != 1:
            await self._count(account_id, members=0, owners=int(was_owner) - int(is_owner))
            raise NotFound(f"no member {member_id!r} in this account")
        return _member(after)

    async def delete(self, account_id: str, member_id: str) -> Member:
        """Remove the member and every token of theirs (they stop working at once)."""
        document = await self._document(account_id, member_id)
        owner = document["role"] == Role.OWNER.value
        if owner:
            await self._release_owner(account_id, member_id)
        deleted = await self._members.delete_one({"_id": document["_id"]})
        if deleted.deleted_count != 1:
            await self._count(account_id, members=0, owners=int(owner))
            raise NotFound(f"no member {member_id!r} in this account")
        await self._tokens.delete_many({"memberId": str(document["_id"])})
        await self._count(account_id, members=-1, owners=0)
        return _member(document)

    async def tokens(self, account_id: str, member_id: str) -> list[MemberToken]:
        member = await self._document(account_id, member_id)
        cursor = self._tokens.find({"memberId": str(member["_id"])}).sort("_id", 1)
        return [_token(document) async for document in cursor]

    async def create_token(
        self, account_id: str, member_id: str, name: str, expires_at: datetime | None
    ) -> IssuedMemberToken:
        now = self._now()
        expires_at = expires_at or now + timedelta(days=DEFAULT_TOKEN_DAYS)
        if expires_at <= now:
            raise BadRequest("expiresAt must be in the future")
        if expires_at > now + timedelta(days=MAX_TOKEN_DAYS):
            raise BadRequest(f"expiresAt is at most {MAX_TOKEN_DAYS} days ahead")
        member = await self._document(account_id, member_id)
        expired = await self._tokens.delete_many(
            {"memberId": str(member["_id"]), "expiresAt": {"$lte": now}}
        )
        if expired.deleted_count:
            await self._members.update_one(
                {"_id": member["_id"]}, {"$inc": {"tokenCount": -expired.deleted_count}}
            )
        counted = await self._members.update_one(
            {"_id": member["_id"], **_below("tokenCount", MAX_TOKENS_PER_MEMBER)},
            {"$inc": {"tokenCount": 1}},
        )
        if counted.matched_count != 1:
            raise Conflict(f"a member has at most {MAX_TOKENS_PER_MEMBER} tokens: revoke one first")
        token = MEMBER_TOKEN_PREFIX + secrets.token_urlsafe(32)
        document = {
            "_id": ObjectId(),
            "accountId": account_id,
            "memberId": str(member["_id"]),
            "name": name,
            "hash": hash_token(token),
            "createdAt": now,
            "expiresAt": expires_at,
        }
        await self._tokens.insert_one(document)
        return IssuedMemberToken(str(document["_id"]), token, expires_at)

    async def revoke_token(self, account_id: str, member_id: str, token_id: str) -> None:
        member = await self._document(account_id, member_id)
        deleted = None
        if is_object_id(token_id):
            deleted = await self._tokens.delete_one(
                {"_id": ObjectId(token_id), "memberId": str(member["_id"])}
            )
        if deleted is None or deleted.deleted_count != 1:
            raise NotFound(f"no token {token_id!r} of member {member_id!r}")
        await self._members.update_one({"_id": member["_id"]}, {"$inc": {"tokenCount": -1}})
