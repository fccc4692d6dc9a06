"""Accounts, their two tokens and their members' tokens (docs/api.md "Accounts and
tokens", docs/teams.md "Tokens").

The `accounts` collection belongs to this module and is read by both services, and so
are the `members` and `member_tokens` collections beside it (shared/members.py manages
them). Tokens are shown once and stored only as SHA-256 hashes, so a database leak
leaks no token.
"""

import dataclasses
import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from shared.config import Config
from shared.errors import Conflict, Forbidden, NotFound, Unauthorized
from shared.mongo import Database
from shared.timeutil import utcnow

DEVELOPER_TOKEN_PREFIX = "pdt_"
PUBLIC_KEY_PREFIX = "ppk_"
MEMBER_TOKEN_PREFIX = "pmt_"


class TokenKind(Enum):
    DEVELOPER = "developer"
    PUBLIC = "public"


ACCOUNT_SETTINGS = (
    "QUERY_RATE",
    "QUERY_BURST",
    "QUERY_CLIENT_RATE",
    "QUERY_CLIENT_BURST",
    "QUERY_SESSION_RATE",
    "QUERY_SESSION_BURST",
    "MANAGEMENT_RATE",
    "MANAGEMENT_BURST",
    "QUOTA_STORIES",
    "QUOTA_INTERACTIONS_PER_STORY",
    "QUOTA_PHRASES_PER_STORY",
    "QUOTA_ENTITIES",
    "QUOTA_ENTRIES",
    "QUOTA_CONNECTIONS",
    "QUOTA_CHANNELS",
    "QUOTA_DOCUMENTS_PER_STORY",
    "QUOTA_PASSAGES_PER_STORY",
    "QUOTA_KNOWLEDGE_CHARACTERS",
)
"""The settings one account may have raised (or lowered) by `accounts limits`."""


@dataclass(frozen=True)
class AccountLimits:
    """One account's own values of `ACCOUNT_SETTINGS`, by Config field name; the
    deployment's setting holds for every other."""

    values: tuple[tuple[str, Any], ...] = ()
    """(field name, value): each an int or a float, as its Config field."""

    @classmethod
    def of_document(cls, stored: dict[str, Any] | None) -> "AccountLimits":
        """The values stored of settings an account may still have (others are ignored)."""
        known = {setting.lower() for setting in ACCOUNT_SETTINGS}
        return cls(tuple(sorted(i for i in (stored or {}).items() if i[0] in known)))

    def applied_to(self, config: Config) -> Config:
        return dataclasses.replace(config, **dict(self.values)) if self.values else config


class Role(Enum):
    """What a caller may do (docs/teams.md "Roles"; shared/roles.py says it route by
    route). The developer token is the account's owner; the public key a visitor."""

    OWNER = "owner"
    EDITOR = "editor"
    PUBLISHER = "publisher"
    AGENT = "agent"
    VIEWER = "viewer"
    VISITOR = "visitor"
    """The public key's: a chat client of the published stories, never a member's."""


MEMBER_ROLES = (Role.OWNER, Role.EDITOR, Role.PUBLISHER, Role.AGENT, Role.VIEWER)


@dataclass(frozen=True)
class Principal:
    """Who is calling: an account, through one of its two tokens or a member's token
    (which acts as a developer token narrowed by the member's role and stories), with
    the account's own limits."""

    account_id: str
    kind: TokenKind
    limits: AccountLimits = field(default=AccountLimits(), compare=False)
    role: Role = Role.OWNER
    member_id: str | None = None
    """None: the account's own token (the developer token or the public key)."""
    member_name: str | None = None
    stories: frozenset[str] | None = None
    """The story ids the member is narrowed to; None: every story of the account."""
    token_id: str | None = None
    """The member token's id; None for the account's own tokens."""
    expires_at: datetime | None = field(default=None, compare=False)
    """When the member token stops working; None: never."""

    def __post_init__(self) -> None:
        if self.kind is TokenKind.PUBLIC:  # the public key is a visitor, whatever was said
            object.__setattr__(self, "role", Role.VISITOR)

    def covers(self, story_id: str) -> bool:
        """Whether the caller may see the story at all (outside: as if it did not exist)."""
        return self.stories is None or story_id in self.stories


@dataclass(frozen=True)
class IssuedTokens:
    account_id: str
    account: str
    developer_token: str
    public_key: str

    def as_json(self) -> dict[str, str]:
        return {
            "account": self.account,
            "developerToken": self.developer_token,
            "publicKey": self.public_key,
        }


