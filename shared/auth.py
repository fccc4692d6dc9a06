"""Accounts and their two tokens (docs/api.md "Accounts and tokens").

The `accounts` collection belongs to this module and is read by both services. Tokens
are shown once and stored only as SHA-256 hashes, so a database leak leaks no token.
"""

import hashlib
import secrets
import time
from dataclasses import dataclass
from enum import Enum

from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from shared.errors import Conflict, Forbidden, NotFound, Unauthorized
from shared.mongo import Database
from shared.timeutil import utcnow

DEVELOPER_TOKEN_PREFIX = "pdt_"
PUBLIC_KEY_PREFIX = "ppk_"


class TokenKind(Enum):
    DEVELOPER = "developer"
    PUBLIC = "public"


@dataclass(frozen=True)
class Principal:
    """Who is calling: an account, through one of its two tokens."""

    account_id: str
    kind: TokenKind


@dataclass(frozen=True)
class IssuedTokens:
    account: str
    developer_token: str
    public_key: str

    def as_json(self) -> dict[str, str]:
        return {
            "account": self.account,
            "developerToken": self.developer_token,
            "publicKey": self.public_key,
        }


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_tokens(account: str) -> tuple[IssuedTokens, dict[str, str]]:
    issued = IssuedTokens(
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
    def __init__(self, database: Database) -> None:
        self.collection = database["accounts"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("name", unique=True)
        await self.collection.create_index("developerTokenHash", unique=True)
        await self.collection.create_index("publicKeyHash", unique=True)

    async def create(self, name: str) -> IssuedTokens:
        issued, hashes = _new_tokens(name)
        try:
            await self.collection.insert_one({"name": name, "createdAt": utcnow(), **hashes})
        except DuplicateKeyError:
            raise Conflict(f"account {name!r} already exists") from None
        return issued

    async def rotate(self, name: str) -> IssuedTokens:
        issued, hashes = _new_tokens(name)
        updated = await self.collection.find_one_and_update(
            {"name": name},
            {"$set": {**hashes, "rotatedAt": utcnow()}},
            return_document=ReturnDocument.AFTER,
        )
        if updated is None:
            raise NotFound(f"no account named {name!r}")
        return issued

    async def authenticate(self, token: str) -> Principal:
        digest = hash_token(token)
        account = await self.collection.find_one(
            {"$or": [{"developerTokenHash": digest}, {"publicKeyHash": digest}]},
            projection={"developerTokenHash": 1},
        )
        if account is None:
            raise Unauthorized("the access token is not valid")
        kind = TokenKind.DEVELOPER if account["developerTokenHash"] == digest else TokenKind.PUBLIC
        return Principal(account_id=str(account["_id"]), kind=kind)


class PrincipalCache:
    """Principals behind recently seen tokens, so a hot endpoint reads no account.

    A rotated token keeps working in this process for up to `ttl` seconds.
    """

    MAX_ENTRIES = 10_000

    def __init__(self, accounts: AccountRepository, ttl: float = 30.0) -> None:
        self._accounts = accounts
        self._ttl = ttl
        self._known: dict[str, tuple[Principal, float]] = {}

    async def authenticate(self, token: str) -> Principal:
        now = time.monotonic()
        known = self._known.get(token)
        if known is not None and known[1] > now:
            return known[0]
        principal = await self._accounts.authenticate(token)
        if len(self._known) >= self.MAX_ENTRIES:
            self._known.clear()
        self._known[token] = (principal, now + self._ttl)
        return principal


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
