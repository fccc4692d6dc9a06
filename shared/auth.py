"""Accounts and their two tokens (docs/api.md "Accounts and tokens").

The `accounts` collection belongs to this module and is read by both services. Tokens
are shown once and stored only as SHA-256 hashes, so a database leak leaks no token.
"""

import hashlib
import secrets
import time
from dataclasses import dataclass
from enum import Enum

from bson import ObjectId
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
    def __init__(self, database: Database) -> None:
        self.collection = database["accounts"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("name", unique=True)
        await self.collection.create_index("developerTokenHash", unique=True)
        await self.collection.create_index("publicKeyHash", unique=True)

    async def create(self, name: str) -> IssuedTokens:
        account_id = ObjectId()
        issued, hashes = _new_tokens(str(account_id), name)
        try:
            await self.collection.insert_one(
                {"_id": account_id, "name": name, "createdAt": utcnow(), **hashes}
            )
        except DuplicateKeyError:
            raise Conflict(f"account {name!r} already exists") from None
        return issued

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

    A rotation announced over NATS makes every process forget the account's principals
    (`forget`); without the announcement a rotated token would keep working here for up
    to `ttl` seconds.
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

    def forget(self, account_id: str) -> None:
        self._known = {
            token: known
            for token, known in self._known.items()
            if known[0].account_id != account_id
        }


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