@dataclass(frozen=True)
class IssuedLimits:
    account_id: str
    limits: AccountLimits


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_tokens(account_id: str, account: str) -> tuple[IssuedTokens, dict[str, str]]:
    issued = IssuedTokens(
        account_id=account_id,
        account=account,
        developer_token=DEVELOPER_TOKEN_PREFIX + secrets.token_urlsafe(32),
        public_key=PUBLIC_KEY_PREFIX + secrets.token_urlsafe(32),
    )
    hashes = {
        "developerTokenHash": hash_token(issued.developer_token),
        "publicKeyHash": hash_token(issued.public_key),
    }
    return issued, hashes


class AccountRepository:
    def __init__(self, database: Database, now: Callable[[], datetime] = utcnow) -> None:
        self.collection = database["accounts"]
        self.members = database["members"]
        self.member_tokens = database["member_tokens"]
        self.now = now
        """The clock member tokens expire by."""

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("name", unique=True)
        await self.collection.create_index("developerTokenHash", unique=True)
        await self.collection.create_index("publicKeyHash", unique=True)
        await self.members.create_index([("accountId", 1), ("emailKey", 1)], unique=True)
        await self.members.create_index("emailKey")  # sign-in finds a person's members
        await self.members.create_index("subject")
        await self.members.create_index(
            [("accountId", 1), ("subject", 1)],
            unique=True,
            partialFilterExpression={"subject": {"$type": "string"}},
        )
        await self.member_tokens.create_index("hash", unique=True)
        await self.member_tokens.create_index("memberId")

    async def create(self, name: str, account_id: ObjectId | None = None) -> IssuedTokens:
        """A new account named `name`, of `account_id` when its audit record was written
        first (shared/account_commands.py)."""
        account_id = account_id or ObjectId()
        issued, hashes = _new_tokens(str(account_id), name)
        try:
            await self.collection.insert_one(
                {"_id": account_id, "name": name, "createdAt": utcnow(), **hashes}
            )
        except DuplicateKeyError:
            raise Conflict(f"account {name!r} already exists") from None
        return issued

    async def id_of(self, name: str) -> str:
        """The id of the account named `name` (for the command line)."""
        account = await self.collection.find_one({"name": name}, projection={"_id": 1})
        if account is None:
            raise NotFound(f"no account named {name!r}")
        return str(account["_id"])

    async def rotate(self, name: str) -> IssuedTokens:
        """New tokens for the account; the old ones stop working at once in the database,
        and in every running process once the rotation is announced (`TokensRotated`)."""
        account = await self.collection.find_one({"name": name}, projection={"_id": 1})
        if account is None:
            raise NotFound(f"no account named {name!r}")
        issued, hashes = _new_tokens(str(account["_id"]), name)
        updated = await self.collection.update_one(
            {"_id": account["_id"]}, {"$set": {**hashes, "rotatedAt": utcnow()}}
        )
        if updated.matched_count != 1:
            raise NotFound(f"no account named {name!r}")
        return issued

    async def set_limits(self, name: str, changes: dict[str, float | None]) -> IssuedLimits:
        """Give the account its own values of some `ACCOUNT_SETTINGS` (by Config field
        name; None goes back to the deployment's); its id and all its own values."""
        update: dict[str, dict[str, object]] = {}
        for setting, value in changes.items():
            if value is None:
                update.setdefault("$unset", {})[f"limits.{setting}"] = ""
            else:
                update.setdefault("$set", {})[f"limits.{setting}"] = value
        projection = {"limits": 1}
        if update:
            account = await self.collection.find_one_and_update(
                {"name": name}, update, projection=projection, return_document=ReturnDocument.AFTER
            )
        else:
            account = await self.collection.find_one({"name": name}, projection=projection)
        if account is None:
            raise NotFound(f"no account named {name!r}")
        return IssuedLimits(str(account["_id"]), AccountLimits.of_document(account.get("limits")))

    async def limits(self, account_id: str) -> AccountLimits:
        account = await self.collection.find_one(
            {"_id": ObjectId(account_id)}, projection={"limits": 1}
        )
        return AccountLimits.of_document(account and account.get("limits"))

    async def names(self, account_ids: list[str]) -> dict[str, str]:
        """The names of these accounts, by id (one a person signing in chooses from)."""
        ids = [ObjectId(i) for i in account_ids if ObjectId.is_valid(i)]
        found = self.collection.find({"_id": {"$in": ids}}, projection={"name": 1})
        return {str(account["_id"]): account["name"] async for account in found}

    async def authenticate(self, token: str) -> Principal:
        if token.startswith(MEMBER_TOKEN_PREFIX):
            return await self._authenticate_member(token)
        digest = hash_token(token)
        account = await self.collection.find_one(
            {"$or": [{"developerTokenHash": digest}, {"publicKeyHash": digest}]},
            projection={"developerTokenHash": 1, "limits": 1},
        )
        if account is None:
            raise Unauthorized("the access token is not valid")
        kind = TokenKind.DEVELOPER if account["developerTokenHash"] == digest else TokenKind.PUBLIC
        limits = AccountLimits.of_document(account.get("limits"))
        return Principal(account_id=str(account["_id"]), kind=kind, limits=limits)

    async def _authenticate_member(self, token: str) -> Principal:
        """A member token's principal: its member's role and stories, read now, so a
        change of role holds at once; a revoked token is gone, an expired one refused."""
        stored = await self.member_tokens.find_one({"hash": hash_token(token)})
        if stored is None or _expired(stored.get("expiresAt"), self.now()):
            raise Unauthorized("the access token is not valid")
        principal = await self.member_principal(stored["accountId"], stored["memberId"])
        return dataclasses.replace(
            principal, token_id=str(stored["_id"]), expires_at=stored.get("expiresAt")
        )

    async def member_principal(self, account_id: str, member_id: str) -> Principal:
        """A member's principal (through a token or a console session): their role and
        stories read now, so a change of role holds at once; a member removed is gone."""
        member = await self.members.find_one({"_id": ObjectId(member_id), "accountId": account_id})
        if member is None:
            raise Unauthorized("the access token is not valid")
        stories = member.get("stories")
        return Principal(
            account_id=account_id,
            kind=TokenKind.DEVELOPER,
            limits=await self.limits(account_id),
            role=Role(member["role"]),
            member_id=str(member["_id"]),
            member_name=member["name"],
            stories=None if stories is None else frozenset(stories),
        )


def _expired(expires_at: datetime | None, now: datetime) -> bool:
    return expires_at is not None and _aware(expires_at) <= now


def _aware(moment: datetime) -> datetime:
    """MongoDB gives datetimes back naive, in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class PrincipalCache:
    """Principals behind recently seen tokens, so a hot endpoint reads no account; and
    tokens found invalid, for `refused_ttl` seconds, so repeating one reads none either
    (1,093 lookups/s of invalid tokens raised another tenant's /query p50 from 5 to
    16 ms). No token becomes valid later: new tokens are random.

    A rotation or a change of limits announced over NATS makes every process forget the
    account's principals (`forget`); without the announcement a rotated token would
    keep working here for up to `ttl` seconds.
    """

    MAX_ENTRIES = 10_000

    def __init__(
        self, accounts: AccountRepository, ttl: float = 30.0, refused_ttl: float = 5.0
    ) -> None:
        self._accounts = accounts
        self._ttl = ttl
        self._refused_ttl = refused_ttl
        self._known: dict[str, tuple[Principal, float]] = {}
        self._refused: dict[str, float] = {}
        self._public: dict[str, tuple[Principal, float]] = {}
        """The public principal of each account a channel's turn came for (a channel
        holds no token: integrations-api vouches for the account)."""

    async def authenticate(self, token: str) -> Principal:
        now = time.monotonic()
        known = self._known.get(token)
        if (
            known is not None
            and known[1] > now
            and not _expired(known[0].expires_at, self._accounts.now())
        ):
            return known[0]
        if self._refused.get(token, 0.0) > now:
            raise Unauthorized("the access token is not valid")
        try:
            principal = await self._accounts.authenticate(token)
        except Unauthorized:
            if len(self._refused) >= self.MAX_ENTRIES:
                self._refused.clear()
            self._refused[token] = now + self._refused_ttl
            raise
        if len(self._known) >= self.MAX_ENTRIES:
            self._known.clear()
        self._known[token] = (principal, now + self._ttl)
        return principal

    async def public(self, account_id: str) -> Principal:
        """The account as its public key would authenticate it, with its own limits."""
        now = time.monotonic()
        known = self._public.get(account_id)
        if known is not None and known[1] > now:
            return known[0]
        limits = await self._accounts.limits(account_id)
        principal = Principal(account_id, TokenKind.PUBLIC, limits)
        if len(self._public) >= self.MAX_ENTRIES:
            self._public.clear()
        self._public[account_id] = (principal, now + self._ttl)
        return principal

    def forget(self, account_id: str) -> None:
        self._known = {
            token: known
            for token, known in self._known.items()
            if known[0].account_id != account_id
        }
        self._public.pop(account_id, None)


def bearer_token(header: str | None) -> str:
    if not header:
        raise Unauthorized("missing authorization header: send 'Bearer <token>'")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized("the authorization header must be 'Bearer <token>'")
    if not (token.isascii() and token.isprintable()):
        # Tokens are printable ASCII; anything else (bytes that are not UTF-8 arrive as
        # surrogates) names no account.
        raise Unauthorized("the access token is not valid")
    return token


def require(principal: Principal, allowed: frozenset[TokenKind]) -> None:
    if principal.kind not in allowed:
        raise Forbidden(f"a {principal.kind.value} token cannot call this endpoint")
